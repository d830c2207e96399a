"""The reference grammar and its single-pass resolver: `${input}`, `${input.a.0}`, `${env.NAME}`, `$${`.

```
template := (literal | escape | ref)*
escape   := "$${"                      emits a literal "${"
ref      := "${" ("input" ("." key)* | "env." NAME) "}"
key      := [A-Za-z0-9_-]+             digits index a list
NAME     := [A-Za-z_][A-Za-z0-9_]*
```

Templates are parsed once, from the author's text only, when the tool is created. Resolution
walks the parsed tokens left to right and never parses a substituted value, so input text
such as `${env.SECRET}` stays literal. A lone `$` (or `$$` before anything but `{`) is
literal; at each `$` the escape is tried first, so `$$${input.x}` is `$` + a literal `${input.x}`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import TargetReferenceError, TargetSpecError

_KEY = re.compile(r"[A-Za-z0-9_-]+")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GRAMMAR = "references are `${input}`, `${input.a.b}` (digits index lists) and `${env.NAME}`; `$${` is a literal `${`"


@dataclass(frozen=True, slots=True)
class Ref:
    """One `${...}` reference: the whole input, a path into it, or a named env value."""

    root: Literal["input", "env"]
    path: tuple[str, ...]

    def __str__(self) -> str:
        return "${" + ".".join((self.root, *self.path)) + "}"

    @property
    def env_name(self) -> str | None:
        """The env variable's name, for an `env` reference."""
        return self.path[0] if self.root == "env" else None


@dataclass(frozen=True, slots=True)
class Template:
    """An author string split into literal text and references."""

    source: str
    tokens: tuple[str | Ref, ...]

    @property
    def refs(self) -> tuple[Ref, ...]:
        """Every reference, in order."""
        return tuple(t for t in self.tokens if isinstance(t, Ref))

    @property
    def single_ref(self) -> Ref | None:
        """The reference when the template is exactly one reference and nothing else."""
        if len(self.tokens) == 1 and isinstance(self.tokens[0], Ref):
            return self.tokens[0]
        return None

    @property
    def literal(self) -> str | None:
        """The text when the template has no reference (escapes applied)."""
        return "".join(t for t in self.tokens if isinstance(t, str)) if not self.refs else None


def parse_template(text: str) -> Template:
    """Split `text` into literals and references.

    Raises:
        TargetSpecError: an unterminated `${` or a reference outside the grammar.
    """
    tokens: list[str | Ref] = []
    literal: list[str] = []
    position = 0
    while True:
        dollar = text.find("$", position)
        if dollar < 0:
            literal.append(text[position:])
            break
        literal.append(text[position:dollar])
        if text.startswith("$${", dollar):
            literal.append("${")
            position = dollar + 3
        elif text.startswith("${", dollar):
            end = text.find("}", dollar + 2)
            if end < 0:
                raise TargetSpecError("", f"has an unterminated `${{` in {text!r}")
            text_before = "".join(literal)
            if text_before:
                tokens.append(text_before)
            literal = []
            tokens.append(_parse_ref(text[dollar + 2 : end]))
            position = end + 1
        else:
            literal.append("$")
            position = dollar + 1
    rest = "".join(literal)
    if rest:
        tokens.append(rest)
    return Template(source=text, tokens=tuple(tokens))


def _parse_ref(body: str) -> Ref:
    parts = body.split(".")
    if parts[0] == "input" and all(_KEY.fullmatch(p) for p in parts[1:]):
        return Ref("input", tuple(parts[1:]))
    if parts[0] == "env" and len(parts) == 2 and ENV_NAME.fullmatch(parts[1]):
        return Ref("env", (parts[1],))
    raise TargetSpecError("", f"has an unknown reference `${{{body}}}`: {_GRAMMAR}")


EnvLookup = Callable[[str], str]
"""Returns a declared env variable's value (recording it for redaction) or raises."""


@dataclass(frozen=True, slots=True)
class Scope:
    """What references resolve against for one request: the input and the env lookup."""

    input: Any
    env: EnvLookup

    def lookup(self, ref: Ref) -> Any:
        """The referenced value; a present JSON null is returned as None.

        Raises:
            TargetReferenceError: the reference is absent or walks through a non-container.
        """
        if ref.root == "env":
            return self.env(ref.path[0])
        current = self.input
        for depth, key in enumerate(ref.path):
            where = "input" + "".join(f".{k}" for k in ref.path[:depth])
            if isinstance(current, Mapping):
                if key not in current:
                    raise TargetReferenceError(str(ref), f"has no value: `{where}` has no key {key!r}")
                current = current[key]
            elif isinstance(current, Sequence) and not isinstance(current, str):
                if not key.isdigit() or int(key) >= len(current):
                    raise TargetReferenceError(
                        str(ref), f"has no value: `{where}` is a list of {len(current)} with no index {key!r}"
                    )
                current = current[int(key)]
            else:
                raise TargetReferenceError(str(ref), f"cannot be read: `{where}` is {json_kind(current)}")
        return current


def json_kind(value: Any) -> str:
    """A short name of a JSON value's type, for messages that must not show the value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "an object"
    return "an array"


def scalar_text(value: Any, ref: Ref, position: str) -> str:
    """A scalar as the text substituted into a path, query, header or string.

    Raises:
        TargetReferenceError: null, an object, an array or a non-finite number.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return json.dumps(value)
    raise TargetReferenceError(
        str(ref), f"is {json_kind(value)}; only text, numbers and booleans can go into {position}"
    )


def render_text(template: Template, scope: Scope, position: str, encode: Callable[[str], str] | None = None) -> str:
    """The template with every reference replaced by its text (encoded by `encode` when given)."""
    out: list[str] = []
    for token in template.tokens:
        if isinstance(token, str):
            out.append(token)
        else:
            text = scalar_text(scope.lookup(token), token, position)
            out.append(encode(text) if encode else text)
    return "".join(out)


# -- JSON bodies -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BodyTemplate:
    """A JSON body tree whose strings are templates; keys are literal."""

    tree: Any
    """dict / list / Template / JSON scalar, mirroring the author's body."""

    @property
    def refs(self) -> tuple[Ref, ...]:
        """Every reference in the body."""
        found: list[Ref] = []
        _collect(self.tree, found)
        return tuple(found)


def parse_body(value: Any, field: str = "body") -> BodyTemplate:
    """Parse the author's JSON body into a template tree.

    Raises:
        TargetSpecError: a non-JSON value, a reference in a key, or a bad reference.
    """
    return BodyTemplate(_parse_node(value, field))


def _parse_node(value: Any, field: str) -> Any:
    if isinstance(value, str):
        try:
            return parse_template(value)
        except TargetSpecError as exc:
            raise TargetSpecError(field, exc.problem) from None
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TargetSpecError(field, "must be JSON: NaN and infinities are not")
        return value
    if isinstance(value, Mapping):
        tree: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TargetSpecError(field, f"has a non-text key {key!r}; JSON keys are text")
            if "${" in key:
                raise TargetSpecError(f"{field}.{key}", "is a key with a reference; keys are literal")
            tree[key] = _parse_node(item, f"{field}.{key}")
        return tree
    if isinstance(value, (list, tuple)):
        return [_parse_node(item, f"{field}[{index}]") for index, item in enumerate(value)]
    raise TargetSpecError(field, f"must be JSON, got {type(value).__name__}")


def _collect(node: Any, found: list[Ref]) -> None:
    if isinstance(node, Template):
        found.extend(node.refs)
    elif isinstance(node, dict):
        for item in node.values():
            _collect(item, found)
    elif isinstance(node, list):
        for item in node:
            _collect(item, found)


def render_body(body: BodyTemplate, scope: Scope) -> Any:
    """The body as a JSON value: a string that is exactly one reference keeps the value's JSON type."""
    return _render_node(body.tree, scope)


def _render_node(node: Any, scope: Scope) -> Any:
    if isinstance(node, Template):
        ref = node.single_ref
        if ref is not None:
            return scope.lookup(ref)
        return render_text(node, scope, "a string inside the body")
    if isinstance(node, dict):
        return {key: _render_node(item, scope) for key, item in node.items()}
    if isinstance(node, list):
        return [_render_node(item, scope) for item in node]
    return node
