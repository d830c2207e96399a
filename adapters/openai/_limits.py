"""The size limits of OpenAI strict schemas (`_rules.py`), measured on the schema about to be sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ._rules import RULES


def limit_problems(schema: dict[str, Any]) -> list[str]:
    """Why a strict schema exceeds a documented limit (empty when it fits), each naming its rule."""
    problems: list[str] = []
    properties = enum_values = characters = 0
    for node in _nodes(schema):
        names = node.get("properties")
        if type(names) is dict:
            properties += len(names)
            characters += sum(len(name) for name in names)
        enum = node.get("enum")
        if type(enum) is list:
            enum_values += len(enum)
            text = sum(len(v) if type(v) is str else len(json.dumps(v)) for v in enum)
            characters += text
            large = RULES["strict.large_enum_values"].limit
            if large is not None and len(enum) > large and all(type(v) is str for v in enum):
                _check(problems, "strict.large_enum_string_length", text, f"an enum of {len(enum)} strings")
    definitions = schema.get("$defs")
    if type(definitions) is dict:
        characters += sum(len(name) for name in definitions)
    _check(problems, "strict.max_properties", properties, "the schema")
    _check(problems, "strict.max_enum_values", enum_values, "the schema")
    _check(problems, "strict.max_string_length", characters, "the schema")
    _check(problems, "strict.max_nesting_depth", _Depth(schema).of(schema), "the schema")
    return problems


def _check(problems: list[str], key: str, measured: int, what: str) -> None:
    rule = RULES[key]
    if rule.limit is not None and measured > rule.limit:
        problems.append(f"{what} measures {measured:,} where {rule.cite()}")


def _nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every subschema of a strict schema (definitions once each)."""
    pending = [schema]
    while pending:
        node = pending.pop()
        if type(node) is not dict:
            continue
        yield node
        for key in ("properties", "$defs"):
            children = node.get(key)
            if type(children) is dict:
                pending.extend(children.values())
        items = node.get("items")
        if items is not None:
            pending.append(items)
        branches = node.get("anyOf")
        if type(branches) is list:
            pending.extend(branches)


class _Depth:
    """Object nesting depth with references followed (a recursive one adds nothing more)."""

    def __init__(self, root: dict[str, Any]) -> None:
        definitions = root.get("$defs")
        self.definitions: dict[str, Any] = definitions if type(definitions) is dict else {}
        self.known: dict[str, int] = {}
        self.active: set[str] = set()

    def of(self, node: Any) -> int:
        if type(node) is not dict:
            return 0
        ref = node.get("$ref")
        if type(ref) is str:
            return self._reference(ref)
        children: list[Any] = []
        properties = node.get("properties")
        if type(properties) is dict:
            children.extend(properties.values())
        if "items" in node:
            children.append(node["items"])
        if type(node.get("anyOf")) is list:
            children.extend(node["anyOf"])
        own = 1 if type(properties) is dict or node.get("type") == "object" else 0
        return own + max((self.of(child) for child in children), default=0)

    def _reference(self, ref: str) -> int:
        name = ref.removeprefix("#/$defs/")
        if name == ref or name in self.active or name not in self.definitions:
            return 0
        if name not in self.known:
            self.active.add(name)
            self.known[name] = self.of(self.definitions[name])
            self.active.discard(name)
        return self.known[name]
