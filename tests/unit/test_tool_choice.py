"""Specification of the neutral tool choice: every accepted form, parallelism, Gemini validation, and refusals."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import ConfigurationError, ToolChoice
from toolwire.tool_choice import parse_tool_choice

TOOLS = ("weather", "search", "calc")


class TestForms:
    @pytest.mark.parametrize("mode", ["auto", "none", "required"])
    def test_a_simple_string_is_a_mode(self, mode: Any) -> None:
        """The three strings every provider understands."""
        assert parse_tool_choice(mode, TOOLS) == ToolChoice(mode=mode)

    def test_a_forced_tool(self) -> None:
        """`{"tool": id}` forces that tool."""
        assert parse_tool_choice({"tool": "weather"}, TOOLS) == ToolChoice(mode="tool", tool_ids=("weather",))

    def test_an_allowed_subset_defaults_to_auto(self) -> None:
        """`{"allowed": [...]}` restricts the tools the model may call, optionally."""
        assert parse_tool_choice({"allowed": ["weather", "calc"]}, TOOLS) == ToolChoice(
            mode="allowed", tool_ids=("weather", "calc"), allowed_mode="auto"
        )

    def test_an_allowed_subset_can_be_required(self) -> None:
        """With `mode: required` the model must call one of the allowed tools."""
        choice = parse_tool_choice({"allowed": ["search"], "mode": "required"}, TOOLS)
        assert choice == ToolChoice(mode="allowed", tool_ids=("search",), allowed_mode="required")

    @pytest.mark.parametrize("mode", ["auto", "none", "required"])
    def test_a_mode_dict_is_the_same_as_the_string(self, mode: Any) -> None:
        """`{"mode": m}` is the dict spelling of the string form."""
        assert parse_tool_choice({"mode": mode}, TOOLS) == ToolChoice(mode=mode)

    def test_an_empty_dict_is_auto(self) -> None:
        """No keys: the provider default."""
        assert parse_tool_choice({}, TOOLS) == ToolChoice(mode="auto")

    def test_no_choice_and_no_parallel_is_none(self) -> None:
        """Nothing given: encoders leave the field out entirely."""
        assert parse_tool_choice(None, TOOLS) is None

    def test_a_tool_choice_object_passes_through(self) -> None:
        """A prebuilt ToolChoice is used as is."""
        choice = ToolChoice(mode="required", parallel=False)
        assert parse_tool_choice(choice, TOOLS) is choice


class TestParallelAndValidated:
    def test_parallel_alone_gives_an_auto_choice(self) -> None:
        """`parallel=False` with no choice still produces a choice to carry it."""
        assert parse_tool_choice(None, TOOLS, parallel=False) == ToolChoice(mode="auto", parallel=False)

    def test_parallel_in_the_dict(self) -> None:
        """Any dict form may carry `parallel`."""
        choice = parse_tool_choice({"tool": "calc", "parallel": False}, TOOLS)
        assert choice == ToolChoice(mode="tool", tool_ids=("calc",), parallel=False)

    def test_the_parallel_argument_overrides_the_dict(self) -> None:
        """The keyword argument wins and keeps every other setting."""
        choice = parse_tool_choice(
            {"allowed": ["calc"], "mode": "required", "parallel": True, "validated": True}, TOOLS, parallel=False
        )
        assert choice == ToolChoice(
            mode="allowed", tool_ids=("calc",), allowed_mode="required", parallel=False, validated=True
        )

    def test_validated_is_carried_for_gemini(self) -> None:
        """`validated: true` asks Gemini for VALIDATED function calling."""
        assert parse_tool_choice({"mode": "auto", "validated": True}, TOOLS) == ToolChoice(validated=True)


class TestMustCall:
    @pytest.mark.parametrize(
        ("choice", "must_call"),
        [
            (ToolChoice(mode="auto"), False),
            (ToolChoice(mode="none"), False),
            (ToolChoice(mode="required"), True),
            (ToolChoice(mode="tool", tool_ids=("calc",)), True),
            (ToolChoice(mode="allowed", tool_ids=("calc",)), False),
            (ToolChoice(mode="allowed", tool_ids=("calc",), allowed_mode="required"), True),
        ],
    )
    def test_must_call(self, choice: ToolChoice, must_call: bool) -> None:
        """Whether a reply without a call would break the choice."""
        assert choice.must_call is must_call


class TestRefusals:
    def test_an_unknown_tool_is_refused_listing_the_tools(self) -> None:
        """Forcing a tool that is not sent would make the provider fail later."""
        with pytest.raises(ConfigurationError) as caught:
            parse_tool_choice({"tool": "translate"}, TOOLS)
        assert str(caught.value) == "tool_choice names ['translate'] but the tools are ['calc', 'search', 'weather']"

    def test_unknown_ids_in_an_allowed_subset_are_all_listed(self) -> None:
        """Every unknown id is named at once."""
        with pytest.raises(ConfigurationError, match=r"^tool_choice names \['x', 'y'\] but"):
            parse_tool_choice({"allowed": ["x", "calc", "y"]}, TOOLS)

    def test_a_tool_choice_object_is_checked_against_the_tools_too(self) -> None:
        """Prebuilt choices get the same id check."""
        with pytest.raises(ConfigurationError, match=r"^tool_choice names \['gone'\]"):
            parse_tool_choice(ToolChoice(mode="tool", tool_ids=("gone",)), TOOLS)

    @pytest.mark.parametrize(
        ("value", "message"),
        [
            ("always", "tool_choice 'always' is not one of ['auto', 'none', 'required'] (or a dict form)"),
            (True, "tool_choice must be a string or a dict, got bool"),
            (["calc"], "tool_choice must be a string or a dict, got list"),
            (
                {"tool": "calc", "force": True},
                """tool_choice has unknown keys ['force']: {"tool": "calc", "force": true}""",
            ),
            ({"tool": 3}, 'tool_choice {"tool": id} takes one tool id and no mode'),
            ({"tool": "calc", "mode": "required"}, 'tool_choice {"tool": id} takes one tool id and no mode'),
            ({"tool": "calc", "allowed": ["calc"]}, 'tool_choice {"tool": id} takes one tool id and no mode'),
            ({"allowed": []}, 'tool_choice {"allowed": [...]} takes a non-empty list of tool ids'),
            ({"allowed": "calc"}, 'tool_choice {"allowed": [...]} takes a non-empty list of tool ids'),
            ({"allowed": ["calc", 1]}, 'tool_choice {"allowed": [...]} takes a non-empty list of tool ids'),
            ({"allowed": ["calc"], "mode": "none"}, 'tool_choice {"allowed": ...} takes mode "auto" or "required"'),
            ({"mode": "tool"}, "tool_choice mode 'tool' is not one of ['auto', 'none', 'required']"),
            ({"parallel": "no"}, "tool_choice `parallel` must be true or false"),
            ({"validated": 1}, "tool_choice `validated` must be true or false"),
        ],
    )
    def test_a_malformed_choice_says_what_is_wrong(self, value: Any, message: str) -> None:
        """Each bad form is refused with a message naming the form or key."""
        with pytest.raises(ConfigurationError) as caught:
            parse_tool_choice(value, TOOLS)
        assert str(caught.value) == message
