"""`Agent`: a tool-using conversation on any api, over its official SDK client.

```python
agent = Agent(api="anthropic", client=anthropic.Anthropic(), model="claude-sonnet-4-6", tools=[weather])
result = agent.run("Weather in Paris?")          # sync client: run / stream
result = await agent.arun("Weather in Paris?")   # async client: arun / astream
```

A run pauses when calls wait: `approve`/`deny` (unguessable, single-use approval ids),
`resume` (suspended calls; card presses through `agent.toolbox` count too), `supply_output` or
`supply_error` (tools without `execute`, run by a front end); `run()` without a prompt then
continues without asking the model first. `abort=` (or `agent.abort()`) stops a run and leaves the conversation
ready for a new prompt. `switch(api=..., client=..., model=...)` changes provider mid-conversation;
`Agent(..., messages=history)` starts from a saved one; `export_state()` / `import_state()` move it
between processes. Degradations (tools, history, switches) are reported once, on `result().warnings`.
Background tools (`background=...`) run as tasks of `agent.background`; their results come in a
later turn (`until_idle=True`: in the same run).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from toolwire.adapter import Adapter
from toolwire.compat import Degradation
from toolwire.events import Event
from toolwire.exceptions import ArgumentError, ConfigurationError
from toolwire.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    parse_messages,
)
from toolwire.runtime import AbortSignal, BackgroundTasks, ExecutionSettings, RunState, Toolbox
from toolwire.tools import Tool

from ._arguments import (
    Prompt,
    adapter_for,
    checked_options,
    checked_state,
    checked_tools,
    model_name,
    prompt_message,
    starting_history,
)
from ._followups import Followups
from ._loop import StepLoop
from ._pauses import Pauses
from ._state import AgentResult, Conversation, open_turn
from ._stream_view import StreamView
from ._transcript import Transcript


class Agent(StepLoop):
    """Runs a tool-using conversation on any API with its official SDK client.

    Tools get `context.agent` (call id, messages, `thread_id`, `resource_id`, `suspend`) and
    `context.workflow` (`state`, `set_state`, `suspend`): the run state, saved with `export_state`.
    """

    toolbox_class: ClassVar[type[Toolbox]] = Toolbox
    """The toolbox the agent runs calls with (a durable engine may substitute one)."""
    background_class: ClassVar[type[BackgroundTasks]] = BackgroundTasks
    """The runner of background calls (in-process; a durable engine substitutes its own)."""

    def __init__(
        self,
        *,
        api: str | Adapter,
        client: Any,
        model: str,
        tools: Sequence[Tool] = (),
        instructions: str | None = None,
        messages: Sequence[Message | Mapping[str, Any]] | None = None,
        max_steps: int = 10,
        tool_choice: Any = None,
        request_options: Mapping[str, Any] | None = None,
        request_context: Any = None,
        settings: ExecutionSettings | None = None,
        stream: bool = True,
        max_concurrency: int = 8,
        max_background_tasks: int = 4,
        thread_id: str | None = None,
        resource_id: str | None = None,
        state: Mapping[str, Any] | None = None,
    ) -> None:
        """Build the agent; `messages` is a saved conversation to continue (dicts or `Message`s).

        Raises:
            ArgumentError: a value of the wrong kind: `api`, `client` (None, or another SDK's),
                `model`, `tools`, `messages`, `instructions` beside a system message, `request_options`,
                `settings`, `thread_id`, `resource_id`, `state`, `max_steps`, `max_concurrency`,
                `max_background_tasks`.
            AdapterNotFound: an unknown api name.
        """
        self.adapter = adapter_for(api)
        self._client_mode = self.adapter.client_mode(client)
        self.client = client
        self.model = model_name(model)
        self.request_options = checked_options(
            request_options,
            settings,
            {"thread_id": thread_id, "resource_id": resource_id},
            {"max_steps": max_steps, "max_concurrency": max_concurrency},
        )
        self.max_steps = max_steps
        self.tool_choice = tool_choice
        self.stream_responses = stream
        self.run_state = RunState(thread_id=thread_id, resource_id=resource_id, values=checked_state(state))
        """Thread and resource ids and the state tools read and set (`context.workflow`)."""
        self._conversation = Conversation(messages=[], transcript=[], run=self.run_state)
        self._outbox: list[Event] = []
        self._pauses: Pauses
        self.background = self.background_class(max_concurrency=max_background_tasks)
        """Background calls (`.running`, `.cancel(task_id)`); at most `max_background_tasks` run at once."""
        self.toolbox = self.toolbox_class(
            checked_tools(tools),
            max_concurrency=max_concurrency,
            request_context=request_context,
            settings=settings,
            approvals="pause",
            on_event=self._outbox.append,
            on_record=lambda record: self._pauses.on_record(record),
            run=self.run_state,
            background=self.background,
        )
        self.tools = self.toolbox.tools
        self._transcript = Transcript(self._conversation, self.tools)
        self._pauses = Pauses(self._conversation, self.toolbox, self._transcript, self._outbox)
        self._followups = Followups(self._conversation, self._transcript, self.background)
        self._encoded_tools = None
        self._view = StreamView(self.tools)
        self._active = None
        self._aborted = False
        self._replace_history(starting_history(instructions, messages))

    # -- running ---------------------------------------------------------------------------------

    def run(self, prompt: Prompt = None, *, abort: AbortSignal | None = None, until_idle: bool = False) -> AgentResult:
        """Run until the model stops calling tools, calls wait, or the run is aborted (sync client).

        `prompt=None` continues a paused (or loaded) conversation without a new message.
        `until_idle=True` also waits for running background tasks, answering each in a follow-up turn.

        Raises:
            ConfigurationError: an async client (use `arun`), or a run already in progress.
            ArgumentError: a prompt while calls wait, or none and nothing to continue.
        """
        for _ in self.stream(prompt, abort=abort, until_idle=until_idle):
            pass
        return self.result()

    async def arun(
        self, prompt: Prompt = None, *, abort: AbortSignal | None = None, until_idle: bool = False
    ) -> AgentResult:
        """`run` with the SDK's async client; cancelling the task aborts the run.

        Raises:
            ConfigurationError: a sync client (use `run`), or a run already in progress.
            ArgumentError: a prompt while calls wait, or none and nothing to continue.
        """
        async for _ in self.astream(prompt, abort=abort, until_idle=until_idle):
            pass
        return self.result()

    def stream(
        self, prompt: Prompt = None, *, abort: AbortSignal | None = None, until_idle: bool = False
    ) -> Iterator[Event]:
        """Unified events of every step, tool events included (display transforms applied).

        Closing the iterator early aborts the run.

        Raises:
            ConfigurationError: an async client (use `astream`), or a run already in progress.
            ArgumentError: a prompt while calls wait, or none and nothing to continue.
        """
        self.check_mode("stream", asynchronous=False)
        return self._sync_steps(self._prompt(prompt), abort, until_idle)

    def astream(
        self, prompt: Prompt = None, *, abort: AbortSignal | None = None, until_idle: bool = False
    ) -> AsyncIterator[Event]:
        """`stream` with the SDK's async client; cancelling the task or closing the iterator aborts the run.

        Raises:
            ConfigurationError: a sync client (use `stream`), or a run already in progress.
            ArgumentError: a prompt while calls wait, or none and nothing to continue.
        """
        self.check_mode("astream", asynchronous=True)
        return self._async_steps(self._prompt(prompt), abort, until_idle)

    def abort(self, reason: str | None = None) -> bool:
        """Abort the run in progress (from any thread or task); False when none runs."""
        active = self._active
        if active is None:
            return False
        active.signal.abort(reason or "aborted")
        return True

    # -- continuing a paused run ------------------------------------------------------------------

    def approve(self, approval_id: str) -> None:
        """Approve a call the run paused on (once); `run()` then continues.

        Raises:
            ApprovalError: no call waits under this id (forged, stale), or it was already answered.
        """
        self.toolbox.approve(approval_id)

    def deny(self, approval_id: str, reason: str | None = None) -> None:
        """Deny a call the run paused on (once); the model sees an `execution-denied` result.

        Raises:
            ApprovalError: no call waits under this id (forged, stale), or it was already answered.
        """
        self.toolbox.deny(approval_id, reason)

    def resume(self, tool_call_id: str, resume_data: Any) -> None:
        """Give a suspended call its resume data; `run()` then continues it.

        Data failing the tool's `resume_schema` is refused by that run with a `tool-resume-error`
        event naming the problem; the call stays suspended for a corrected `resume`.

        Raises:
            ResumeError: no call is suspended under this id.
        """
        self._pauses.resume(tool_call_id, resume_data)

    def supply_output(self, tool_call_id: str, output: Any) -> None:
        """Give the output of a call to a tool without `execute` (run by the front end); `run()` continues.

        The output is checked like `execute`'s (`output_schema`, `on_output`, `to_model_output`).

        Raises:
            ResumeError: the call does not wait for an output.
        """
        self._pauses.supply_output(tool_call_id, output)

    def supply_error(self, tool_call_id: str, error_text: str) -> None:
        """The front end's tool failed: the model reads `error_text` as the call's error result; `run()` continues.

        What UIs and transcripts show of the text goes through the tool's `error` transforms.

        Raises:
            ArgumentError: `error_text` is not a string.
            ResumeError: the call does not wait for an output.
        """
        self._pauses.supply_error(tool_call_id, error_text)

    # -- provider and history ----------------------------------------------------------------------

    def switch(
        self,
        *,
        api: str | Adapter | None = None,
        client: Any = None,
        model: str | None = None,
        request_options: Mapping[str, Any] | None = None,
    ) -> list[Degradation]:
        """Continue the conversation on another api, client or model; returns what the switch degrades.

        The history is encoded for the new api at once (nothing is sent), so its degradations —
        reasoning, thought signatures or item ids only the old provider understands — come back
        here and on `result().warnings`, once. Changing api needs a `model`; its `request_options`
        start empty unless given.

        Raises:
            ConfigurationError: a run is in progress.
            ArgumentError: a client of another SDK than the api, no model for a new api.
        """
        if self._active is not None:
            raise ConfigurationError("cannot switch provider while a run is in progress")
        adapter = adapter_for(api) if api is not None else self.adapter
        new_api = adapter.api != self.adapter.api
        chosen_client = client if client is not None else self.client
        mode = adapter.client_mode(chosen_client)
        if model is None and new_api:
            raise ArgumentError("model", f"the model to use on api {adapter.api!r} (a new api needs one)", None)
        options = dict(request_options) if request_options is not None else ({} if new_api else self.request_options)
        before = (self.adapter, self.client, self._client_mode, self.model, self.request_options, self._encoded_tools)
        self.adapter, self.client, self._client_mode = adapter, chosen_client, mode
        self.model = model_name(model) if model is not None else self.model
        self.request_options, self._encoded_tools = options, None
        found: list[Degradation] = []
        try:
            self.build_model_request(found)
        except BaseException:
            (self.adapter, self.client, self._client_mode, self.model, self.request_options, self._encoded_tools) = (
                before
            )
            raise
        return found

    @property
    def messages(self) -> list[Message]:
        """The conversation so far (neutral messages); assign a list to replace it."""
        return self._conversation.messages

    @messages.setter
    def messages(self, history: Sequence[Message | Mapping[str, Any]]) -> None:
        self._replace_history(parse_messages(history, "messages"))

    @property
    def transcript(self) -> list[dict[str, Any]]:
        """The conversation as a user may see it: tool payloads through their transcript transforms."""
        return self._conversation.transcript

    @property
    def warnings(self) -> list[Degradation]:
        """Every degradation met so far, each once."""
        return list(self._conversation.warnings)

    def _replace_history(self, history: list[Message]) -> None:
        conversation = self._conversation
        conversation.messages, conversation.transcript = [], []
        for message in history:
            conversation.messages.append(message)
            if not isinstance(message, SystemMessage):  # instructions are not part of what a user sees
                self._transcript.message(message)
        conversation.turn = open_turn(history)
        if conversation.turn is not None:
            conversation.turn.assistant_entry = len(conversation.transcript) - 1

    # -- persistence -------------------------------------------------------------------------------

    def export_state(self) -> dict[str, Any]:
        """JSON state: conversation, transcript, waiting calls, run state, warnings, background tasks."""
        return {
            **self._conversation.to_dict(),
            "api": self.adapter.api,
            "model": self.model,
            "toolbox": self.toolbox.export_state(),
            "background": self.background.export_state(),
        }

    def import_state(self, state: Mapping[str, Any]) -> None:
        """Restore `export_state` output into this agent (same tools; its own client).

        Background tasks that were still running end as `lost` (their process is not this one's).

        Raises:
            ArgumentError: `state` is not a mapping, or a field of it cannot be read (named when it can be).
        """
        if not isinstance(state, Mapping):
            raise ArgumentError("state", "a dict from export_state()", state)
        for field in ("toolbox", "background", "run"):
            if state.get(field) is not None and not isinstance(state[field], Mapping):
                raise ArgumentError(f"state.{field}", "a dict from export_state()", state[field])
        try:
            self._conversation.load(state)
            self.toolbox.import_state(state.get("toolbox") or {})
            self.background.import_state(state.get("background") or {}, self.tools)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, ArgumentError):
                raise
            problem = f"it cannot be read: {type(exc).__name__}: {exc}"
            raise ArgumentError("state", "a dict from export_state()", detail=problem) from exc

    def result(self) -> AgentResult:
        """Where the conversation stands now."""
        conversation = self._conversation
        last = next((m for m in reversed(conversation.messages) if isinstance(m, AssistantMessage)), None)
        text = "".join(p.text for p in last.content if isinstance(p, TextPart)) if last else ""
        approvals, suspended, awaiting = self._pauses.waiting()
        return AgentResult(
            text=text,
            finish_reason=conversation.finish,
            steps=conversation.steps,
            usage=conversation.usage,
            messages=list(conversation.messages),
            paused=conversation.turn is not None,
            pending_approvals=approvals,
            suspended=suspended,
            awaiting_outputs=awaiting,
            aborted=self._aborted,
            warnings=list(conversation.warnings),
            background_tasks=self.background.running,
        )

    def _prompt(self, prompt: Prompt) -> Message | None:
        if self._active is not None:
            raise ConfigurationError("the agent is already running: one run at a time (abort it with agent.abort())")
        return prompt_message(prompt, self._conversation)
