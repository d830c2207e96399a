"""Tool results as Gemini `functionResponse` parts, the way google-genai sends them.

One `functionResponse` per result. `response` is `{"output": ...}` for text and JSON,
`{"error": ...}` for errors and denials (the convention the `FunctionResponse.response` docstring
states). A JSON value holding a `$ref` key is sent as JSON text: Gemini resolves `$ref` in
responses against the response parts' display names. Images, PDFs and plain text files go in
`functionResponse.parts` (Gemini 3); other files, and all media when
`function_response_parts=False` (Gemini 2.x), go as sibling parts after the responses, with a
note in the response saying where. The call `id` is echoed unless toolwire made it up
(`gemini-call-...`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolwire.exceptions import ConfigurationError
from toolwire.names import GEMINI_NAMES, wire_name
from toolwire.results import ContentPart, ToolResult, normalize_output, output_text

from ._media import PART_KEY, custom_part, media_object
from ._wire import GENERATED_ID_PREFIX, Note

NESTED_MEDIA = frozenset({"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"})
"""MIME types Gemini 3 takes inside `functionResponse.parts` (ai.google.dev function-calling docs)."""


def function_responses(results: Sequence[ToolResult], note: Note, *, nested_media: bool) -> list[dict[str, Any]]:
    """The parts of one results turn: every `functionResponse`, then any sibling media parts."""
    responses: list[dict[str, Any]] = []
    siblings: list[dict[str, Any]] = []
    for result in results:
        responses.append(_function_response(result, note, nested_media, siblings))
    return responses + siblings


def _function_response(
    result: ToolResult, note: Note, nested_media: bool, siblings: list[dict[str, Any]]
) -> dict[str, Any]:
    where = f"gemini: the result of call {result.tool_call_id!r} (tool {result.tool_name!r})"
    try:
        output = normalize_output(result.output)
    except ValueError as exc:
        raise ConfigurationError(f"{where} is not a model output: {exc}") from None

    def tool_note(feature: str, action: str, tool_id: str | None = None) -> None:
        note(feature, action, tool_id or result.tool_name)

    body: dict[str, Any] = {}
    if result.tool_call_id and not result.tool_call_id.startswith(GENERATED_ID_PREFIX):
        body["id"] = result.tool_call_id
    body["name"] = wire_name(result.tool_name, GEMINI_NAMES)
    kind = output["type"]
    if kind == "text":
        body["response"] = {"output": output["value"]}
    elif kind in ("json", "error-json"):
        body["response"] = {"output" if kind == "json" else "error": _json_value(output["value"], tool_note)}
    elif kind == "error-text":
        body["response"] = {"error": output["value"]}
    elif kind == "execution-denied":
        body["response"] = {"error": output_text(output)}
    else:
        _content(output["value"], body, tool_note, nested_media, siblings, where)
    return {"functionResponse": body}


def _json_value(value: Any, note: Note) -> Any:
    if _has_ref(value):
        note(
            "tool_result.json_ref",
            "a JSON result holding `$ref` keys was sent as JSON text: Gemini resolves `$ref` in function "
            "responses against the response parts",
        )
        return json.dumps(value, ensure_ascii=False)
    return value


def _has_ref(value: Any) -> bool:
    if isinstance(value, dict):
        return "$ref" in value or any(_has_ref(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_ref(v) for v in value)
    return False


def _content(
    parts: list[ContentPart],
    body: dict[str, Any],
    note: Note,
    nested_media: bool,
    siblings: list[dict[str, Any]],
    where: str,
) -> None:
    texts: list[str] = []
    nested: list[dict[str, Any]] = []
    for position, part in enumerate(parts):
        kind = part["type"]
        if kind == "text":
            texts.append(part["text"])
            continue
        if kind == "custom":
            custom = custom_part(part, note, "tool_result.custom")
            if custom is not None:
                nested.append(custom)
            continue
        media = media_object(part, note, "tool_result", f"{where}: content part {position} ({kind})")
        mime = media[1].get("mime_type")
        if nested_media and (mime in NESTED_MEDIA or (mime is None and media[0] == "file_data")):
            nested.append({media[0]: media[1]})
            continue
        siblings.append({PART_KEY[media[0]]: media[1]})
        label = media[1].get("display_name") or mime or "file"
        texts.append(f"[attachment {len(siblings)} ({label}) follows the function responses]")
        if nested_media:
            note(
                "tool_result.media_type",
                f"Gemini takes only {', '.join(sorted(NESTED_MEDIA))} inside functionResponse.parts: "
                f"{mime} was sent as a part after the function responses",
            )
        else:
            note(
                "tool_result.media",
                "function_response_parts=False: images and files were sent as parts after the function responses",
            )
    body["response"] = {"output": "\n".join(texts)} if texts else {}
    if nested:
        body["parts"] = nested
