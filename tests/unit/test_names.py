"""Specification of tool-name mapping: valid ids unchanged, others sanitized deterministically and reversibly."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import ToolNameCollisionError
from toolwire.names import (
    ANTHROPIC_NAMES,
    GEMINI_NAMES,
    OPENAI_NAMES,
    STRICTEST_NAMES,
    NameMap,
    NameRules,
    build_name_map,
    has_carriable_name,
    wire_name,
)

ALL_RULES = [OPENAI_NAMES, ANTHROPIC_NAMES, GEMINI_NAMES, STRICTEST_NAMES]


def _suffix(tool_id: str) -> str:
    return hashlib.sha256(tool_id.encode()).hexdigest()[:8]


class TestWireName:
    @pytest.mark.parametrize("tool_id", ["get_weather", "get-weather", "A1", "x" * 64])
    @pytest.mark.parametrize("rules", ALL_RULES, ids=["openai", "anthropic", "gemini", "strictest"])
    def test_a_valid_id_is_sent_unchanged(self, tool_id: str, rules: NameRules) -> None:
        """Names the provider accepts are never rewritten."""
        assert wire_name(tool_id, rules) == tool_id

    @pytest.mark.parametrize(
        ("tool_id", "expected"),
        [
            ("lookup customer", "lookup_customer"),
            ("files.read", "files_read"),
            ("météo/prévision", "meteo_prevision"),
            ("ask 🤖 bot", "ask__bot"),
        ],
    )
    def test_characters_outside_the_alphabet_become_underscores_after_transliteration(
        self, tool_id: str, expected: str
    ) -> None:
        """Accents lose their marks, characters without an ASCII form drop, the rest outside the alphabet become `_`."""
        assert wire_name(tool_id, OPENAI_NAMES) == expected

    def test_gemini_keeps_dots_and_colons(self) -> None:
        """Gemini's alphabet is wider: `.` and `:` are allowed."""
        assert wire_name("files.read:v2", GEMINI_NAMES) == "files.read:v2"

    @pytest.mark.parametrize(("tool_id", "expected"), [("3d_render", "_3d_render"), ("-flag", "_-flag")])
    def test_gemini_names_must_start_with_a_letter_or_underscore(self, tool_id: str, expected: str) -> None:
        """A leading digit or dash gets an underscore in front, where OpenAI takes it as is."""
        assert wire_name(tool_id, GEMINI_NAMES) == expected
        assert wire_name(tool_id, OPENAI_NAMES) == tool_id

    def test_a_long_id_is_cut_and_given_a_hash_of_the_full_id(self) -> None:
        """Over the limit, the name keeps a prefix and ends with 8 hex digits of sha256(id)."""
        tool_id = "summarize_" + "x" * 80
        name = wire_name(tool_id, OPENAI_NAMES)
        assert name == f"{tool_id[:55]}_{_suffix(tool_id)}"
        assert len(name) == 64

    def test_two_long_ids_sharing_a_prefix_get_different_names(self) -> None:
        """The hash covers the whole id, so only the cut-off tail differs and the names still differ."""
        first = wire_name("a" * 70 + "_one", OPENAI_NAMES)
        second = wire_name("a" * 70 + "_two", OPENAI_NAMES)
        assert first != second
        assert first[:55] == second[:55]

    def test_the_long_name_limit_differs_per_provider(self) -> None:
        """Gemini allows 128 characters, so a 100-character id is unchanged there."""
        tool_id = "t" * 100
        assert wire_name(tool_id, GEMINI_NAMES) == tool_id
        assert len(wire_name(tool_id, OPENAI_NAMES)) == 64

    @pytest.mark.parametrize(
        ("tool_id", "carriable"), [("天気", False), ("🤖", False), ("café", True), ("天気2", True)]
    )
    def test_a_name_is_carriable_when_an_ascii_letter_or_digit_survives(self, tool_id: str, carriable: bool) -> None:
        """Transliteration decides whether any provider can carry the id."""
        assert has_carriable_name(tool_id) is carriable


class TestNameMap:
    def test_the_map_goes_both_ways(self) -> None:
        """Every id maps to its name and back."""
        names = build_name_map("openai-chat", ["files.read", "get_weather"], OPENAI_NAMES)
        assert names == NameMap(
            "openai-chat",
            to_wire={"files.read": "files_read", "get_weather": "get_weather"},
            to_id={"files_read": "files.read", "get_weather": "get_weather"},
        )
        assert names.tool_id("files_read") == "files.read"
        assert names.wire("files.read") == "files_read"

    def test_names_outside_the_table_pass_through(self) -> None:
        """Provider tools (web_search) are not in the table and keep their names."""
        names = build_name_map("anthropic", ["a"], ANTHROPIC_NAMES)
        assert names.tool_id("web_search") == "web_search"

    def test_a_repeated_id_is_mapped_once(self) -> None:
        """The same id twice is the same tool, not a collision."""
        names = build_name_map("gemini", ["a b", "a b"], GEMINI_NAMES)
        assert names.to_wire == {"a b": "a_b"}

    def test_two_ids_landing_on_one_name_raise_naming_both(self) -> None:
        """`files.read` and `files_read` cannot be told apart on OpenAI."""
        with pytest.raises(ToolNameCollisionError) as caught:
            build_name_map("openai-chat", ["files_read", "files.read"], OPENAI_NAMES)
        error = caught.value
        assert (error.api, error.wire_name) == ("openai-chat", "files_read")
        assert error.tool_ids == ("files_read", "files.read")
        assert str(error) == (
            "tools 'files_read' and 'files.read' both map to the openai-chat name 'files_read'; rename one of them"
        )

    def test_a_collision_is_refused_again_on_every_request(self) -> None:
        """Name tables are cached per id set; a refused set is never cached as if it were fine."""
        for _ in range(2):
            with pytest.raises(ToolNameCollisionError):
                build_name_map("openai-chat", ["files_read", "files.read"], OPENAI_NAMES)

    def test_each_map_has_its_own_tables(self) -> None:
        """The cached tables are copied: changing one request's map leaves the next one as it was."""
        first = build_name_map("openai-chat", ["a b"], OPENAI_NAMES)
        first.to_wire["a b"] = "changed"
        first.to_id.clear()
        second = build_name_map("openai-chat", ["a b"], OPENAI_NAMES)
        assert (second.to_wire, second.to_id) == ({"a b": "a_b"}, {"a_b": "a b"})

    def test_the_same_two_ids_do_not_collide_where_the_alphabet_allows_both(self) -> None:
        """On Gemini the dot is allowed, so the same pair is fine."""
        names = build_name_map("gemini", ["files_read", "files.read"], GEMINI_NAMES)
        assert names.to_id == {"files_read": "files_read", "files.read": "files.read"}


def _has_ascii_alnum(text: str) -> bool:
    return any(c.isascii() and c.isalnum() for c in text)


_carriable_ids = st.text(max_size=150).filter(_has_ascii_alnum)
# A tiny alphabet makes ids that sanitize to the same name common, so collisions are exercised.
_clashing_ids = st.text(alphabet="ab1._ -é:", min_size=1, max_size=4).filter(_has_ascii_alnum)


class TestProperties:
    @settings(max_examples=400, deadline=None)
    @given(tool_id=_carriable_ids)
    def test_any_carriable_id_maps_to_a_valid_name_under_every_rule_set(self, tool_id: str) -> None:
        """Whatever the id, the name is one every provider accepts."""
        assert has_carriable_name(tool_id)
        for rules in ALL_RULES:
            name = wire_name(tool_id, rules)
            assert rules.is_valid(name), (rules, name)
            assert wire_name(tool_id, rules) == name

    @settings(max_examples=200, deadline=None)
    @given(tool_ids=st.lists(_clashing_ids | _carriable_ids, max_size=6))
    def test_a_name_map_either_refuses_a_collision_or_round_trips_every_id(self, tool_ids: list[str]) -> None:
        """Decoding uses the table, so a built map gives back exactly the ids it was built from."""
        for rules in ALL_RULES:
            by_name: dict[str, set[str]] = {}
            for tool_id in tool_ids:
                by_name.setdefault(wire_name(tool_id, rules), set()).add(tool_id)
            if any(len(ids) > 1 for ids in by_name.values()):
                with pytest.raises(ToolNameCollisionError) as caught:
                    build_name_map("api", tool_ids, rules)
                assert set(caught.value.tool_ids) <= by_name[caught.value.wire_name]
                continue
            names = build_name_map("api", tool_ids, rules)
            for tool_id in tool_ids:
                assert names.tool_id(names.wire(tool_id)) == tool_id
