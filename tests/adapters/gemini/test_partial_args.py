"""`JsonPathWriter`: Vertex `partialArgs` (JSON path + value pairs) written as JSON text, one delta per pair."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.adapters.gemini._json_path import PathError, parse_json_path
from toolwire.adapters.gemini._partial_args import JsonPathWriter

Pair = tuple[tuple[str | int, ...], Any, bool, bool]


def write(pairs: list[Pair]) -> tuple[list[str], str, Any]:
    """The deltas, the closing text, and the value rebuilt from the deltas (None when the text is the document)."""
    writer = JsonPathWriter()
    deltas = [writer.feed(*pair) for pair in pairs]
    closing, rebuild = writer.close()
    return deltas, closing, None if rebuild is None else rebuild("".join(deltas))


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class TestPaths:
    @pytest.mark.parametrize(
        ("path", "segments"),
        [
            ("$", ()),
            ("$.location", ("location",)),
            ("$.recipe.ingredients[10].name", ("recipe", "ingredients", 10, "name")),
            ("$['first name']", ("first name",)),
            ('$["a.b"][0]', ("a.b", 0)),
            ("$['it\\'s']", ("it's",)),
            ("$[0][1]", (0, 1)),
        ],
    )
    def test_normalized_paths_are_read_as_segments(self, path: str, segments: tuple[Any, ...]) -> None:
        assert parse_json_path(path) == segments

    @pytest.mark.parametrize("path", ["location", "$.", "$..a", "$[x]", "$['open", "$['a'x", "$ a", "$[-1]"])
    def test_other_paths_are_refused_naming_the_path(self, path: str) -> None:
        with pytest.raises(PathError) as refused:
            parse_json_path(path)
        assert str(refused.value).startswith(f"jsonPath {path!r}")


class TestWriting:
    def test_the_recorded_nested_sequence_gives_text_deltas_that_build_the_document(self) -> None:
        pairs: list[Pair] = [
            (("recipe", "ingredients", 0, "amount"), "16 ", True, True),
            (("recipe", "ingredients", 0, "amount"), "oz", True, False),
            (("recipe", "ingredients", 0, "name"), "Noodles", True, False),
            (("recipe", "ingredients", 1, "amount"), "1 lb", True, False),
            (("recipe", "name"), "Lasagna", True, False),
            (("recipe", "steps", 0), "Preheat", True, False),
            (("recipe", "serves"), 4.0, False, False),
        ]
        deltas, closing, value = write(pairs)
        assert deltas == [
            '{"recipe":{"ingredients":[{"amount":"16 ',
            'oz"',
            ',"name":"Noodles"',
            '},{"amount":"1 lb"',
            '}],"name":"Lasagna"',
            ',"steps":["Preheat"',
            '],"serves":4',
        ]
        assert (closing, value) == ("}}", None)

    def test_a_string_closed_by_an_empty_last_piece_is_written_once(self) -> None:
        deltas, closing, _ = write([(("id",), "A", True, True), (("id",), "", True, False)])
        assert "".join(deltas) + closing == '{"id":"A"}'

    def test_numbers_booleans_and_nulls_are_json_literals(self) -> None:
        deltas, closing, _ = write(
            [
                (("a",), 0.5, False, False),
                (("b",), 3.0, False, False),
                (("c",), True, False, False),
                (("d",), None, False, False),
            ]
        )
        assert "".join(deltas) + closing == '{"a":0.5,"b":3,"c":true,"d":null}'

    def test_keys_and_strings_are_escaped(self) -> None:
        deltas, closing, _ = write([(('say "hi"',), 'line\n"quoted" é', True, False)])
        assert json.loads("".join(deltas) + closing) == {'say "hi"': 'line\n"quoted" é'}

    def test_no_pairs_make_an_empty_object(self) -> None:
        assert write([]) == ([], "{}", None)

    def test_a_string_left_open_is_closed_at_the_end(self) -> None:
        writer = JsonPathWriter()
        writer.feed(("q",), "abc", True, True)
        assert not writer.clean
        assert writer.close() == ('"}', None)

    def test_a_path_going_back_into_a_closed_container_switches_to_building_the_value(self) -> None:
        pairs: list[Pair] = [
            (("a", "x"), 1.0, False, False),
            (("b",), "two", True, False),
            (("a", "y"), "late", True, True),
            (("a", "y"), "r", True, False),
        ]
        deltas, closing, value = write(pairs)
        assert deltas == ['{"a":{"x":1', '},"b":"two"', "", ""]
        assert (closing, value) == ("", {"a": {"x": 1, "y": "later"}, "b": "two"})

    def test_an_index_that_skips_ahead_switches_to_building_the_value(self) -> None:
        deltas, _, value = write([(("xs", 0), 1, False, False), (("xs", 2), 3, False, False)])
        assert (deltas, value) == (['{"xs":[1', ""], {"xs": [1, None, 3]})


class TestMembers:
    """`feed_member`: a pair that adds a member to the innermost open container, written without its path."""

    def test_a_new_key_of_the_open_object_is_written_after_a_comma(self) -> None:
        writer = JsonPathWriter()
        writer.feed(("a", "x"), 1, False, False)
        assert writer.feed_member("y", "s", True, False) == ',"y":"s"'

    def test_the_next_index_of_the_open_array_is_written_after_a_comma(self) -> None:
        writer = JsonPathWriter()
        writer.feed(("xs", 0), 1, False, False)
        assert writer.feed_member(1, 2.0, False, False) == ",2"

    def test_a_string_left_open_is_closed_before_the_member(self) -> None:
        writer = JsonPathWriter()
        writer.feed(("a",), "x", True, True)
        assert writer.feed_member("b", None, False, False) == '","b":null'

    def test_a_member_string_that_continues_stays_open_for_the_general_path(self) -> None:
        writer = JsonPathWriter()
        writer.feed(("a",), 1, False, False)
        assert writer.feed_member("b", "pi", True, True) == ',"b":"pi'
        assert writer.feed(("b",), "e", True, False) == 'e"'

    def test_integers_of_any_size_are_written_as_json_writes_them(self) -> None:
        writer = JsonPathWriter()
        writer.feed(("a",), 1, False, False)
        assert writer.feed_member("b", 10**20, False, False) == ',"b":100000000000000000000'

    @pytest.mark.parametrize(
        ("first", "segment"),
        [
            ((("a", "x"), 1, False, False), "x"),  # a key already written
            ((("a", "x"), 1, False, False), 0),  # an index in an object
            ((("xs", 0), 1, False, False), 2),  # an index that skips ahead
            ((("xs", 0), 1, False, False), "k"),  # a key in an array
        ],
    )
    def test_a_member_the_container_does_not_take_is_refused_and_changes_nothing(
        self, first: Pair, segment: str | int
    ) -> None:
        writer, twin = JsonPathWriter(), JsonPathWriter()
        writer.feed(*first)
        twin.feed(*first)
        assert writer.feed_member(segment, 5, False, False) is None
        path = (*first[0][:-1], segment)
        assert writer.feed(path, 5, False, False) == twin.feed(path, 5, False, False)
        assert writer.close()[0] == twin.close()[0]

    def test_nothing_is_taken_before_the_first_pair_or_once_the_writer_stopped_writing(self) -> None:
        writer = JsonPathWriter()
        assert writer.feed_member("a", 1, False, False) is None
        writer.feed(("a", "x"), 1, False, False)
        writer.feed(("b",), 1, False, False)
        writer.feed(("a", "y"), 1, False, False)  # back into `a`: the writer stops writing
        assert (writer.writing, writer.feed_member("c", 1, False, False)) == (False, None)


def _pairs_of(value: Any, path: tuple[str | int, ...], chunking: st.DataObject) -> list[Pair]:
    """The pairs Vertex would send for a value, in document order; strings split at random."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _pairs_of(item, (*path, key), chunking)]
    if isinstance(value, list):
        return [pair for i, item in enumerate(value) for pair in _pairs_of(item, (*path, i), chunking)]
    if isinstance(value, str):
        cuts = sorted(chunking.draw(st.sets(st.integers(0, len(value)), max_size=4)))
        pieces = [value[a:b] for a, b in zip([0, *cuts], [*cuts, len(value)], strict=True)]
        return [(path, piece, True, i < len(pieces) - 1) for i, piece in enumerate(pieces)]
    return [(path, value, False, False)]


_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False, allow_infinity=False), st.text()
)
_KEYS = st.text(min_size=1, max_size=8)
_VALUES = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=4), st.dictionaries(_KEYS, inner, min_size=1, max_size=4)
    ),
    max_leaves=20,
)


class TestProperties:
    @given(st.dictionaries(_KEYS, _VALUES, max_size=5), st.data())
    def test_the_deltas_and_the_closing_text_are_the_document(
        self, value: dict[str, Any], chunking: st.DataObject
    ) -> None:
        deltas, closing, built = write(_pairs_of(value, (), chunking))
        assert built is None
        assert json.loads("".join(deltas) + closing) == value

    @given(st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=5), st.data())
    def test_after_every_delta_the_text_is_a_prefix_of_a_json_object(
        self, value: dict[str, Any], chunking: st.DataObject
    ) -> None:
        writer = JsonPathWriter()
        text = ""
        for pair in _pairs_of(value, (), chunking):
            text += writer.feed(*pair)
            closing = '"' * (not writer.clean)
            assert isinstance(json.loads(text + closing + _closers(text + closing)), dict)

    @given(st.dictionaries(_KEYS, _VALUES, min_size=2, max_size=5), st.data())
    def test_whole_values_in_any_order_still_give_the_document(
        self, value: dict[str, Any], shuffling: st.DataObject
    ) -> None:
        pairs = shuffling.draw(st.permutations(_leaves(value, ())))
        deltas, closing, built = write(pairs)
        assert (json.loads("".join(deltas) + closing) if built is None else built) == value

    @given(st.dictionaries(_KEYS, _VALUES, max_size=5), st.data())
    def test_members_written_by_feed_member_are_the_text_feed_writes(
        self, value: dict[str, Any], data: st.DataObject
    ) -> None:
        pairs = _pairs_of(value, (), data)
        if data.draw(st.booleans()):  # strings left open: the next path closes them
            pairs = [(path, value, is_string, is_string) for path, value, is_string, _ in pairs]
        if data.draw(st.booleans()):
            pairs = data.draw(st.permutations(pairs))
        general, members = JsonPathWriter(), JsonPathWriter()
        text = ""
        previous: Pair | None = None
        for pair in pairs:
            path = pair[0]
            expected = general.feed(*pair)
            written = None
            if previous is not None and path and members.writing and previous[0][:-1] == path[:-1]:
                written = members.feed_member(path[-1], *pair[1:])
            if written is None:
                written = members.feed(*pair)
            assert written == expected
            text += written
            previous = pair
        (closing, rebuild), (members_closing, members_rebuild) = general.close(), members.close()
        assert members_closing == closing
        assert (rebuild and rebuild(text)) == (members_rebuild and members_rebuild(text))

    def test_a_key_written_again_after_its_object_closed_switches_to_building_the_value(self) -> None:
        pairs: list[Pair] = [
            (("a", "y"), 2, False, False),
            (("b",), 3, False, False),
            (("a", "x"), 1, False, False),
        ]
        assert write(pairs)[2] == {"a": {"y": 2, "x": 1}, "b": 3}


def _leaves(value: Any, path: tuple[str | int, ...]) -> list[Pair]:
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _leaves(item, (*path, key))]
    if isinstance(value, list):
        return [pair for i, item in enumerate(value) for pair in _leaves(item, (*path, i))]
    return [(path, value, isinstance(value, str), False)]


def _closers(text: str) -> str:
    """Brackets that close a JSON prefix written by the writer (strings already closed)."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            stack.pop()
    return "".join(reversed(stack))
