"""Untrusted text placed in generated Python reads back unchanged and cannot escape its literal."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from toolwire.codemode._pytext import clean, comment, docstring, docstring_body, literal, shorten

QUOTES_AND_ESCAPES = st.text(
    alphabet=st.sampled_from(['"', "'", "\\", "a", "\n", "`", "\u202e", "\x00", "\r"]), max_size=40
)


class TestDocstrings:
    @given(st.one_of(st.text(max_size=200), QUOTES_AND_ESCAPES))
    def test_any_text_reads_back_from_a_triple_quoted_literal(self, text: str) -> None:
        """Whatever the text, the literal parses and holds exactly the cleaned text."""
        source = '"""' + docstring_body(text) + '"""'
        assert ast.literal_eval(source) == clean(text, keep_newlines=True)

    @given(QUOTES_AND_ESCAPES)
    def test_a_docstring_statement_is_a_single_expression(self, text: str) -> None:
        """The statement is one string expression, so nothing after it becomes code."""
        lines = docstring(text, "    ")
        if lines:
            module = ast.parse("def f():\n" + "\n".join(lines) + "\n")
            body = module.body[0].body  # type: ignore[attr-defined]
            assert len(body) == 1
            assert isinstance(body[0], ast.Expr)

    def test_invisible_and_control_characters_are_dropped(self) -> None:
        """Bidi overrides, zero-width spaces and NULs never reach the prompt."""
        assert clean("a\u202eb\u200bc\x00d\te", keep_newlines=True) == "abcd e"

    def test_line_breaks_become_newlines_in_docstrings(self) -> None:
        """CR, vertical tab, form feed and U+2028 would split lines anyway; they become plain newlines."""
        assert clean("a\rb\x0bc\x0cd\u2028e", keep_newlines=True) == "a\nb\nc\nd\ne"

    def test_long_text_is_cut_with_an_ellipsis(self) -> None:
        """Descriptions are capped so one tool cannot flood the prompt."""
        assert shorten("x" * 20, 10) == "xxxxxxxxx…"


class TestComments:
    @given(st.one_of(st.text(max_size=200), QUOTES_AND_ESCAPES))
    def test_a_comment_stays_on_one_line(self, text: str) -> None:
        """A comment followed by code leaves exactly that code."""
        module = ast.parse(comment(text) + "\nvalue = 1\n")
        assert ast.dump(module) == ast.dump(ast.parse("value = 1\n"))


class TestLiterals:
    @given(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=50)))
    def test_literals_evaluate_to_their_value(self, value: str | int | bool | None) -> None:
        """Enum values and keys are written with `repr`, which Python reads back exactly."""
        assert ast.literal_eval(literal(value)) == value
