"""Gemini `GenerateContentResponse` frames (response JSON or google-genai objects) mapped to deltas.

SDK objects are read in place on the per-delta path and otherwise through `_sdk` (JSON shape).
Keys are `(candidate index, part number)`. Text and thought parts streamed over several
chunks are one part until a part of another kind arrives, or until a `thoughtSignature`
closes it (the signature travels on that part's end event, for the history round trip).

Calls:
- a complete `functionCall` (Gemini API) is one `ToolCallComplete` with its `args` object;
  calls without an `id` (models before Gemini 3) get `gemini-call-<responseId>-<n>`, counted
  over the response, so streaming and non-streaming give the same ids;
- Vertex streamed arguments: a `functionCall` with a `name` and `willContinue` opens the call,
  `partialArgs` become JSON text deltas (`JsonPathWriter`), and the first `functionCall`
  whose `willContinue` is falsy ends it. A call still open when the candidate finishes with
  STOP between two values is ended too; otherwise the core reports the incomplete input;
- `executableCode` / `codeExecutionResult` and server-side `toolCall` / `toolResponse` parts
  are provider-executed calls and their outputs.

Finish reasons and usage are mapped in `_finish`; enums sent as protobuf numbers are named
by `_enums`. An error body (`{"error": {"code", "message", "status"}}`) is an `error` event.
"""

from __future__ import annotations

import base64
from typing import Any, Final

from toolwire.deltas import (
    Delta,
    MessageStarted,
    PartFinished,
    ReasoningPiece,
    StreamFailed,
    TextPiece,
    ToolArgsPiece,
    ToolCallComplete,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutput,
)
from toolwire.exceptions import MalformedFrameError

from .._frames import NOT_OBJECTS, Skipped, error_text, int_of, items_of, maybe_text, object_of, wrong
from ._enums import FINISH_REASON, VERTEX_FINISH_REASON, enum_name
from ._finish import blocked, code_input, code_output, finished, usage_report
from ._grounding import grounding_sources, inline_file
from ._sdk import camel_frame, key_style, part_json, response_frame
from ._streamed_args import CandidateState, Streamed, continue_dict_call, continue_sdk_call, write_partial_args
from ._wire import CODE_EXECUTION, GENERATED_ID_PREFIX

API = "gemini"
_TEXT: Final = 1
_REASONING: Final = 2


class GeminiDecoder:
    """Decoding state for one `generateContent` / `streamGenerateContent` response."""

    def __init__(self) -> None:
        self._started = False
        self._response_id: str | None = None
        self._calls = 0
        self._primary: int | None = None
        self._candidates: dict[int, CandidateState] = {}
        self._snake: bool | None = None
        self._vertex = False
        """The response has `createTime`: enums sent as numbers use Vertex AI's numbering."""
        self._streaming: CandidateState | None = None
        """The only candidate, while it has a streamed call open (the per-delta path)."""

    def feed(self, frame: Any) -> list[Delta]:
        """Deltas for one response chunk (or a whole non-streamed response)."""
        streaming = self._streaming
        if type(frame) is dict:
            if self._snake is not False:
                if self._snake is None:
                    self._snake = key_style(frame)
                if self._snake:
                    frame = camel_frame(frame)
            fast = None if streaming is None else continue_dict_call(frame, streaming)
        else:
            fast = None if streaming is None else continue_sdk_call(frame, streaming)
            if fast is None:
                frame = response_frame(frame)
        if fast is not None:
            return fast
        out: list[Delta] = []
        if type(frame) is not dict:
            out.append(StreamFailed(f"unexpected Gemini frame (not a GenerateContentResponse): {frame!r:.120}"))
            return out
        if self._response_id is None:
            self._response_id = maybe_text(frame, "responseId", "responseId")
        if "createTime" in frame:
            self._vertex = True
        if not self._started:
            self._started = True
            version = maybe_text(frame, "modelVersion", "modelVersion")
            metadata = {"google": {"modelVersion": version}} if version else None
            out.append(MessageStarted(self._response_id, metadata))
        candidates = items_of(frame, "candidates", "candidates")
        if candidates:
            self._candidates_of(candidates, out)
        else:
            self._without_candidates(frame, out)
        usage = object_of(frame, "usageMetadata", "usageMetadata")
        if usage is not None:
            out.extend(usage_report(usage))
        return out

    def close(self) -> list[Delta]:
        """Nothing is owed: calls still open are reported incomplete by the core."""
        return []

    # -- candidates and parts ----------------------------------------------------------------

    def _candidates_of(self, candidates: Any, out: list[Delta]) -> None:
        skipped = Skipped("candidates")
        for position, candidate in enumerate(candidates):
            try:
                self._candidate(candidate, position, out)
            except MalformedFrameError as exc:
                skipped.add(position, exc)
        skipped.report(API, out)

    def _candidate(self, candidate: Any, position: int, out: list[Delta]) -> None:
        if type(candidate) is not dict:
            raise wrong("", "an object", candidate)
        index = int_of(candidate, "index", "index", position)
        state = self._candidates.get(index)
        if state is None:
            state = self._candidates[index] = CandidateState(index)
            self._streaming = None
            if self._primary is None:
                self._primary = index
        content = object_of(candidate, "content", "content")
        if content is not None:
            for position_in_content, part in enumerate(items_of(content, "parts", "content.parts")):
                if isinstance(part, NOT_OBJECTS) or part is None:
                    raise wrong(f"content.parts[{position_in_content}]", "an object", part)
                self._part(state, part, out)
        grounding = candidate.get("groundingMetadata")
        if grounding is not None:
            out.extend(grounding_sources(grounding))
        reason = candidate.get("finishReason")
        if reason is not None:
            names = VERTEX_FINISH_REASON if self._vertex else FINISH_REASON
            self._finish(state, enum_name(reason, names, "finishReason", "FINISH_REASON"), candidate, out)

    def _part(self, state: CandidateState, part: Any, out: list[Delta]) -> None:
        if type(part) is not dict:
            self._sdk_part(state, part, out)
            return
        signature = maybe_text(part, "thoughtSignature", "thoughtSignature")
        text = part.get("text")
        if text is not None:
            if type(text) is not str:
                raise wrong("text", "a string", text)
            self._text(state, text, part.get("thought"), signature, out)
            return
        call = object_of(part, "functionCall", "functionCall")
        if call is not None:
            self._function_call(state, call, signature, out)
            return
        code = object_of(part, "executableCode", "executableCode")
        if code is not None:
            self._executable_code(state, code, part, out)
            return
        result = object_of(part, "codeExecutionResult", "codeExecutionResult")
        if result is not None:
            self._code_result(state, result, part, out)
            return
        server_call = object_of(part, "toolCall", "toolCall")
        if server_call is not None:
            self._server_call(state, server_call, part, out)
            return
        server_result = object_of(part, "toolResponse", "toolResponse")
        if server_result is not None:
            self._server_result(state, server_result, out)
            return
        file = inline_file(part, signature)
        if file is not None:
            self._close_part(state, out)
            out.append(file)
            return
        if signature is not None:
            self._text(state, "", None, signature, out)

    def _sdk_part(self, state: CandidateState, part: Any, out: list[Delta]) -> None:
        """A google-genai `Part`: calls and text read in place (the per-chunk path), the rest as JSON."""
        raw = part.thought_signature
        signature = None if raw is None else base64.b64encode(raw).decode("ascii")
        call = part.function_call
        if call is not None:
            self._function_call(state, call, signature, out)
            return
        text = part.text
        if text is not None:
            self._text(state, text, part.thought, signature, out)
            return
        self._part(state, part_json(part, signature), out)

    def _text(self, state: CandidateState, text: str, thought: Any, signature: str | None, out: list[Delta]) -> None:
        if not text:
            if signature is None:
                return
            metadata = _signature(signature)
            if state.open_key is not None:
                out.append(PartFinished(state.open_key, metadata))
                state.open_key = None
                state.open_kind = 0
                return
            lone = state.next_key()
            out.append(ReasoningPiece(lone, "", metadata))
            out.append(PartFinished(lone))
            return
        kind = _REASONING if thought else _TEXT
        open_key = state.open_key
        if open_key is not None and state.open_kind == kind:
            key = open_key
        else:
            if open_key is not None:
                out.append(PartFinished(open_key))
            key = state.next_key()
            state.open_key = key
            state.open_kind = kind
        out.append(TextPiece(key, text) if kind == _TEXT else ReasoningPiece(key, text))
        if signature is not None:
            out.append(PartFinished(key, _signature(signature)))
            state.open_key = None
            state.open_kind = 0

    def _close_part(self, state: CandidateState, out: list[Delta]) -> None:
        if state.open_key is not None:
            out.append(PartFinished(state.open_key))
            state.open_key = None
            state.open_kind = 0

    # -- function calls --------------------------------------------------------------------

    def _function_call(self, state: CandidateState, call: Any, signature: str | None, out: list[Delta]) -> None:
        if type(call) is dict:
            name = maybe_text(call, "name", "functionCall.name")
            partial = items_of(call, "partialArgs", "functionCall.partialArgs") or None
            more = call.get("willContinue")
        else:
            name, partial, more = call.name, call.partial_args, call.will_continue
        streamed = state.call
        if name is not None:
            self._close_part(state, out)
            if streamed is not None:
                self._end_call(state, out)
            metadata = _signature(signature) if signature is not None else None
            is_dict = type(call) is dict
            call_id = (maybe_text(call, "id", "functionCall.id") if is_dict else call.id) or self._new_id()
            if not more and partial is None:
                args = call.get("args") if is_dict else call.args
                if args is not None and type(args) is not dict and isinstance(args, NOT_OBJECTS):
                    raise wrong("functionCall.args", "an object", args)
            key = state.next_key()
            if not more and partial is None:
                out.append(
                    ToolCallComplete(
                        key,
                        call_id,
                        name,
                        input={} if args is None else args,
                        has_input=True,
                        provider_metadata=metadata,
                    )
                )
                return
            streamed = state.call = Streamed(key, None)
            if len(self._candidates) == 1:
                self._streaming = state
            out.append(ToolCallStarted(key, call_id, name, provider_metadata=metadata))
        elif streamed is None:
            if partial:
                out.append(StreamFailed("Gemini sent partialArgs without a function call to add them to"))
            return
        elif signature is not None:
            streamed.metadata = _signature(signature)
        if partial:
            write_partial_args(streamed, partial, out)
        if not more:
            self._end_call(state, out)

    def _end_call(self, state: CandidateState, out: list[Delta]) -> None:
        streamed = state.call
        assert streamed is not None
        state.call = None
        self._streaming = None
        text, rebuild = streamed.writer.close()
        if text:
            out.append(ToolArgsPiece(streamed.key, text))
        out.append(ToolCallFinished(streamed.key, provider_metadata=streamed.metadata, rebuild=rebuild))

    def _new_id(self) -> str:
        self._calls += 1
        if self._response_id:
            return f"{GENERATED_ID_PREFIX}{self._response_id}-{self._calls}"
        return f"{GENERATED_ID_PREFIX}{self._calls}"

    # -- provider-executed calls --------------------------------------------------------------

    def _executable_code(self, state: CandidateState, code: Any, part: Any, out: list[Delta]) -> None:
        call_id = maybe_text(code, "id", "executableCode.id") or self._new_id()
        arguments = code_input(code)
        state.last_code_id = call_id
        self._executed(state, call_id, CODE_EXECUTION, arguments, part, out)

    def _executed(
        self, state: CandidateState, call_id: str, name: str, arguments: Any, part: Any, out: list[Delta]
    ) -> None:
        """A call Gemini runs itself: complete at once, never run by toolwire."""
        self._close_part(state, out)
        signature = maybe_text(part, "thoughtSignature", "thoughtSignature")
        metadata = _signature(signature) if signature is not None else None
        out.append(
            ToolCallComplete(
                state.next_key(),
                call_id,
                name,
                input=arguments,
                has_input=True,
                provider_executed=True,
                provider_metadata=metadata,
            )
        )

    def _code_result(self, state: CandidateState, result: Any, part: Any, out: list[Delta]) -> None:
        signature = maybe_text(part, "thoughtSignature", "thoughtSignature")
        call_id = maybe_text(result, "id", "codeExecutionResult.id") or state.last_code_id or self._new_id()
        output = code_output(call_id, result, signature)
        self._close_part(state, out)
        out.append(output)

    def _server_call(self, state: CandidateState, call: Any, part: Any, out: list[Delta]) -> None:
        call_id = maybe_text(call, "id", "toolCall.id") or self._new_id()
        tool_type = call.get("toolType")
        name = str(tool_type).lower() if type(tool_type) in (str, int) else "server_tool"
        args = call.get("args")
        if args is not None and isinstance(args, NOT_OBJECTS):
            raise wrong("toolCall.args", "an object", args)
        state.last_tool_id = call_id
        self._executed(state, call_id, name, {} if args is None else args, part, out)

    def _server_result(self, state: CandidateState, result: Any, out: list[Delta]) -> None:
        call_id = maybe_text(result, "id", "toolResponse.id") or state.last_tool_id or self._new_id()
        self._close_part(state, out)
        response = result.get("response")
        out.append(ToolOutput(call_id, {} if response is None else response))

    # -- end of a candidate, blocked prompts, error frames -------------------------------------------

    def _finish(self, state: CandidateState, raw: str, candidate: Any, out: list[Delta]) -> None:
        self._close_part(state, out)
        if state.call is not None and raw == "STOP" and state.call.writer.clean:
            self._end_call(state, out)
        if state.index != self._primary:
            return
        out.extend(finished(raw, maybe_text(candidate, "finishMessage", "finishMessage")))

    def _without_candidates(self, frame: Any, out: list[Delta]) -> None:
        error = frame.get("error") if type(frame) is dict else None
        if error is not None:
            out.append(StreamFailed(error_text(API, error)))
            return
        feedback = object_of(frame, "promptFeedback", "promptFeedback")
        if feedback is not None:
            out.extend(blocked(feedback, vertex=self._vertex))


def _signature(value: Any) -> dict[str, Any]:
    return {"google": {"thoughtSignature": str(value)}}
