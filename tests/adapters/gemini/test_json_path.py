"""`PathReader`: a call's `jsonPath`s read one after the other, each exactly as `parse_json_path` reads it alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.adapters.gemini._json_path import Path, PathError, PathReader, parse_json_path


class TestPathReader:
    def test_a_sibling_is_read_as_the_shared_parent_and_its_own_last_segment(self) -> None:
        reader = PathReader()
        reader.read("$.recipe.steps[0]")
        assert reader.read("$.recipe.steps[1]") == ("recipe", "steps", 1)

    def test_a_longer_member_name_is_not_taken_for_a_child_of_the_shorter_one(self) -> None:
        reader = PathReader()
        reader.read("$.ab")
        assert reader.read("$.abc") == ("abc",)

    def test_an_ancestor_of_the_previous_path_is_read_as_its_prefix(self) -> None:
        reader = PathReader()
        reader.read("$.a[0].b")
        assert reader.read("$.a[0]") == ("a", 0)

    def test_a_quoted_spelling_of_the_same_member_gives_the_same_segments(self) -> None:
        reader = PathReader()
        reader.read("$.a.b")
        assert reader.read("$['a'].c") == ("a", "c")

    def test_an_error_names_the_whole_path_and_its_position_as_parse_json_path_does(self) -> None:
        reader = PathReader()
        reader.read("$.a.b")
        with pytest.raises(PathError) as refused:
            reader.read("$.a..c")
        assert str(refused.value) == "jsonPath '$.a..c' has an empty member name at 3"

    def test_after_an_error_the_next_path_is_read_from_the_last_good_one(self) -> None:
        reader = PathReader()
        reader.read("$.a.b")
        with pytest.raises(PathError):
            reader.read("$.a[x]")
        assert reader.read("$.a.c") == ("a", "c")

    def test_the_first_path_read_may_be_the_empty_one(self) -> None:
        with pytest.raises(PathError) as refused:
            PathReader().read("")
        assert str(refused.value) == "jsonPath '' does not start at `$`"

    def test_the_parent_text_is_the_last_path_without_its_last_segment(self) -> None:
        reader = PathReader()
        reader.read("$.records[3]['first name']")
        assert reader.parent_text() == "$.records[3]"

    def test_the_root_has_no_parent_text(self) -> None:
        reader = PathReader()
        reader.read("$")
        assert reader.parent_text() is None


_NAMES = st.sampled_from(["a", "ab", "b", "it's", 'q"', "a.b", "x[0]", "é", "0", "]", ""])
_SEGMENTS = st.one_of(st.integers(0, 12), _NAMES)


@st.composite
def _spelled(draw: st.DrawFn) -> str:
    """A path in any of the spellings Vertex may use, or a broken one."""
    text = "$"
    for segment in draw(st.lists(_SEGMENTS, max_size=4)):
        if isinstance(segment, int):
            text += draw(st.sampled_from([f"[{segment}]", f"[0{segment}]", f"['{segment}']", f"[{segment}"]))
        else:
            quote = draw(st.sampled_from(["'", '"']))
            escaped = segment.replace("\\", "\\\\").replace(quote, "\\" + quote)
            text += draw(st.sampled_from([f".{segment}", f"[{quote}{escaped}{quote}]", f"[{quote}{segment}"]))
    return draw(st.sampled_from([text, text, text, text[:-1], "x" + text, text + ".", text + "[²]", text + "[٣]"]))


def _outcome(read: object, path: str) -> Path | str:
    try:
        return read(path)  # type: ignore[operator,no-any-return]
    except PathError as exc:
        return f"PathError: {exc}"
    except ValueError as exc:
        return f"ValueError: {exc}"


class TestProperties:
    @given(st.lists(_spelled(), max_size=12))
    def test_every_path_in_a_sequence_reads_as_it_does_alone(self, paths: list[str]) -> None:
        reader = PathReader()
        for path in paths:
            assert _outcome(reader.read, path) == _outcome(parse_json_path, path)
