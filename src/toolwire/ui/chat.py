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
same assistant message. Approval ids sent to the browser are random and used once. A chat's
requests are taken in turn: one waits (up to `settle_timeout`) for the chat's response before it
to end, so a stopped run's leftovers are saved before the next request reads them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from toolwire._extras import optional_imports
from toolwire.agent import Agent

from . import _hidden as hidden
from ._agent import RunAgent, build_agent
from ._answers import ChatRequestError, match_answers
from ._chat_turn import ChatTurn
from ._parts import UIMessageError
from ._running import RunningResponses
from .reading import ChatRequest, DataPartReader, read_chat_request
from .sse import aencode_sse, encode_sse
from .store import ChatStore, MemoryChatStore
from .stream import new_message_id

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
        settle_timeout: float = 10.0,
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
        self.settle_timeout = settle_timeout
        """Seconds a request waits for its chat's response in progress to end before reading the store."""
        self.responses = RunningResponses()
        """This process's responses in progress, by chat key (a request waits for its chat's)."""

    def prepare(self, body: Any) -> ChatTurn:
        """Read a request body and set up its run (answers applied, except card presses).

        Blocks while the chat's response before it winds down (see `settle_timeout`), except on
        an event loop's thread, where that response could not end: from a coroutine, use
        `aprepare` (or `respond`, `asse`), which waits without blocking the loop.

        Raises:
            ChatRequestError: an invalid body (400) or answers the saved run refuses (409).
        """
        request = self._read(body)
        key = self.key(request)
        if not _on_event_loop():
            self.responses.wait(key, self.settle_timeout)
        return self._set_up(request, key)

    async def aprepare(self, body: Any) -> ChatTurn:
        """`prepare` for a coroutine, card presses included: the wait for the response before it does not block.

        Raises:
            ChatRequestError: see `prepare`.
        """
        request = self._read(body)
        key = self.key(request)
        await self.responses.await_ended(key, self.settle_timeout)
        turn = self._set_up(request, key)
        await turn.press_cards()
        return turn

    def _read(self, body: Any) -> ChatRequest:
        try:
            # Whether a run still waits is the store's to say (below), not the message metadata's.
            return read_chat_request(body, allow_system=self.allow_system, data_parts=self.data_parts, paused=())
        except UIMessageError as exc:
            raise ChatRequestError(400, str(exc)) from None

    def _set_up(self, request: ChatRequest, key: str) -> ChatTurn:
        """The run of a read request, from what the store keeps for its chat."""
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
            turn = await self.aprepare(body)
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
        """The response body for a request (sync agent client); framework-free; call it off the event loop.

        Raises:
            ChatRequestError: see `prepare`.
        """
        return encode_sse(self.prepare(body).chunks())

    async def asse(self, body: Any) -> AsyncIterator[bytes]:
        """The response body for a request (async agent client); framework-free.

        Raises:
            ChatRequestError: see `prepare`.
        """
        turn = await self.aprepare(body)
        async for frame in aencode_sse(turn.achunks()):
            yield frame


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


def _on_event_loop() -> bool:
    """Whether this thread runs an event loop (blocking it would stall the responses on it)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
