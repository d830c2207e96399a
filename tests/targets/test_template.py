"""Specification of the reference grammar and its single-pass resolver."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.targets import TargetReferenceError, TargetSpecError
from toolwire.targets._template import Ref, Scope, parse_body, parse_template, render_body, render_text


def _scope(value: Any, env: dict[str, str] | None = None, reads: list[str] | None = None) -> Scope:
    known = env or {}

    def lookup(name: str) -> str:
        if reads is not None:
            reads.append(name)
        return known[name]

    return Scope(value, lookup)


class TestGrammar:
    def test_text_without_references_is_one_literal(self) -> None:
        """Plain text parses to itself."""
        assert parse_template("/tools/save-bookmark").tokens == ("/tools/save-bookmark",)

    def test_whole_input_reference(self) -> None:
        """`${input}` is the whole input."""
        assert parse_template("${input}").tokens == (Ref("input", ()),)

    def test_nested_reference_with_list_index(self) -> None:
        """Dotted keys walk objects; digits index lists."""
        assert parse_template("${input.items.0.id}").tokens == (Ref("input", ("items", "0", "id")),)

    def test_env_reference(self) -> None:
        """`${env.NAME}` names one env variable."""
        assert parse_template("Bearer ${env.API_KEY}").tokens == ("Bearer ", Ref("env", ("API_KEY",)))

    def test_escape_yields_a_literal_reference_text(self) -> None:
        """`$${input.name}` is the literal text `${input.name}`."""
        template = parse_template("$${input.name}")
        assert (template.tokens, template.refs) == (("${input.name}",), ())

    def test_dollar_before_an_escape_stays_a_dollar(self) -> None:
        """At each `$` the escape is tried first: `$$${input.x}` is `$` + literal `${input.x}`."""
        assert parse_template("$$${input.x}").tokens == ("$${input.x}",)

    def test_lone_dollars_are_literal(self) -> None:
        """A `$` not starting `${` or `$${` is text (OData's `$filter` works)."""
        assert parse_template("$filter=a$$b$").tokens == ("$filter=a$$b$",)

    def test_unterminated_reference_is_a_definition_error(self) -> None:
        """`${input` with no closing brace fails when parsed."""
        with pytest.raises(TargetSpecError, match="unterminated"):
            parse_template("/items/${input")

    @pytest.mark.parametrize(
        "text",
        [
            "${ input.a }",
            "${input.a | upper}",
            "${env}",
            "${env.A.B}",
            "${secrets.X}",
            "${input..a}",
            "${}",
            "${input.a b}",
        ],
    )
    def test_references_outside_the_grammar_are_definition_errors(self, text: str) -> None:
        """No whitespace, filters, other roots or empty keys."""
        with pytest.raises(TargetSpecError, match="unknown reference"):
            parse_template(text)


class TestResolution:
    def test_substituted_text_is_never_scanned_again(self) -> None:
        """An input holding `${env.SECRET}` comes out as that literal text and the env is never read."""
        reads: list[str] = []
        scope = _scope({"q": "${env.SECRET}"}, {"SECRET": "s3cret"}, reads)
        assert (render_text(parse_template("${input.q}"), scope, "a query"), reads) == ("${env.SECRET}", [])

    def test_two_references_cannot_build_a_reference(self) -> None:
        """`$` from one value and `{env.X}` from the next stay text."""
        reads: list[str] = []
        scope = _scope({"a": "$", "b": "{env.X}"}, {"X": "x"}, reads)
        assert (render_text(parse_template("${input.a}${input.b}"), scope, "a query"), reads) == ("${env.X}", [])

    def test_missing_key_names_the_reference(self) -> None:
        """An absent value fails with the full reference, never an empty string."""
        with pytest.raises(TargetReferenceError) as caught:
            render_text(parse_template("${input.a.b}"), _scope({"a": {}}), "a path")
        assert str(caught.value) == "`${input.a.b}` has no value: `input.a` has no key 'b'; no request was sent"

    def test_reading_into_text_is_an_error(self) -> None:
        """`input.a.b` when `input.a` is a string fails."""
        with pytest.raises(TargetReferenceError, match=r"`input\.a` is text"):
            render_text(parse_template("${input.a.b}"), _scope({"a": "text"}), "a path")

    def test_list_index_past_the_end_is_missing(self) -> None:
        """`${input.items.3}` on a two-item list fails."""
        with pytest.raises(TargetReferenceError, match=r"a list of 2 with no index '3'"):
            render_text(parse_template("${input.items.3}"), _scope({"items": [1, 2]}), "a path")

    @pytest.mark.parametrize(("value", "text"), [(7, "7"), (2.5, "2.5"), (True, "true"), (False, "false"), ("é", "é")])
    def test_scalars_become_their_json_text(self, value: Any, text: str) -> None:
        """Numbers and booleans are written as JSON writes them."""
        assert render_text(parse_template("${input.v}"), _scope({"v": value}), "a header") == text

    @pytest.mark.parametrize(("value", "kind"), [(None, "null"), ({"a": 1}, "an object"), ([1], "an array")])
    def test_null_objects_and_arrays_cannot_become_text(self, value: Any, kind: str) -> None:
        """A present null, an object or an array cannot go into a path, query or header."""
        with pytest.raises(TargetReferenceError) as caught:
            render_text(parse_template("${input.v}"), _scope({"v": value}), "a header")
        assert str(caught.value) == (
            f"`${{input.v}}` is {kind}; only text, numbers and booleans can go into a header; no request was sent"
        )


class TestBody:
    def test_a_value_that_is_exactly_one_reference_keeps_its_json_type(self) -> None:
        """Whole-value references keep ints, booleans, lists, objects and null."""
        body = parse_body(
            {"n": "${input.n}", "b": "${input.b}", "l": "${input.l}", "o": "${input.o}", "z": "${input.z}"}
        )
        value = {"n": 3, "b": False, "l": [1, "x"], "o": {"k": "v"}, "z": None}
        assert render_body(body, _scope(value)) == value

    def test_embedded_references_interpolate_text(self) -> None:
        """A string with text around a reference stays a string."""
        body = parse_body({"note": "Saved: ${input.title} (#${input.id})"})
        assert render_body(body, _scope({"title": "X", "id": 4})) == {"note": "Saved: X (#4)"}

    def test_an_embedded_object_is_an_error(self) -> None:
        """An object inside text would need a serialization choice; it fails instead."""
        with pytest.raises(TargetReferenceError, match="is an object; only text, numbers and booleans"):
            render_body(parse_body({"note": "see ${input.o}"}), _scope({"o": {"a": 1}}))

    def test_literal_values_pass_through(self) -> None:
        """Numbers, booleans and null written by the author stay as written."""
        assert render_body(parse_body({"a": 1, "b": [True, None, 2.5]}), _scope({})) == {"a": 1, "b": [True, None, 2.5]}

    def test_a_reference_in_a_key_is_a_definition_error(self) -> None:
        """Keys are literal."""
        with pytest.raises(TargetSpecError) as caught:
            parse_body({"${input.k}": 1})
        assert (caught.value.field, caught.value.problem) == (
            "body.${input.k}",
            "is a key with a reference; keys are literal",
        )

    def test_non_json_values_are_definition_errors(self) -> None:
        """Sets, bytes and NaN are not JSON."""
        with pytest.raises(TargetSpecError, match="must be JSON"):
            parse_body({"a": {1, 2}})


_TEXT = st.text(alphabet=st.sampled_from("ab$.{}/\\%\r\n${}ENV"), max_size=24)


@given(value=_TEXT)
def test_any_input_text_is_substituted_verbatim(value: str) -> None:
    """Whatever the input holds (`${`, `$${`, braces), the rendered text is exactly it."""
    reads: list[str] = []
    assert render_text(parse_template("${input.v}"), _scope({"v": value}, {}, reads), "a body") == value
    assert reads == []


@given(text=st.text(max_size=40))
def test_parsing_never_crashes(text: str) -> None:
    """Any author text either parses or fails with a definition error."""
    try:
        template = parse_template(text)
    except TargetSpecError:
        return
    assert all(isinstance(t, (str, Ref)) for t in template.tokens)


@given(text=st.text(alphabet=st.sampled_from("ab/{}"), max_size=30))
def test_text_without_dollars_is_its_own_literal(text: str) -> None:
    """Without a `$` nothing is a reference."""
    assert parse_template(text).literal == text
