"""`UIChat`: serve an `Agent` to `useChat`, requests in, one streamed assistant message out.

```python
chat = UIChat(lambda: Agent(api="anthropic", client=AsyncAnthropic(), model=..., tools=[...]))

@app.post("/api/chat")
async def endpoint(request: Request) -> Response:
    return await chat.respond(request)
```

Each request builds a fresh agent (the factory may take the `ChatRequest`), loads the
conversation from the posted UI messages and runs it. A run that waits for the user is saved
in the `ChatStore`; the request that answers it (`addToolApprovalResponse`, `addToolOutput`)
continues that run from the answers, without asking the model first, and streams into the
same assistant message. Approval ids sent to the browser are random and used once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from toolwire._extras import optional_imports
from toolwire._hooks import run_sync
from toolwire.agent import Agent

from . import _hidden as hidden
from ._agent import AnswerRefused, RunAgent, build_agent
from ._answers import Answer, ChatRequestError, card_press, match_answers
from ._parts import UIMessageError
from ._shown import dynamic_calls as _dynamic_calls
from ._shown import suspension_parts as _suspension_parts
from ._shown import tool_parts as _tool_parts
from ._tool_chunks import Chunk
from .reading import ChatRequest, DataPartReader, read_chat_request
from .sse import aencode_sse, encode_sse
from .store import ChatStore, MemoryChatStore
from .stream import UIMessageStream, new_message_id

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

RunMode = Literal["auto", "sync", "async"]
AgentFactory = Callable[..., Agent]
"""`() -> Agent` or `(ChatRequest) -> Agent`: a fresh agent for one request."""


class UIChat:
    """A `useChat` endpoint for an agent (see the module docstring)."""

    def __init__(
        self,
        agent: AgentFactory,
        *,
        store: ChatStore | None = None,
        key: Callable[[ChatRequest], str] | None = None,
        allow_system: bool = False,
        data_parts: DataPartReader | None = None,
        on_error: Callable[[BaseException], str] | None = None,
        run_mode: RunMode = "auto",
    ) -> None:
        self.agent_factory = agent
        self.store: ChatStore = store if store is not None else MemoryChatStore()
        self.key = key or (lambda request: request.chat_id)
        """Where a chat's paused run is kept; include the user's identity when chat ids are not secret."""
        self.allow_system = allow_system
        self.data_parts = data_parts
        self.on_error = on_error
        self.run_mode: RunMode = run_mode
        """`"async"`: `Agent.astream`; `"sync"`: `Agent.stream` in a worker thread; `"auto"`: by the SDK client."""

    def prepare(self, body: Any) -> ChatTurn:
        """Read a request body and set up its run (answers applied, except card presses).

        Raises:
            ChatRequestError: an invalid body (400) or answers the saved run refuses (409).
        """
        try:
            # Whether a run still waits is the store's to say (below), not the message metadata's.
            request = read_chat_request(body, allow_system=self.allow_system, data_parts=self.data_parts, paused=())
        except UIMessageError as exc:
            raise ChatRequestError(400, str(exc)) from None
        key = self.key(request)
        run = RunAgent(build_agent(self.agent_factory, request))
        record = self.store.take(key)
        paused = (record or {}).get("paused")
        try:
            if paused is not None and paused.get("messageId") == request.last_assistant_id:
                return self._continue(request, key, run, record or {})
            if paused is not None:
                _refuse_moving_on(request, paused)
            if request.last_assistant_id is not None:  # answers to a run that does not wait (any more)
                raise ChatRequestError(
                    409,
                    f"no run of chat {request.chat_id!r} waits for answers in message "
                    f"{request.last_assistant_id!r} (they were answered already, or the server lost the run)",
                )
            run.load(hidden.restore(request.conversation.messages, (record or {}).get("hidden", {})))
            run.adopt_background((record or {}).get("background"), request.conversation.messages)
        except ChatRequestError:
            if record is not None:
                self.store.save(key, record)  # a refused request leaves the run waiting
            raise
        return ChatTurn(self, request, key, run, message_id=new_message_id(), record=record)

    def _continue(self, request: ChatRequest, key: str, run: RunAgent, record: dict[str, Any]) -> ChatTurn:
        """The request answers the saved run (it continues the message that asked)."""
        paused = record["paused"]
        answers = match_answers(request.conversation, paused)
        run.restore(paused["agent"])
        turn = ChatTurn(self, request, key, run, message_id=str(paused["messageId"]), record=record)
        turn.stream.metadata.carry(paused.get("steps", []))
        turn.answer(answers)
        return turn

    # -- serving -------------------------------------------------------------------------------

    async def respond(self, request: Request) -> Response:
        """The Starlette/FastAPI response to a `useChat` POST: the stream, or a JSON error.

        Raises:
            MissingExtraError: Starlette is not installed (`pip install 'toolwire[ui]'`).
        """
        with optional_imports("UIChat.respond", "ui"):
            from starlette.responses import JSONResponse

            from .asgi import UIMessageStreamResponse

        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the request body is not JSON"}, status_code=400)
        try:
            turn = self.prepare(body)
            await turn.press_cards()
        except ChatRequestError as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        if self.run_mode == "async" or (self.run_mode == "auto" and turn.run.is_async()):
            return UIMessageStreamResponse(aencode_sse(turn.achunks()), on_disconnect=turn.stop)
        return UIMessageStreamResponse(encode_sse(turn.chunks()), on_disconnect=turn.stop)

    async def respond_resume(self, request: Request) -> Response:
        """The answer to `useChat({resume: true})`'s `GET {api}/{chatId}/stream`: 204, no stream to resume.

        A run ends when its client leaves (and a paused run's stream has ended), so no response
        is ever still being produced; 204 tells the client so, and it shows the messages it has.

        Raises:
            MissingExtraError: Starlette is not installed (`pip install 'toolwire[ui]'`).
        """
        del request
        with optional_imports("UIChat.respond_resume", "ui"):
            from starlette.responses import Response

        return Response(status_code=204)

    def sse(self, body: Any) -> Iterator[bytes]:
        """The response body for a request (sync agent client); framework-free.

        Raises:
            ChatRequestError: see `prepare`.
        """
        return encode_sse(self.prepare(body).chunks())

    async def asse(self, body: Any) -> AsyncIterator[bytes]:
        """The response body for a request (async agent client); framework-free.

        Raises:
            ChatRequestError: see `prepare`.
        """
        turn = self.prepare(body)
        await turn.press_cards()
        async for frame in aencode_sse(turn.achunks()):
            yield frame


class ChatTurn:
    """One request's run: the answers it carries, then the stream of its assistant message."""

    def __init__(
        self,
        chat: UIChat,
        request: ChatRequest,
        key: str,
        run: RunAgent,
        *,
        message_id: str,
        record: dict[str, Any] | None = None,
    ) -> None:
        self.chat = chat
        self.request = request
        self.key = key
        self.run = run
        self.record = record
        """The store record this request took (put back if a card refuses its press)."""
        self.hidden: hidden.Hidden = dict((record or {}).get("hidden", {}))
        self._presses: list[Answer] = []
        self._stopped = False
        self.stream = UIMessageStream(
            message_id=message_id,
            tools=run.tools,
            known_calls={call: name for call, (name, _) in _tool_parts(request).items()},
            known_inputs={call: given for call, (_, given) in _tool_parts(request).items()},
            suspensions=_suspension_parts(request),
            client_tools=run.client_tools,
            tool_result=run.tool_result,
            background_result=run.background_result,
            ended_tasks=run.undelivered_tasks(),
            history=list(run.messages),
            dynamic_calls=_dynamic_calls(request),
            on_error=chat.on_error,
            **run.facts(),
        )

    # -- answers -------------------------------------------------------------------------------

    def answer(self, answers: list[Answer]) -> None:
        """Give the run each answer (card presses wait for `press_cards`).

        Raises:
            ChatRequestError: the agent refuses an answer (409).
        """
        try:
            for item in answers:
                part = item.part
                if item.kind == "approval" and item.approval_id is not None:
                    approval = part.approval or {}
                    self.run.approve(item.approval_id, bool(approval.get("approved")), approval.get("reason"))
                elif item.kind == "client" and part.state == "output-error":
                    self.run.client_error(part.tool_call_id, part.error_text or "")
                elif item.kind == "client":
                    self.run.client_output(part.tool_call_id, part.output)
                elif item.kind == "suspended":
                    self.run.resume(part.tool_call_id, part.output)
                elif item.kind == "card":
                    self._presses.append(item)
        except AnswerRefused as exc:
            raise ChatRequestError(409, str(exc)) from None

    async def press_cards(self) -> None:
        """Press the cards the browser answered (each checked by `toolwire.targets.press`).

        Raises:
            ChatRequestError: a press the card refuses (409).
        """
        presses, self._presses = self._presses, []
        for item in presses:
            card_id, button_id = card_press(item.part) or ("", None)
            try:
                await self.run.press(item.part.tool_call_id, button_id, card_id)
            except Exception as exc:  # PressError (toolwire.targets needs httpx2, imported lazily)
                if type(exc).__name__ != "PressError":
                    raise
                if self.record is not None:
                    self.chat.store.save(self.key, self.record)  # the card still waits
                raise ChatRequestError(409, str(exc)) from None

    def stop(self) -> None:
        """The browser went away or pressed stop: abort the run (provider stream closed, tools signalled)."""
        self._stopped = True
        self.run.abort("the browser went away")

    # -- streaming -----------------------------------------------------------------------------

    def chunks(self) -> Iterator[Chunk]:
        """The assistant message's chunks, running the agent with its sync client."""
        yield from self.stream.start()
        if self._presses:
            try:
                run_sync(self.press_cards())
            except ChatRequestError as exc:
                yield from self.stream.fail_with(exc.message)
                yield from self.stream.close()
                return
        events = self.run.events()
        finished = False
        try:
            try:
                for event in events:
                    yield from self._warnings()
                    yield from self.stream.feed(event)
                    if self._stopped:
                        return
                for event in self.run.paused_background():
                    yield from self.stream.feed(event)
                    if self._stopped:
                        return
            except Exception as exc:  # the run failed: a safe error for the browser, the details in the log
                yield from self.stream.fail(exc)
            finally:
                events.close()
            finished = True
            yield from self._warnings()
            yield from self.stream.close(paused=self._save(finished))
        finally:
            if not finished:  # stopped or gone: nothing waits, but what the browser cannot give back is kept
                self._save(finished)

    async def achunks(self) -> AsyncIterator[Chunk]:
        """The assistant message's chunks, running the agent with its async client."""
        for chunk in self.stream.start():
            yield chunk
        await self.press_cards()
        events = self.run.aevents()
        finished = False
        try:
            try:
                async for event in events:
                    for chunk in [*self._warnings(), *self.stream.feed(event)]:
                        yield chunk
                    if self._stopped:
                        return
                async for event in self.run.apaused_background():
                    for chunk in self.stream.feed(event):
                        yield chunk
                    if self._stopped:
                        return
            except Exception as exc:  # the run failed: a safe error for the browser, the details in the log
                for chunk in self.stream.fail(exc):
                    yield chunk
            finally:
                await events.aclose()
            finished = True
            for chunk in [*self._warnings(), *self.stream.close(paused=self._save(finished))]:
                yield chunk
        finally:
            if not finished:  # stopped or gone: nothing waits, but what the browser cannot give back is kept
                self._save(finished)

    def _warnings(self) -> list[Chunk]:
        return [chunk for degradation in self.run.new_warnings() for chunk in self.stream.warn(degradation)]

    def _save(self, finished: bool) -> bool:
        """Keep what the next request needs: the run when it waits for the user (True then), hidden values."""
        hidden.collect(self.run.messages, self.run.tools, self.hidden)
        record: dict[str, Any] = {"hidden": self.hidden} if self.hidden else {}
        state = self.run.paused_state() if finished else None
        left = self.run.leftover_background() if state is None else None
        if left is not None:
            record["background"] = left
        if state is not None:
            record["paused"] = {
                "agent": state,
                "messageId": self.stream.message_id,
                "calls": {call: [kind, approval_id] for call, (kind, approval_id) in self.run.waiting().items()},
                "steps": self.stream.metadata.progress()["steps"],
            }
        if record:
            self.chat.store.save(self.key, record)
        return state is not None


def _refuse_moving_on(request: ChatRequest, paused: Mapping[str, Any]) -> None:
    """A new message while the run waits would drop the calls it waits on: refused, as `Agent` refuses a prompt.

    Raises:
        ChatRequestError: a call the run waits on is left unanswered (400).
    """
    unanswered = [call for call in request.conversation.interrupted if call in paused.get("calls", {})]
    if unanswered:
        raise ChatRequestError(
            400,
            f"tool call {unanswered[0]!r} has no result, and the run still waits for it in message "
            f"{paused.get('messageId')!r}: answer it (or regenerate that message) before sending a new one",
        )
