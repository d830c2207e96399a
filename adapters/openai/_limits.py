"""The size limits of OpenAI strict schemas (`_rules.py`), measured on the schema about to be sent."""

from __future__ import annotations

import json
from typing import Any, Final

from ._rules import RULES

_LARGE_ENUM: Final = RULES["strict.large_enum_values"].limit or 250


def limit_problems(schema: dict[str, Any]) -> list[str]:
    """Why a strict schema exceeds a documented limit (empty when it fits), each naming its rule."""
    measure = _Measure(schema)
    depth = measure.walk(schema)
    for name, definition in measure.definitions.items():
        if name not in measure.depths:  # unused definitions are sent too: count them
            measure.depths[name] = measure.walk(definition)
    problems = [
        f"an enum of {count} strings measures {text:,} where {RULES[key].cite()}" for key, count, text in measure.enums
    ]
    for key, measured in (
        ("strict.max_properties", measure.properties),
        ("strict.max_enum_values", measure.enum_values),
        ("strict.max_string_length", measure.characters + sum(map(len, measure.definitions))),
        ("strict.max_nesting_depth", depth),
    ):
        rule = RULES[key]
        if rule.limit is not None and measured > rule.limit:
            problems.append(f"the schema measures {measured:,} where {rule.cite()}")
    return problems


class _Measure:
    """One walk: property, enum and character counts (definitions once), object nesting through references."""

    def __init__(self, root: dict[str, Any]) -> None:
        definitions = root.get("$defs")
        self.definitions: dict[str, Any] = definitions if type(definitions) is dict else {}
        self.depths: dict[str, int] = {}
        self.active: set[str] = set()
        self.properties = self.enum_values = self.characters = 0
        self.enums: list[tuple[str, int, int]] = []
        """Large string enums past their length limit: `(rule key, values, characters)`."""

    def walk(self, node: Any) -> int:
        """The object nesting depth of `node` (counting it when it is an object)."""
        if type(node) is not dict:
            return 0
        ref = node.get("$ref")
        if ref is not None:
            return self._reference(ref)
        enum = node.get("enum")
        if type(enum) is list:
            self._enum(enum)
        deepest = 0
        properties = node.get("properties")
        if type(properties) is dict:
            self.properties += len(properties)
            for name, child in properties.items():
                self.characters += len(name)
                deepest = max(deepest, self.walk(child))
        items = node.get("items")
        if items is not None:
            deepest = max(deepest, self.walk(items))
        branches = node.get("anyOf")
        if type(branches) is list:
            for branch in branches:
                deepest = max(deepest, self.walk(branch))
        return deepest + 1 if type(properties) is dict or node.get("type") == "object" else deepest

    def _enum(self, values: list[Any]) -> None:
        self.enum_values += len(values)
        text = sum(len(v) if type(v) is str else len(json.dumps(v)) for v in values)
        self.characters += text
        rule = RULES["strict.large_enum_string_length"]
        large = len(values) > _LARGE_ENUM and all(type(v) is str for v in values)
        if large and rule.limit is not None and text > rule.limit:
            self.enums.append((rule.key, len(values), text))

    def _reference(self, ref: Any) -> int:
        name = ref.removeprefix("#/$defs/") if type(ref) is str else ref
        if name == ref or name in self.active or name not in self.definitions:
            return 0  # `#`, or recursion: adds no level the walk has not counted
        if name not in self.depths:
            self.active.add(name)
            self.depths[name] = self.walk(self.definitions[name])
            self.active.discard(name)
        return self.depths[name]
