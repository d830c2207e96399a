"""One request's run in `UIChat`: the answers it carries, then the stream of its assistant message."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from toolwire._hooks import run_sync

from . import _hidden as hidden
from ._agent import AnswerRefused, RunAgent
from ._answers import Answer, ChatRequestError, card_press
from ._shown import dynamic_calls as _dynamic_calls
from ._shown import suspension_parts as _suspension_parts
from ._shown import tool_parts as _tool_parts
from ._tool_chunks import Chunk
from .reading import ChatRequest
from .stream import UIMessageStream

if TYPE_CHECKING:
    from .chat import UIChat


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
        ended = self.chat.responses.begin(self.key)
        try:
            yield from self._chunks()
        finally:
            self.chat.responses.end(self.key, ended)

    async def achunks(self) -> AsyncIterator[Chunk]:
        """The assistant message's chunks, running the agent with its async client."""
        ended = self.chat.responses.begin(self.key)
        chunks = self._achunks()
        try:
            async for chunk in chunks:
                yield chunk
        finally:
            try:
                await chunks.aclose()
            finally:  # even when saving failed: the next request must not wait for nothing
                self.chat.responses.end(self.key, ended)

    def _chunks(self) -> Iterator[Chunk]:
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

    async def _achunks(self) -> AsyncGenerator[Chunk, None]:
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
