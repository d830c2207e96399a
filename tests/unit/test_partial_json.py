"""Specification of the incremental partial-JSON parser used for streamed tool-call arguments."""

from __future__ import annotations

import json
import sys
from typing import Any

import jiter
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire._partial_json import MAX_DEPTH, IncrementalJsonParser, parse_partial

_JITER_RAISES: Any = object()


def _feed(*fragments: str) -> IncrementalJsonParser:
    parser = IncrementalJsonParser()
    for fragment in fragments:
        parser.feed(fragment)
    return parser


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down, so that 1, 1.0 and True stay apart."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _jiter_partial(prefix: str) -> Any:
    try:
        return jiter.from_json(prefix.encode(), partial_mode="trailing-strings")
    except ValueError:
        return _JITER_RAISES


def _prefix_consistent(value: Any, prefix: str) -> bool:
    """The documented relation to jiter's trailing-strings mode: equal, or None where jiter raises."""
    expected = _jiter_partial(prefix)
    if expected is _JITER_RAISES:  # nothing yet, or a top-level number or literal that cannot stand alone
        return value is None
    return _same(value, expected)


# Lone surrogates are left out: jiter rejects them (test_a_lone_surrogate_decodes_as_json_loads_does covers them).
_chars = st.sampled_from(list('a"\\/\n\t\r\x00\x1f\x7f é日😀🚀\u2028')) | st.characters(exclude_categories=["Cs"])
_texts = st.text(_chars, max_size=12)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_texts, children, max_size=4),
    max_leaves=16,
)
_json_texts = st.builds(
    json.dumps,
    _json_values,
    ensure_ascii=st.booleans(),
    indent=st.none() | st.integers(0, 2),
)


class TestWholeDocuments:
    @pytest.mark.parametrize(
        "text",
        [
            "null",
            "true",
            "false",
            "0",
            "-12",
            "1.5e-3",
            "1E+2",
            '"text"',
            '""',
            "[]",
            "{}",
            '{"a": [1, 2.5, null, true, false, "x"], "b": {"c": {}}, "d": []}',
            '  {\n  "a" : [ 1 ,\t2 ]\r\n}  ',
            '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"',
            '["é日😀"]',
        ],
    )
    def test_a_whole_document_fed_at_once_equals_json_loads(self, text: str) -> None:
        """A complete document in one fragment gives exactly what json.loads gives."""
        parser = _feed(text)
        assert _same(parser.value(), json.loads(text))
        assert parser.complete
        assert parser.error is None

    @pytest.mark.parametrize(("text", "value"), [("", None), ("   \n", None)])
    def test_nothing_parsed_yet_is_none(self, text: str, value: Any) -> None:
        """Before a value starts, value() is None and the document is not complete."""
        parser = _feed(text)
        assert parser.value() is value
        assert not parser.complete

    def test_a_top_level_null_is_complete(self) -> None:
        """`null` is a whole document even though its value is None."""
        parser = _feed("null")
        assert parser.value() is None
        assert parser.complete

    def test_parse_partial_is_feeding_once(self) -> None:
        """parse_partial gives the value of a parser fed the same text."""
        assert parse_partial('{"a": [1, {"b": "cd') == {"a": [1, {"b": "cd"}]}

    def test_nested_arrays_of_objects(self) -> None:
        """Containers nest in place, and each one shows as soon as it opens."""
        text = '[{"a": [{"b": 1}, {}]}, [{"c": [[]]}]]'
        assert _feed('[{"a": [{').value() == [{"a": [{}]}]
        assert _feed('[{"a": [{"b": 1}, {}]}, [').value() == [{"a": [{"b": 1}, {}]}, []]
        assert _feed(text).value() == json.loads(text)

    def test_deep_nesting_under_the_limit_needs_no_recursion(self) -> None:
        """Nesting far beyond the recursion limit parses, then closes completely."""
        depth = 5_000
        parser = _feed("[" * depth + "]" * depth)
        assert parser.error is None
        assert parser.complete
        value = parser.value()
        for _ in range(depth - 1):
            (value,) = value
        assert value == []


class TestFragments:
    @settings(max_examples=300, deadline=None)
    @given(text=_json_texts, data=st.data())
    def test_random_fragments_give_prefix_consistent_values_and_the_final_document(
        self, text: str, data: st.DataObject
    ) -> None:
        """After every fragment the value matches jiter on that prefix; at the end it equals json.loads."""
        cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=len(text))))
        parser = IncrementalJsonParser()
        for start, stop in zip([0, *cuts], [*cuts, len(text)], strict=True):
            parser.feed(text[start:stop])
            value = parser.value()
            assert _prefix_consistent(value, text[:stop])
            assert _same(value, parse_partial(text[:stop]))
        assert parser.error is None
        assert parser.complete
        assert _same(parser.value(), json.loads(text))

    @settings(max_examples=100, deadline=None)
    @given(text=_json_texts)
    def test_one_character_at_a_time_is_prefix_consistent_at_every_prefix(self, text: str) -> None:
        """Fed one character at a time, every prefix's value matches jiter and the one-shot parse."""
        parser = IncrementalJsonParser()
        for stop in range(1, len(text) + 1):
            parser.feed(text[stop - 1])
            value = parser.value()
            assert _prefix_consistent(value, text[:stop])
            assert _same(value, parse_partial(text[:stop]))
        assert parser.complete
        assert _same(parser.value(), json.loads(text))

    @settings(max_examples=300, deadline=None)
    @given(text=st.text(st.sampled_from(list('{}[],:"\\ -019.eE+tulfsrnax\nu')), max_size=30), data=st.data())
    def test_any_text_in_any_fragments_gives_what_one_feed_gives_and_agrees_with_json_loads(
        self, text: str, data: st.DataObject
    ) -> None:
        """Valid or not, fragments never raise and change nothing; `complete` holds exactly when json.loads accepts."""
        cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=len(text))))
        parser = IncrementalJsonParser()
        for start, stop in zip([0, *cuts], [*cuts, len(text)], strict=True):
            parser.feed(text[start:stop])
        whole = _feed(text)
        assert parser.error == whole.error
        assert _same(parser.value(), whole.value())
        try:
            expected = json.loads(text)
        except ValueError:
            assert not parser.complete
        else:
            assert parser.complete
            assert _same(parser.value(), expected)


class TestEscapes:
    @pytest.mark.parametrize("escape", ['\\"', "\\\\", "\\/", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\ud83d\\u0041"])
    def test_an_escape_split_at_every_position_decodes_once_whole(self, escape: str) -> None:
        """However the escape is cut in two or three, the final string is json.loads's."""
        text = f'["a{escape}b"]'
        for i in range(1, len(text)):
            for j in range(i, len(text)):
                parser = _feed(text[:i], text[i:j], text[j:])
                assert _same(parser.value(), json.loads(text))

    @pytest.mark.parametrize(
        ("prefix", "value"),
        [
            ('["a\\', ["a"]),
            ('["a\\"', ['a"']),
            ('["a\\u', ["a"]),
            ('["a\\u00', ["a"]),
            ('["a\\u00e', ["a"]),
            ('["a\\u00e9', ["aé"]),
            ('["a\\ud8', ["a"]),
            ('["a\\ud83d', ["a"]),
            ('["a\\ud83d\\', ["a"]),
            ('["a\\ud83d\\u', ["a"]),
            ('["a\\ud83d\\ude0', ["a"]),
            ('["a\\ud83d\\ude00', ["a😀"]),
            ('["a\\ud83dx', ["a\ud83dx"]),
            ('["a\\\\ud83d', ["a\\ud83d"]),
        ],
    )
    def test_a_partial_escape_or_unpaired_high_surrogate_is_left_out_until_complete(
        self, prefix: str, value: list[str]
    ) -> None:
        """The string shows its decoded text, holding back what the next fragment may still change."""
        assert _feed(prefix).value() == value
        assert _feed(*prefix).value() == value

    def test_a_lone_surrogate_decodes_as_json_loads_does(self) -> None:
        """A high surrogate escape followed by a non-surrogate stays a lone surrogate (jiter rejects it)."""
        text = '"\\ud83d\\u0041\\ude00"'
        assert _feed(text).value() == json.loads(text) == "\ud83dA\ude00"


class TestNumbersAndLiterals:
    @pytest.mark.parametrize(
        ("prefix", "value"),
        [
            ("[-", []),
            ("[1", [1]),
            ("[12", [12]),
            ("[-0", [0]),
            ("[1.", []),
            ("[1.5", [1.5]),
            ("[1.5e", []),
            ("[1.5e-", []),
            ("[1.5e-3", [0.0015]),
            ("[1E+2", [100.0]),
            ("[t", []),
            ("[tru", []),
            ("[true", [True]),
            ("[nul", []),
            ("[null", [None]),
            ("[f", []),
            ("[false", [False]),
        ],
    )
    def test_an_in_progress_number_shows_once_whole_and_a_literal_once_complete(
        self, prefix: str, value: list[Any]
    ) -> None:
        """A number shows when its text so far is a whole number; a literal only when spelled out."""
        assert _same(_feed(prefix).value(), value)
        assert _same(_feed(*prefix).value(), value)

    @pytest.mark.parametrize("text", ["[-12.5e-3]", "[true]", "[false]", "[null]", "[0, 10, -0.0]"])
    def test_numbers_and_literals_split_at_every_position(self, text: str) -> None:
        """Cut anywhere, numbers and literals parse to json.loads's value."""
        for i in range(1, len(text)):
            assert _same(_feed(text[:i], text[i:]).value(), json.loads(text))

    @pytest.mark.parametrize(("text", "value"), [("-", None), ("1.", None), ("tr", None), ("12", 12), ("1e5", 1e5)])
    def test_a_top_level_number_in_progress(self, text: str, value: Any) -> None:
        """At the top level an incomplete number or literal is None, where jiter raises."""
        assert _same(_feed(text).value(), value)

    def test_a_valid_top_level_number_counts_as_complete(self) -> None:
        """`12` is a whole document even though another digit may follow."""
        parser = _feed("12")
        assert parser.complete
        parser.feed("3 ")
        assert parser.value() == 123
        assert parser.complete


class TestErrors:
    @pytest.mark.parametrize(
        ("text", "error", "value"),
        [
            ('{"a" 1}', "unexpected '1' at offset 5", {}),
            ("[1,]", "unexpected ']' at offset 3", [1]),
            ('{"a":1}}', "unexpected '}' at offset 7", {"a": 1}),
            ('{"a":1]', "unexpected ']' at offset 6", {"a": 1}),
            ("[1 2]", "unexpected '2' at offset 3", [1]),
            ("[1.]", "unexpected ']' at offset 3", []),
            ("[01]", "unexpected '1' at offset 2", [0]),
            ("[-x]", "unexpected 'x' at offset 2", []),
            ("[tx]", "unexpected 'x' at offset 2", []),
            ("[NaN]", "unexpected 'N' at offset 1", []),
            ('["ab\\q"]', "unexpected 'q' at offset 5", ["ab"]),
            ('["\\u12g4"]', "unexpected 'g' at offset 6", [""]),
            ('["a\nb"]', "unexpected '\\n' at offset 3", ["a"]),
            ("{1: 2}", "unexpected '1' at offset 1", {}),
            ('{"a": 1,}', "unexpected '}' at offset 8", {"a": 1}),
        ],
    )
    def test_a_syntax_error_is_recorded_with_its_offset_and_keeps_the_value_so_far(
        self, text: str, error: str, value: Any
    ) -> None:
        """feed() never raises on bad JSON: `error` says what and where, value() keeps what came before."""
        for parser in (_feed(text), _feed(*text)):
            assert parser.error == error
            assert _same(parser.value(), value)
            assert not parser.complete

    def test_an_integer_over_the_int_digits_limit_is_an_error(self) -> None:
        """Past sys.get_int_max_str_digits() an integer is refused, as json.loads refuses it."""
        previous = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(4300)
        try:
            parser = _feed("[1, " + "9" * 5000 + "]")
        finally:
            sys.set_int_max_str_digits(previous)
        assert parser.error == "integer too long ending at offset 5004"
        assert parser.value() == [1]

    def test_feeds_after_an_error_are_ignored(self) -> None:
        """Once an error is recorded, later fragments change neither the value nor the error."""
        parser = _feed("[1,]")
        parser.feed(", 2]")
        assert parser.error == "unexpected ']' at offset 3"
        assert parser.value() == [1]

    def test_an_unterminated_document_is_not_an_error(self) -> None:
        """Text that stops mid-document is a prefix, not a mistake."""
        parser = _feed('{"a": [1, "x')
        assert parser.error is None
        assert not parser.complete
        assert parser.value() == {"a": [1, "x"]}

    def test_nesting_deeper_than_the_limit_is_an_error_not_a_recursion_error(self) -> None:
        """The depth guard stops pathological nesting with an error."""
        parser = _feed("[" * MAX_DEPTH)
        assert parser.error is None
        parser.feed("[[[")
        assert parser.error == f"nesting deeper than {MAX_DEPTH} at offset {MAX_DEPTH}"


class TestLiveValue:
    def test_containers_are_live_across_feeds(self) -> None:
        """value() returns the parser's own containers, which later feeds extend in place."""
        parser = _feed('{"a": [1')
        first = parser.value()
        parser.feed(', 2], "b": "x')
        assert parser.value() is first
        assert first == {"a": [1, 2], "b": "x"}

    def test_the_in_progress_leaf_is_replaced_on_the_next_read(self) -> None:
        """The in-progress string is patched into its parent when read and refreshed on the next read."""
        parser = _feed('{"a": "x')
        value = parser.value()
        assert value == {"a": "x"}
        parser.feed("yz")
        assert parser.value() is value
        assert value == {"a": "xyz"}

    def test_a_string_read_earlier_keeps_its_text(self) -> None:
        """The in-progress string grows for later reads without changing a string already handed out."""
        parser = _feed('{"a": "x')
        kept = parser.value()["a"]
        parser.feed("yz")
        assert parser.value() == {"a": "xyz"}
        assert kept == "x"

    def test_reading_twice_without_a_feed_returns_the_same_value(self) -> None:
        """value() is cached between feeds, so a second read does no work."""
        parser = _feed('"abc', "def")
        assert parser.value() is parser.value()
        assert parser.value() == "abcdef"

    def test_a_repeated_key_shows_its_earlier_value_while_the_new_one_cannot_show(self) -> None:
        """Under a duplicate key the partial value replaces the earlier one only while it can show, as in jiter."""
        parser = _feed('{"a": 1, "a": 2')
        assert parser.value() == {"a": 2}
        parser.feed(".")
        assert parser.value() == {"a": 1}
        parser.feed("5}")
        assert _same(parser.value(), json.loads('{"a": 1, "a": 2.5}'))
