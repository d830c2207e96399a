"""Tool schemas compiled once: canonical JSON Schema (2020-12) plus a validator.

A schema source is a pydantic model, any type pydantic's `TypeAdapter` accepts (dataclass,
TypedDict, `list[int]`, ...), or a JSON Schema dict. Types validate with pydantic (and yield
typed values); dicts validate with `jsonschema` (and yield the JSON value itself).
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, cast, overload

import pydantic
from pydantic.json_schema import GenerateJsonSchema
from typing_extensions import TypeVar

from ._bounded_patterns import pattern_budget
from ._local_refs import dangling_local_ref
from ._null_repair import BranchCheck, NullRepair, needs_null_repair
from ._null_repair import accepts_null as accepts_null
from ._null_repair import resolve_ref as resolve_ref
from .exceptions import SchemaError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

JsonSchema = dict[str, Any]
SchemaKind = Literal["pydantic", "json-schema"]
MAX_ISSUES = 1000
"""Issues collected per failed validation (a 50,000-item array of wrong items stops here)."""
MAX_SHOWN_ISSUES = 10
_MAX_MESSAGE = 300
_TOO_DEEP = "the value is nested too deeply to be validated"
_SHORT_REPR = reprlib.Repr()
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = 60
_SHORT_REPR.maxlist = _SHORT_REPR.maxtuple = _SHORT_REPR.maxdict = _SHORT_REPR.maxset = 4


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    """One reason a value failed validation, located by a JSON path."""

    path: tuple[str | int, ...]
    message: str

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "(root)"
        return f"at `{where}`: {self.message}"


class SchemaValidationError(ValueError):
    """A value does not match a compiled schema; `issues` lists the reasons (at most `MAX_ISSUES`).

    The message shows the first `MAX_SHOWN_ISSUES`, each quoting at most a short prefix of the
    offending value, so a huge or hostile input never makes a huge error.
    """

    def __init__(self, issues: list[SchemaIssue], *, more: bool = False) -> None:
        self.issues = issues
        message = "; ".join(str(i) for i in issues[:MAX_SHOWN_ISSUES])
        hidden = len(issues) - MAX_SHOWN_ISSUES
        if hidden > 0 or more:
            message += f"; and {'at least ' if more else ''}{max(hidden, 0)} more"
        super().__init__(message)


class _NoFieldTitles(GenerateJsonSchema):
    """pydantic's generator without per-field titles: they repeat the name and cost tokens."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


ValueT = TypeVar("ValueT", covariant=True, default=Any)
"""What `validate` returns: the model (or type) a schema was built from, `Any` for a dict schema."""
_T = TypeVar("_T")


@dataclass(frozen=True, eq=False, kw_only=True)
class CompiledSchema(Generic[ValueT]):
    """A schema in canonical JSON Schema form with the validator that enforces it."""

    json_schema: JsonSchema
    """Canonical JSON Schema (2020-12). Shared: treat as read-only."""
    kind: SchemaKind
    """`"pydantic"` when built from a Python type, `"json-schema"` when given as a dict."""
    python_type: Any = None
    """The Python type the schema came from (None for dict schemas)."""
    _type_adapter: pydantic.TypeAdapter[Any] | None = field(default=None, repr=False)
    _validator: Validator | None = field(default=None, repr=False)
    _repair_nulls: bool = field(default=False, repr=False)

    @property
    def is_object(self) -> bool:
        """Whether the root is an object schema (what every provider requires for inputs)."""
        return self.json_schema.get("type") == "object"

    def drop_disallowed_nulls(self, value: Any) -> Any:
        """Turn `null` into "absent" for optional properties that do not accept null.

        Strict modes make every property required and nullable; the model then sends
        `null` for "not given". This restores what the user's schema defined.
        """
        if not self._repair_nulls:
            return value
        try:
            with pattern_budget():
                return NullRepair(self.json_schema, self._branch_check, self._nullable).value(
                    value, [self.json_schema], 0
                )
        except RecursionError:
            return value  # left as it is: validating it then names the depth

    @functools.cached_property
    def _nullable(self) -> dict[int, bool]:
        """Null acceptance of this schema's subschemas, by id (they live and stay unchanged as long as it does)."""
        return {}

    @functools.cached_property
    def _repair_validator(self) -> Validator:
        """A validator of the canonical schema, to settle union ties in null repair (dict schemas reuse theirs)."""
        if self._validator is not None:
            return self._validator
        return cast("Validator", _bounded_validator_class(self.json_schema)(self.json_schema))

    def _branch_check(self) -> BranchCheck:
        validator = self._repair_validator
        return lambda branch, value: validator.evolve(schema=branch).is_valid(value)

    def validate(self, value: Any) -> ValueT:
        """Return the validated value (typed for pydantic schemas), or raise `SchemaValidationError`."""
        if self._type_adapter is not None:
            try:
                return cast(ValueT, self._type_adapter.validate_python(value))
            except pydantic.ValidationError as exc:
                raise SchemaValidationError(
                    [SchemaIssue(tuple(e["loc"]), _pydantic_message(e)) for e in exc.errors()[:MAX_ISSUES]],
                    more=exc.error_count() > MAX_ISSUES,
                ) from None
        assert self._validator is not None
        try:
            with pattern_budget():
                found = list(itertools.islice(self._validator.iter_errors(value), MAX_ISSUES + 1))
        except RecursionError:  # a recursive schema (`$ref`) follows the value down, frame by frame
            raise SchemaValidationError([SchemaIssue((), _TOO_DEEP)]) from None
        except Exception as exc:  # jsonschema's wrapped `referencing.Unresolvable`: a remote or `$id`-relative $ref
            if not _is_unresolvable(exc):
                raise
            raise SchemaValidationError([SchemaIssue((), f"the schema's $ref cannot be resolved: {exc}")]) from None
        errors = sorted(found[:MAX_ISSUES], key=lambda e: list(e.absolute_path))
        if errors:
            issues = [SchemaIssue(tuple(e.absolute_path), _jsonschema_message(e)) for e in errors]
            raise SchemaValidationError(issues, more=len(found) > MAX_ISSUES)
        return cast(ValueT, value)

    def to_json(self, value: Any) -> Any:
        """The JSON form of a value this schema validated (models and dataclasses dumped)."""
        if self._type_adapter is not None:
            return self._type_adapter.dump_python(value, mode="json")
        return value


def _is_unresolvable(exc: Exception) -> bool:
    from referencing.exceptions import Unresolvable  # jsonschema's own dependency, loaded with it

    return isinstance(exc, Unresolvable)


def _jsonschema_message(error: Any) -> str:
    """jsonschema's message, with the `repr` of a long offending value shortened (it quotes it whole)."""
    message = str(error.message)
    if len(message) <= _MAX_MESSAGE:
        return message
    whole = repr(error.instance)
    if whole in message:
        message = message.replace(whole, _SHORT_REPR.repr(error.instance), 1)
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"


def _pydantic_message(error: Any) -> str:
    message = str(error["msg"])
    if error.get("type") not in ("missing",) and "input" in error:
        received = json.dumps(error["input"], default=str)
        if len(received) > 80:
            received = received[:77] + "..."
        message = f"{message} (got {received})"
    return message


@overload
def compile_schema(
    source: CompiledSchema[_T], *, mode: Literal["validation", "serialization"] = "validation"
) -> CompiledSchema[_T]: ...
@overload
def compile_schema(
    source: type[_T], *, mode: Literal["validation", "serialization"] = "validation"
) -> CompiledSchema[_T]: ...
@overload
def compile_schema(source: Any, *, mode: Literal["validation", "serialization"] = "validation") -> CompiledSchema: ...
def compile_schema(source: Any, *, mode: Literal["validation", "serialization"] = "validation") -> CompiledSchema:
    """Compile a pydantic model, an adaptable type or a JSON Schema dict.

    Typed: a model or type `T` gives a `CompiledSchema[T]` (`validate` returns a `T`); a dict
    schema, or a type form that is not a class (`int | None`, `Annotated[...]`), a `CompiledSchema[Any]`.

    Raises:
        SchemaError: the source is neither a valid JSON Schema nor a type pydantic can adapt.
    """
    if isinstance(source, CompiledSchema):
        return source
    if isinstance(source, Mapping):
        return _compile_dict(source)
    try:
        return _compile_type_once(source, mode)
    except TypeError:  # an unhashable type form (Annotated with unhashable metadata): compiled each time
        return _compile_type(source, mode)


@functools.lru_cache(maxsize=512)
def _compile_type_once(source: Any, mode: Literal["validation", "serialization"]) -> CompiledSchema:
    """Compiled once per type: tools built per request (closures over its context) reuse it."""
    return _compile_type(source, mode)


def _compile_type(source: Any, mode: Literal["validation", "serialization"]) -> CompiledSchema:
    try:
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(source)
        generated = adapter.json_schema(mode=mode, schema_generator=_NoFieldTitles)
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticUserError, TypeError, RecursionError) as exc:
        raise SchemaError(f"cannot build a JSON Schema from {source!r}: {exc}") from exc
    canonical = _inline_root_ref(generated)
    return CompiledSchema(
        json_schema=canonical,
        kind="pydantic",
        python_type=source,
        _type_adapter=adapter,
        _repair_nulls=needs_null_repair(canonical),
    )


MAX_SCHEMA_DEPTH = 100
"""Levels of objects and arrays a JSON Schema dict may nest: checking a schema recurses about eight
frames per level, so some 120 levels exhaust Python's stack."""


def _compile_dict(source: Mapping[str, Any]) -> CompiledSchema:
    depth = nesting_depth(source, MAX_SCHEMA_DEPTH)
    if depth > MAX_SCHEMA_DEPTH:
        raise SchemaError(
            f"JSON Schema nests objects and arrays more than {MAX_SCHEMA_DEPTH} levels deep, past what its "
            "validator can check; flatten it, or describe a recursive shape with `$defs` and `$ref`"
        )
    try:
        text = json.dumps(source)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"JSON Schema is not JSON-serializable: {exc}") from exc
    try:
        return _compile_json_text(text)
    except RecursionError:  # within the limit, but called from deep in the caller's own stack
        raise SchemaError(
            "JSON Schema is nested too deeply to be checked this deep in the call stack; flatten it"
        ) from None


def nesting_depth(value: Any, limit: int) -> int:
    """How deep dicts and lists nest in `value` (counted without recursion; stops once past `limit`)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Mapping):
            children: Any = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


@functools.lru_cache(maxsize=1024)
def _compile_json_text(text: str) -> CompiledSchema:
    """Compiled once per distinct schema: checking a schema costs about a millisecond."""
    import jsonschema  # ~40 ms to import: paid by the first dict schema, not by `import toolwire`

    canonical = cast(JsonSchema, json.loads(text))
    validator_class = cast(Any, jsonschema.validators.validator_for(canonical, default=jsonschema.Draft202012Validator))
    try:
        validator_class.check_schema(canonical)
    except jsonschema.SchemaError as exc:
        raise SchemaError(f"invalid JSON Schema: {exc.message}") from exc
    dangling = dangling_local_ref(canonical)
    if dangling is not None:
        raise SchemaError(f"JSON Schema $ref {dangling[0]!r} at {dangling[1]} points to nothing in the schema")
    canonical = _inline_root_ref(canonical)
    return CompiledSchema(
        json_schema=canonical,
        kind="json-schema",
        _validator=cast("Validator", _bounded_validator_class(canonical)(canonical)),
        _repair_nulls=needs_null_repair(canonical),
    )


def _bounded_validator_class(schema: JsonSchema) -> Any:
    """The validator of the schema's draft, its pattern keywords bounded in time (`_bounded_patterns`)."""
    import jsonschema

    return _with_bounded_patterns(jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator))


@functools.cache
def _with_bounded_patterns(validator_class: Any) -> Any:
    import jsonschema

    from ._bounded_patterns import KEYWORDS

    extend: Any = jsonschema.validators.extend  # untyped in jsonschema
    return extend(validator_class, KEYWORDS)


def _inline_root_ref(schema: JsonSchema) -> JsonSchema:
    """Replace a root `{"$ref": "#/$defs/X", "$defs": ...}` by X itself (providers want a root object)."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or set(schema) - {"$ref", "$defs", "$schema", "$id", "description", "title"}:
        return schema
    target = resolve_ref(schema, ref)
    if target is None:
        return schema
    inlined = copy.deepcopy(target)
    defs = dict(schema.get("$defs", {}))
    name = ref.rsplit("/", 1)[-1]
    others = {k: v for k, v in defs.items() if k != name}
    if not _refers_to([inlined, others], ref):
        defs = others  # nothing points at it any more (mutual recursion keeps it)
    if defs:
        inlined["$defs"] = defs
    for key in ("$schema", "$id", "description"):
        if key in schema and key not in inlined:
            inlined[key] = schema[key]
    return inlined


def _refers_to(node: Any, ref: str) -> bool:
    if isinstance(node, dict):
        return node.get("$ref") == ref or any(_refers_to(v, ref) for v in node.values())
    if isinstance(node, list):
        return any(_refers_to(v, ref) for v in node)
    return False


def json_type_of(value: Any) -> str:
    """JSON type name of a Python value, for messages."""
    match value:
        case None:
            return "null"
        case bool():
            return "boolean"
        case int() | float():
            return "number"
        case str():
            return "string"
        case list():
            return "array"
        case dict():
            return "object"
        case _:
            return type(value).__name__


def deep_copy_json(value: Any) -> Any:
    """A fast deep copy of a JSON value (dicts, lists and scalars only)."""
    if isinstance(value, dict):
        return {k: deep_copy_json(v) for k, v in cast(dict[str, Any], value).items()}
    if isinstance(value, list):
        return [deep_copy_json(v) for v in value]
    return value
