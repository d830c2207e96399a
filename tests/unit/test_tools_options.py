"""Specification of `create_tool` options: MCP annotations, transforms, background, provider options and hooks."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from toolwire import ToolDefinitionError, create_tool
from toolwire._callbacks import Callback
from toolwire.tools import (
    HOOK_ARGUMENTS,
    BackgroundConfig,
    McpProperties,
    PhaseTransforms,
    ToolAnnotations,
    ToolTransform,
)


def _tool(**overrides: Any) -> Any:
    return create_tool(id="weather", description="Get the weather.", **overrides)


def _error(**overrides: Any) -> ToolDefinitionError:
    with pytest.raises(ToolDefinitionError) as caught:
        _tool(**overrides)
    return caught.value


class _Declares:
    """A callable whose signature declares exactly the given keyword names."""

    def __init__(self, names: list[str]) -> None:
        parameters = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY) for name in names]
        self.__signature__ = inspect.Signature(parameters)

    def __call__(self, **kwargs: Any) -> None:
        return None


class TestMcp:
    def test_camel_case_annotations_and_meta_are_read_as_in_the_seed(self) -> None:
        """The seed's `mcp` block (camelCase hints, `_meta`) becomes typed properties."""
        tool = _tool(
            mcp={
                "annotations": {
                    "title": "Weather Lookup",
                    "readOnlyHint": True,
                    "destructiveHint": False,
                    "idempotentHint": True,
                    "openWorldHint": True,
                },
                "_meta": {"version": "1.0.0", "category": "weather"},
            }
        )
        assert tool.mcp == McpProperties(
            annotations=ToolAnnotations(
                title="Weather Lookup",
                read_only_hint=True,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=True,
            ),
            meta={"version": "1.0.0", "category": "weather"},
        )
        assert tool.title == "Weather Lookup"

    def test_snake_case_annotations_and_meta_are_accepted_too(self) -> None:
        """Python spellings of the same hints give the same properties."""
        tool = _tool(mcp={"annotations": {"read_only_hint": True, "open_world_hint": False}, "meta": {"k": 1}})
        assert tool.mcp == McpProperties(
            annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False), meta={"k": 1}
        )

    def test_annotations_go_back_on_the_wire_in_camel_case_without_unset_hints(self) -> None:
        """MCP clients read camelCase and apply spec defaults to hints left out."""
        annotations = ToolAnnotations(title="T", destructive_hint=False)
        assert annotations.to_mcp() == {"title": "T", "destructiveHint": False}

    def test_a_tool_without_mcp_properties_has_no_title(self) -> None:
        """`title` comes only from the MCP annotations."""
        assert _tool().title is None
        assert _tool(mcp={"_meta": {"a": 1}}).title is None

    @pytest.mark.parametrize(
        ("mcp", "field", "problem"),
        [
            ("annotations", "mcp", 'must be {"annotations": {...}, "_meta": {...}}'),
            ({"annotation": {}}, "mcp", 'must be {"annotations": {...}, "_meta": {...}}'),
            ({"annotations": ["title"]}, "mcp.annotations", "must be a dict"),
            ({"annotations": {"readOnlyHint": "yes"}}, "mcp.annotations.readOnlyHint", "must be a bool"),
            ({"annotations": {"title": 3}}, "mcp.annotations.title", "must be a str"),
            ({"_meta": "v1"}, "mcp._meta", "must be a dict"),
        ],
    )
    def test_malformed_mcp_properties_name_the_field(self, mcp: Any, field: str, problem: str) -> None:
        """Each malformed MCP property names its exact path."""
        error = _error(mcp=mcp)
        assert (error.tool_id, error.field, error.problem) == ("weather", field, problem)

    def test_an_unknown_annotation_lists_the_known_ones(self) -> None:
        """A typo in a hint name is refused and the error lists the MCP spellings."""
        error = _error(mcp={"annotations": {"readonlyHint": True}})
        assert error.field == "mcp.annotations.readonlyHint"
        assert error.problem == (
            "is not an MCP annotation; known: "
            "['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']"
        )


class TestTransforms:
    def test_display_and_transcript_phases_become_keyword_callbacks(self) -> None:
        """The seed's transform block: each phase function receives only the names it declares."""
        tool = _tool(
            transform={
                "display": {"output": lambda output: {"displayName": output["displayName"]}},
                "transcript": {"error": lambda: {"message": "Customer lookup failed"}},
            }
        )
        assert isinstance(tool.transform, ToolTransform)
        output = tool.transform.display.get("output")
        error = tool.transform.transcript.get("error")
        assert output is not None
        assert error is not None
        assert output(output={"displayName": "Acme", "apiKey": "secret"}, tool_name="weather") == {
            "displayName": "Acme"
        }
        assert error(error=RuntimeError("x"), tool_name="weather") == {"message": "Customer lookup failed"}
        assert tool.transform.display.get("input") is None

    def test_the_camel_case_input_delta_phase_is_an_alias(self) -> None:
        """`inputDelta` (the seed's spelling) is stored as the `input_delta` phase."""
        tool = _tool(transform={"display": {"inputDelta": lambda input_text_delta: input_text_delta.upper()}})
        phase = tool.transform.display.get("input_delta")
        assert phase is not None
        assert phase(input_text_delta="ab", tool_name="weather") == "AB"

    def test_every_phase_can_be_set(self) -> None:
        """input, input_delta, output, error, approval, suspend and resume are all phases."""
        phases = ("input", "input_delta", "output", "error", "approval", "suspend", "resume")
        tool = _tool(transform={"display": dict.fromkeys(phases, lambda **kwargs: None)})
        assert all(tool.transform.display.get(phase) is not None for phase in phases)
        assert tool.transform.transcript == PhaseTransforms()

    def test_a_tool_transform_object_is_kept_as_given(self) -> None:
        """A prebuilt ToolTransform passes through unchanged."""
        transform = ToolTransform()
        assert _tool(transform=transform).transform is transform

    @pytest.mark.parametrize(
        ("transform", "field", "problem"),
        [
            (["display"], "transform", 'must be {"display": {...}, "transcript": {...}}'),
            ({"ui": {}}, "transform", 'must be {"display": {...}, "transcript": {...}}'),
            ({"display": "redact"}, "transform.display", "must map phases to functions"),
            ({"display": {"output": "redact"}}, "transform.display.output", "must be a function, got str"),
        ],
    )
    def test_malformed_transforms_name_the_field(self, transform: Any, field: str, problem: str) -> None:
        """Each malformed transform names the target and phase."""
        error = _error(transform=transform)
        assert (error.field, error.problem) == (field, problem)

    def test_an_unknown_phase_lists_the_phases(self) -> None:
        """A phase typo is refused with the list of phases."""
        error = _error(transform={"transcript": {"outputs": lambda output: output}})
        assert error.field == "transform.transcript.outputs"
        assert error.problem == (
            "is not a phase; phases: ['input', 'input_delta', 'output', 'error', 'approval', 'suspend', 'resume']"
        )

    def test_a_transform_asking_for_an_argument_it_never_gets_is_refused(self) -> None:
        """Transform functions are checked against the names the runtime passes."""
        error = _error(transform={"display": {"output": lambda result: result}})
        assert error.field == "transform.display.output"
        assert error.problem.startswith("asks for 'result', which is never passed; it may declare any of [")


class TestBackgroundAndProviderOptions:
    @pytest.mark.parametrize(("spec", "expected"), [(None, None), (False, None), (True, BackgroundConfig())])
    def test_background_flags(self, spec: Any, expected: BackgroundConfig | None) -> None:
        """`background=True` enables it with defaults; False or None leaves it off."""
        assert _tool(background=spec).background == expected

    def test_background_settings_keep_unknown_options_for_the_host(self) -> None:
        """`enabled` and `timeout` are read; everything else is kept in `options`."""
        tool = _tool(background={"enabled": False, "timeout": 30, "queue": "slow"})
        assert tool.background == BackgroundConfig(enabled=False, timeout=30, options={"queue": "slow"})

    def test_a_background_config_object_is_kept_as_given(self) -> None:
        """A prebuilt BackgroundConfig passes through unchanged."""
        config = BackgroundConfig(timeout=1.5)
        assert _tool(background=config).background is config

    def test_provider_options_are_copied_per_provider(self) -> None:
        """Options are kept per provider key and detached from the caller's dicts."""
        options = {"anthropic": {"cache_control": {"type": "ephemeral"}}}
        tool = _tool(provider_options=options)
        options["anthropic"]["extra"] = {"x": "y"}
        assert tool.provider_options == {"anthropic": {"cache_control": {"type": "ephemeral"}}}


class TestHooks:
    def test_hooks_are_wrapped_with_the_names_they_declare(self) -> None:
        """A hook gets only the keywords it asks for, out of everything offered."""
        tool = _tool(on_input_start=lambda tool_call_id: f"started {tool_call_id}")
        hook = tool.on_input_start
        assert hook == Callback(hook.fn, frozenset({"tool_call_id"}))
        assert hook(tool_call_id="c1", tool_name="weather", messages=[], abort_signal=None) == "started c1"

    def test_a_hook_taking_kwargs_receives_everything_offered(self) -> None:
        """`**kwargs` opts in to every name."""
        tool = _tool(on_output=lambda **kwargs: sorted(kwargs))
        assert tool.on_output is not None
        assert tool.on_output.accepts is None
        assert tool.on_output(output=1, tool_call_id="c", tool_name="weather", abort_signal=None) == [
            "abort_signal",
            "output",
            "tool_call_id",
            "tool_name",
        ]

    @pytest.mark.parametrize("hook", sorted(HOOK_ARGUMENTS))
    def test_every_offered_name_is_accepted_by_its_hook(self, hook: str) -> None:
        """A hook may declare any of the names its phase offers."""
        names = sorted(HOOK_ARGUMENTS[hook])
        tool = _tool(**{hook: _Declares(names)})
        assert getattr(tool, hook).accepts == frozenset(names)

    def test_on_output_does_not_offer_messages_as_in_the_seed(self) -> None:
        """The seed's onOutput omits `messages`, so asking for it is a definition error."""
        error = _error(on_output=lambda output, messages: None)
        assert error.field == "on_output"
        assert error.problem == (
            "asks for 'messages', which is never passed; "
            "it may declare any of ['abort_signal', 'output', 'tool_call_id', 'tool_name']"
        )

    def test_an_unknown_name_with_a_default_is_allowed(self) -> None:
        """A parameter the runtime never passes is fine when it has a default."""
        tool = _tool(on_input_available=lambda input, verbose=False: verbose)
        assert tool.on_input_available is not None
        assert tool.on_input_available.accepts == frozenset({"input"})

    @pytest.mark.parametrize(
        "function",
        [lambda tool_call_id, /: None, lambda *args: None],
        ids=["positional-only", "var-positional"],
    )
    def test_a_hook_with_positional_parameters_is_refused(self, function: Any) -> None:
        """Hooks are called with keywords only, so positional parameters could never be filled."""
        error = _error(on_input_delta=function)
        assert error.field == "on_input_delta"
        assert error.problem.startswith("must take keyword arguments (any of ['abort_signal', 'input_text_delta'")

    def test_a_non_callable_hook_is_refused(self) -> None:
        """A hook must be a function."""
        assert _error(on_input_start="log").problem == "must be a function, got str"


class TestToolValue:
    def test_a_tool_is_immutable(self) -> None:
        """A Tool is frozen, so a definition shared between requests cannot drift."""
        tool = _tool()
        with pytest.raises(dataclasses.FrozenInstanceError):
            tool.description = "changed"

    def test_metadata_is_copied_and_defaults_are_empty(self) -> None:
        """Metadata belongs to the application and is detached from the caller's dict."""
        metadata = {"owner": "team-a"}
        tool = _tool(metadata=metadata)
        metadata["owner"] = "team-b"
        assert tool.metadata == {"owner": "team-a"}
        assert (_tool().metadata, _tool().provider_options, _tool().input_examples) == ({}, {}, ())

    def test_require_approval_and_strict_default_off_and_unset(self) -> None:
        """Approval is opt-in and strictness is left to the provider unless set."""
        tool = _tool()
        assert (tool.require_approval, tool.strict) == (False, None)
        assert (_tool(require_approval=True, strict=False).require_approval, _tool(strict=False).strict) == (
            True,
            False,
        )
