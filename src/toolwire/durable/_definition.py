"""`DurableAgent`: an agent definition every worker process knows by name, and the runs started from it.

DBOS recovers a workflow by calling its function again in whichever process picks it up, so the
agent (tools, client, model) is defined in code, under a name, in every process before
`DBOS.launch()`; a run's workflow input holds only that name, the prompt and JSON state.
"""

from __future__ import annotations

import re
import secrets
import threading
import uuid
from collections.abc import Mapping
from typing import Any

from dbos import DBOS, DBOSClient, EnqueueOptions, SetWorkflowID

from toolwire.agent import AgentResult, Prompt
from toolwire.exceptions import ArgumentError, ConfigurationError
from toolwire.messages import Message, message_to_dict, parse_messages, user
from toolwire.tools import Tool

from ._agent import WorkflowAgent
from ._cards import fix_press_clocks
from ._run import RUN_WORKFLOW, DurableRun

RUNS_QUEUE = "toolwire_runs"
"""The queue a run started from a `DBOSClient` waits on until a worker takes it."""

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
_DEFINITIONS: dict[str, DurableAgent] = {}
_LOCK = threading.Lock()


def definition_named(name: str) -> DurableAgent:
    """The agent defined under `name` in this process.

    Raises:
        ConfigurationError: none is (every worker must define its agents before `DBOS.launch()`).
    """
    with _LOCK:
        found = _DEFINITIONS.get(name)
    if found is None:
        known = ", ".join(sorted(_DEFINITIONS)) or "none"
        raise ConfigurationError(
            f"no durable agent named {name!r} is defined in this process (defined: {known}); "
            "define it (DurableAgent(name, ...)) before DBOS.launch() in every worker"
        )
    return found


class DurableAgent:
    """An agent whose runs are DBOS workflows: they survive restarts and continue in any worker.

    ```python
    support = DurableAgent("support", api="anthropic", client=anthropic.Anthropic(), model="...", tools=[...])
    DBOS(config=dbos_config("my-app"))      # SQLite by default; a Postgres URL to scale out
    DBOS.launch()
    run = support.start("Weather in Paris?")
    for item in run.events():               # live; item.offset lets a client resume where it was
        ...
    ```

    The keyword arguments are those of `Agent`. `max_background_tasks` is the concurrency of the
    agent's background queue across all workers (`background_worker_concurrency` caps one
    worker); a tool with its own `max_concurrency` gets a queue of its own with that limit.
    `poll_interval` bounds how late a run notices a background task started by an earlier run;
    `pause_timeout` is how long one wait for answers lasts before it is renewed.
    """

    def __init__(
        self,
        name: str,
        *,
        background_worker_concurrency: int | None = None,
        poll_interval: float = 10.0,
        pause_timeout: float = 24 * 3600.0,
        **agent_options: Any,
    ) -> None:
        """Define the agent and register it under `name` in this process.

        Raises:
            ArgumentError: a bad name or interval, or an `Agent` option of the wrong kind.
            ConfigurationError: another agent is already defined under this name.
        """
        if not isinstance(name, str) or not _NAME.match(name):
            raise ArgumentError("name", "1-100 letters, digits, '_', '.' or '-'", name)
        for argument, value in (("poll_interval", poll_interval), ("pause_timeout", pause_timeout)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ArgumentError(argument, "a positive number of seconds", value)
        self.name = name
        self.poll_interval = float(poll_interval)
        self.pause_timeout = float(pause_timeout)
        self.background_worker_concurrency = background_worker_concurrency
        self.agent_options = dict(agent_options)
        probe = WorkflowAgent(**self.agent_options)  # refuses bad options now, not in a worker later
        self.tools: dict[str, Tool] = dict(probe.tools)
        fix_press_clocks(self.tools)
        self.max_background_tasks = probe.background.max_concurrency
        self.model_facts = {"model": probe.model, "api": probe.adapter.api, "provider": probe.adapter.provider}
        """The model, API and provider of its runs (what a UI message's metadata names)."""
        self._queues: set[str] = set()
        with _LOCK:
            if name in _DEFINITIONS:
                raise ConfigurationError(f"a durable agent named {name!r} is already defined in this process")
            _DEFINITIONS[name] = self

    def forget(self) -> None:
        """Remove the definition from this process (tests, or a reloaded module)."""
        with _LOCK:
            if _DEFINITIONS.get(self.name) is self:
                del _DEFINITIONS[self.name]

    # -- runs --------------------------------------------------------------------------------------

    def start(
        self,
        prompt: Prompt = None,
        *,
        state: Mapping[str, Any] | None = None,
        after: DurableRun | str | None = None,
        run_id: str | None = None,
        until_idle: bool = False,
        dbos_client: DBOSClient | None = None,
    ) -> DurableRun:
        """Start a run: from `state` (an `export_state()` dict), or where the run `after` ended, or anew.

        In a process where DBOS is launched the run starts at once (in this process); with a
        `dbos_client` it is enqueued for a worker. A `run_id` already used attaches to that run.

        Raises:
            ArgumentError: both `state` and `after`, or a prompt that is not a message.
            ConfigurationError: the run `after` has not finished (it is paused, or failed).
        """
        if state is not None and after is not None:
            raise ArgumentError("after", "None when `state` is given", after)
        if after is not None:
            previous = after if isinstance(after, DurableRun) else self.attach(after, dbos_client=dbos_client)
            state = previous.final_state()
        start = {
            "prompt": _prompt(prompt),
            "state": dict(state) if state is not None else None,
            "untilIdle": bool(until_idle),
            "secret": secrets.token_urlsafe(32),
        }
        run_id = run_id or f"run-{uuid.uuid4().hex}"
        if dbos_client is not None:
            dbos_client.register_queue(RUNS_QUEUE, on_conflict="never_update")
            options: EnqueueOptions = {"queue_name": RUNS_QUEUE, "workflow_name": RUN_WORKFLOW, "workflow_id": run_id}
            dbos_client.enqueue(options, self.name, start)
        else:
            from ._workflow import agent_run  # the workflows register with DBOS on import

            with SetWorkflowID(run_id):
                DBOS.start_workflow(agent_run, self.name, start)
        return DurableRun(self, run_id, dbos_client=dbos_client)

    def attach(self, run_id: str, *, dbos_client: DBOSClient | None = None) -> DurableRun:
        """A handle on a run started earlier (by this process or any other)."""
        return DurableRun(self, run_id, dbos_client=dbos_client)

    # -- for the workflows -------------------------------------------------------------------------

    def workflow_agent(self) -> WorkflowAgent:
        """A fresh agent for one run's workflow."""
        return WorkflowAgent(**self.agent_options)

    def result_of(self, state: Mapping[str, Any]) -> AgentResult:
        """Where a run's conversation stands, from its state."""
        agent = self.workflow_agent()
        agent.import_state(state)
        return agent.result()

    async def queue_for(self, tool: Tool) -> str:
        """The queue of a tool's background tasks (registered on first use in this process)."""
        limit = tool.background.max_concurrency if tool.background is not None else None
        name = f"toolwire_bg_{self.name}" + (f"_{tool.id}" if limit is not None else "")
        if name not in self._queues:
            await DBOS.register_queue_async(
                name,
                global_concurrency=limit or self.max_background_tasks,
                worker_concurrency=self.background_worker_concurrency,
                on_conflict="always_update",
            )
            self._queues.add(name)
        return name


def _prompt(prompt: Prompt) -> dict[str, Any] | None:
    if prompt is None:
        return None
    if isinstance(prompt, str):
        message: Message = user(prompt)
    else:
        message = parse_messages([prompt], "prompt")[0]
    return message_to_dict(message)
