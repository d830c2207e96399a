"""The degradations table of the documentation, produced by running the adapters on probes.

Each probe asks every adapter for one feature (a strict schema, an image in a tool result, a
conversation that changes provider...). Whatever the adapter reports — or that it reported
nothing — is what the table says, so the page cannot drift from the code:
`tests/docs/test_reference_pages.py` checks that `docs/reference/degradations.md` holds exactly
this output (`TOOLWIRE_UPDATE_EXAMPLES=1` rewrites it).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolwire import (
    AssistantMessage,
    CompatibilityWarning,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    ToolResult,
    content,
    create_tool,
    custom,
    file_data,
    file_url,
    get_adapter,
    image_data,
    image_file_id,
    text_part,
)
from toolwire.adapter import Adapter
from toolwire.messages import MediaPart, user

APIS = ("openai-chat", "openai-responses", "anthropic", "gemini")
PNG = bytes.fromhex("89504e470d0a1a0a")


@dataclass(frozen=True)
class Probe:
    """One feature asked of every adapter."""

    title: str
    asked: str
    run: Callable[[Adapter], Any]
    note: str = ""
    """Shown under the table: what "taken as asked" means where an API carries the feature its own way."""
    about_calls: bool = False
    """The probe is about replaying calls (thought signatures are reported only here)."""


def _tool(**options: Any) -> Any:
    schema = options.pop("input_schema", {"type": "object", "properties": {"city": {"type": "string"}}})
    return create_tool(id="get_weather", description="Get the weather.", input_schema=schema, **options)


def _encode(**options: Any) -> Callable[[Adapter], Any]:
    return lambda adapter: adapter.encode_tools([_tool(**options)])


def _choice(choice: Any, tools: int = 2) -> Callable[[Adapter], Any]:
    pair = [_tool(), create_tool(id="get_time", description="Get the time.", input_schema={"type": "object"})]
    return lambda adapter: adapter.encode_tools(pair[:tools], choice)


def _result(*parts: Any) -> Callable[[Adapter], Any]:
    history = [
        user("Weather?"),
        AssistantMessage(content=(ToolCall(tool_call_id="c1", tool_name="get_weather", input={"city": "Paris"}),)),
        ToolMessage(content=(ToolResult(tool_call_id="c1", tool_name="get_weather", output=content(*parts)),)),
    ]
    return lambda adapter: _history(adapter, history)


def _history(adapter: Adapter, history: list[Any]) -> Any:
    options = {"model": "gemini-3-flash-preview"} if adapter.api == "gemini" else {}
    return adapter.encode_messages(history, **options)


def _assistant(*parts: Any, metadata: Any = None) -> Callable[[Adapter], Any]:
    history = [user("Weather?"), AssistantMessage(content=parts, provider_metadata=metadata)]
    return lambda adapter: _history(adapter, history)


PROBES: tuple[Probe, ...] = (
    Probe("Strict schemas", "`strict=True` on a schema every strict mode can express", _encode(strict=True)),
    Probe(
        "Strict with an open-ended object",
        '`strict=True` on `{"type": "object", "additionalProperties": {"type": "string"}}`',
        _encode(strict=True, input_schema={"type": "object", "additionalProperties": {"type": "string"}}),
    ),
    Probe(
        "Strict with constraints",
        "`strict=True` on a string with `minLength` and `pattern`",
        _encode(
            strict=True,
            input_schema={
                "type": "object",
                "properties": {"code": {"type": "string", "minLength": 3, "pattern": "^[A-Z]+$"}},
                "required": ["code"],
            },
        ),
    ),
    Probe(
        "Input examples",
        '`input_examples=[{"input": {"city": "Paris"}}]`',
        _encode(input_examples=[{"input": {"city": "Paris"}}]),
    ),
    Probe("Output schema", '`output_schema={"type": "object"}`', _encode(output_schema={"type": "object"})),
    Probe(
        "A top-level `anyOf`",
        "an input schema whose root is `anyOf` of two objects",
        _encode(
            input_schema={
                "type": "object",
                "anyOf": [
                    {"properties": {"city": {"type": "string"}}, "required": ["city"]},
                    {"properties": {"zip": {"type": "string"}}, "required": ["zip"]},
                ],
            }
        ),
    ),
    Probe(
        "JSON Schema keywords",
        'a property with `const` and one with `format: "uri"`',
        _encode(
            input_schema={
                "type": "object",
                "properties": {"kind": {"const": "city"}, "source": {"type": "string", "format": "uri"}},
            }
        ),
    ),
    Probe(
        "A free-form tool",
        '`input_schema={"type": "string"}`: the tool takes free text',
        _encode(input_schema={"type": "string"}),
        note="OpenAI takes it as a custom tool; `execute` receives the text on every API.",
    ),
    Probe("Allowed tools", '`tool_choice={"allowed": ["get_weather"]}`', _choice({"allowed": ["get_weather"]})),
    Probe(
        "No parallel calls",
        '`tool_choice={"mode": "auto", "parallel": false}`',
        _choice({"mode": "auto", "parallel": False}),
    ),
    Probe(
        "Validated calls",
        '`tool_choice={"mode": "required", "validated": true}`',
        _choice({"mode": "required", "validated": True}),
    ),
    Probe("A tool choice without tools", '`tool_choice="required"` with no tools', _choice("required", tools=0)),
    Probe(
        "An image in a tool result",
        '`content(text_part(...), image_data(png, "image/png"))`',
        _result(text_part("Chart:"), image_data(PNG, "image/png")),
        note="Chat Completions takes only text in a tool message: the image goes in one user message after "
        "the tool messages, with a placeholder in the tool message. That is how Chat carries it, so it is "
        "not reported.",
    ),
    Probe(
        "An unusual image type",
        '`image_data(..., "image/bmp")` in a tool result',
        _result(image_data(PNG, "image/bmp")),
    ),
    Probe(
        "A PDF in a tool result",
        '`file_data(pdf, "application/pdf")`',
        _result(file_data(b"%PDF-1.4", "application/pdf", "a.pdf")),
    ),
    Probe("Audio in a tool result", '`file_data(wav, "audio/wav")`', _result(file_data(b"RIFF", "audio/wav"))),
    Probe(
        "A file by URL",
        '`file_url("https://example.com/a.pdf")`',
        _result(file_url("https://example.com/a.pdf", "application/pdf")),
    ),
    Probe("An image by file id", '`image_file_id("file-abc")`', _result(image_file_id("file-abc"))),
    Probe(
        "A custom part",
        '`custom({"openai": {...}})` in a tool result',
        _result(custom({"openai": {"type": "input_text", "text": "x"}})),
    ),
    Probe(
        "Reasoning from Anthropic",
        "history with an Anthropic thinking block (signed)",
        _assistant(
            ReasoningPart(text="Let me think.", provider_metadata={"anthropic": {"signature": "sig"}}),
            TextPart(text="Hi."),
        ),
    ),
    Probe(
        "A file the model returned",
        "history with an image the model generated (a `file` event kept by `assistant_message`)",
        _assistant(TextPart(text="Here it is."), MediaPart(part=image_data(PNG, "image/png"))),
    ),
    Probe(
        "Calls another provider made",
        "history with a call made on Anthropic (no Gemini thought signature)",
        _result(text_part("18 degrees")),
        about_calls=True,
    ),
    Probe(
        "Unparsed call input",
        "history with a call whose arguments never parsed (`input` is the raw text)",
        lambda adapter: _history(
            adapter,
            [
                user("Weather?"),
                AssistantMessage(
                    content=(ToolCall(tool_call_id="c1", tool_name="get_weather", input='{"city": "Par'),)
                ),
                ToolMessage(
                    content=(ToolResult(tool_call_id="c1", tool_name="get_weather", output=content("bad input")),)
                ),
            ],
        ),
    ),
    Probe(
        "A system message mid-conversation",
        "a system message after the first user message",
        lambda adapter: _history(adapter, [user("Hi"), SystemMessage(content="Be brief."), user("Weather?")]),
    ),
)


def observe(probe: Probe, api: str) -> list[str]:
    """What the adapter reported for the probe: `feature: action` lines (empty: taken natively)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompatibilityWarning)
        try:
            probe.run(get_adapter(api))
        except Exception as exc:  # a refusal is also an answer, and belongs in the table
            return [f"refused: {type(exc).__name__}: {exc}"]
    found = [w.message.degradation for w in caught if isinstance(w.message, CompatibilityWarning)]
    shown = [d for d in found if probe.about_calls or d.feature != "thought_signature"]
    return list(dict.fromkeys(f"`{d.feature}`: {d.action}" for d in shown))


def _cell(lines: list[str]) -> str:
    text = "<br>".join(lines) if lines else "taken as asked"
    return text.replace("|", "\\|").replace("\n", " ")


def render() -> str:
    """The generated part of `docs/reference/degradations.md`."""
    out: list[str] = []
    for probe in PROBES:
        out += [f"### {probe.title}", "", f"Asked: {probe.asked}.", "", "| API | what happens |", "| --- | --- |"]
        out += [f"| `{api}` | {_cell(observe(probe, api))} |" for api in APIS]
        out += ["", probe.note, ""] if probe.note else [""]
    return "\n".join(out)
