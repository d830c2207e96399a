"""Running one scenario on one api: the real SDK client, replayed from its cassette by vcrpy.

The whole public path runs: tools from `create_tool`, the request from `encode_tools` and
`encode_messages`, the SDK call, `normalize`, the runtime executing the tools, results encoded
into the next request. The request bodies must equal the recorded ones (JSON diff otherwise),
the events must equal the expected events, and the scenario's own wire checks must hold.
"""

from __future__ import annotations

import asyncio
import atexit
import inspect
import json
import os
import ssl
import warnings
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from toolwire.adapter import Adapter
from toolwire.agent import Agent
from toolwire.compat import CompatibilityWarning
from toolwire.conformance.cassette import cassette_path, events_path, load_cassette, replay_vcr
from toolwire.conformance.fixtures import ToolLog, scenario_tools
from toolwire.conformance.scenarios import BASE_OPTIONS, DEFAULT_MODELS, Scenario, ScenarioRun
from toolwire.events import Event, StartStep
from toolwire.registry import get_adapter
from toolwire.testing.capture import RequestCapture

Mode = Literal["sync", "async"]
Status = Literal["pass", "degraded", "fail", "n/a"]
STATUS_MARKS: dict[Status, str] = {"pass": "pass", "degraded": "degraded", "fail": "FAIL", "n/a": "n/a"}
"""How a status is shown in the matrix and the progress lines (a failure stands out)."""
FAKE_KEY = "test-key-not-a-secret"
RECORDED_BASE_URLS = {
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "gemini": "https://generativelanguage.googleapis.com/",
}
"""The hosts the bundled cassettes were written for: set explicitly, so the SDKs' own base-URL
variables (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, ...) in the environment cannot redirect a replay."""


@dataclass(slots=True)
class ScenarioOutcome:
    """The verdict of one scenario on one api."""

    api: str
    scenario: str
    status: Status
    reasons: list[str] = field(default_factory=list)
    """Why it failed, why it is degraded, or why it does not apply."""
    modes: list[Mode] = field(default_factory=list)


def applicable(api: str, scenario: Scenario) -> list[str]:
    """Capabilities the scenario needs that the api lacks (empty: it applies)."""
    capabilities = get_adapter(api).capabilities
    return [flag for flag in scenario.requires if not getattr(capabilities, flag)]


def run_scenario(
    api: str, scenario: Scenario, *, modes: tuple[Mode, ...] = ("sync", "async"), root: Path | None = None
) -> ScenarioOutcome:
    """Replay a scenario in each mode and judge it."""
    missing = applicable(api, scenario)
    if missing:
        return ScenarioOutcome(api, scenario.name, "n/a", [f"{api} lacks {', '.join(missing)}"])
    path = cassette_path(api, scenario.name, root)
    if not path.exists():
        return ScenarioOutcome(api, scenario.name, "fail", [f"no cassette at {path}"])
    expected = _expected_events(events_path(api, scenario.name, root))
    reasons: list[str] = []
    degradations: set[str] = set()
    for mode, run in _replays(api, scenario, path, modes):
        if isinstance(run, Exception):  # any failure of the public path is a verdict, not a crash
            reasons.append(f"{mode}: {type(run).__name__}: {run}")
            continue
        degradations.update(run.degradations)
        reasons.extend(f"{mode}: {problem}" for problem in judge(run, scenario, expected))
    if reasons:
        return ScenarioOutcome(api, scenario.name, "fail", reasons, list(modes))
    if degradations:
        return ScenarioOutcome(api, scenario.name, "degraded", sorted(degradations), list(modes))
    return ScenarioOutcome(api, scenario.name, "pass", [], list(modes))


def judge(run: ScenarioRun, scenario: Scenario, expected: list[list[dict[str, Any]]] | None) -> list[str]:
    """Every way the run differs from what it must be."""
    problems: list[str] = []
    if expected is None:
        problems.append("no expected events file")
    elif run.steps != expected:
        problems.append(_event_diff(expected, run.steps))
    if not scenario.expects_errors:
        problems.extend(f"unexpected error event: {e['errorText']}" for e in run.events("error"))
    for check in scenario.checks:
        try:
            check(run)
        except AssertionError as exc:
            problems.append(f"check {check.__name__}: {exc}")
    return problems


def _replays(
    api: str, scenario: Scenario, path: Path, modes: tuple[Mode, ...]
) -> list[tuple[Mode, ScenarioRun | Exception]]:
    """Each mode's run, or what it raised, in one use of the cassette (vcrpy loads and patches once, not per mode)."""
    runs: list[tuple[Mode, ScenarioRun | Exception]] = []
    try:
        with replay_vcr().use_cassette(str(path)) as cassette:
            for mode in modes:
                try:
                    runs.append((mode, _replay_in(cassette, api, scenario, mode)))
                except Exception as exc:
                    runs.append((mode, exc))
    except Exception as exc:  # the cassette would not load: each mode fails on it, as in a use of its own
        return [(mode, exc) for mode in modes]
    return runs


def replay(api: str, scenario: Scenario, path: Path, *, mode: Mode, base_url: str | None = None) -> ScenarioRun:
    """Run the scenario's agent against the cassette (vcrpy, record mode none)."""
    with replay_vcr().use_cassette(str(path)) as cassette:
        return _replay_in(cassette, api, scenario, mode, base_url)


def _replay_in(cassette: Any, api: str, scenario: Scenario, mode: Mode, base_url: str | None = None) -> ScenarioRun:
    """One run against a cassette in use, every recorded interaction to be played afresh."""
    cassette.rewind()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompatibilityWarning)
        log, events, agent = _run_agent(api, scenario, mode, client=replay_client(api, mode, base_url))
        if not cassette.all_played:
            raise AssertionError(f"{len(cassette) - cassette.play_count} recorded interaction(s) never requested")
        requests = [_json(r.body) for r in cassette.requests]
    return ScenarioRun(
        api=api,
        requests=requests,
        steps=split_steps(events),
        log=log,
        text=agent.text,
        finish_reason=agent.finish_reason,
        degradations=sorted({str(w.message) for w in caught if issubclass(w.category, CompatibilityWarning)}),
    )


@dataclass(slots=True)
class _AgentSummary:
    text: str
    finish_reason: str
    messages: list[Any] = field(default_factory=list)


def build_agent(api: str, scenario: Scenario, client: Any, log: ToolLog) -> Agent:
    """The agent a scenario runs, around an SDK client."""
    tools = scenario_tools(log)
    return Agent(
        api=api,
        client=client,
        model=scenario.models.get(api, DEFAULT_MODELS.get(api, "model")),
        tools=[tools[name] for name in scenario.tools],
        tool_choice=scenario.tool_choice,
        max_steps=scenario.max_steps,
        request_options={**BASE_OPTIONS.get(api, {}), **scenario.options.get(api, {})},
        stream=scenario.stream,
    )


_replay_clients: dict[tuple[Adapter, Mode, str | None], Any] = {}


def replay_client(api: str, mode: Mode, base_url: str | None = None) -> Any:
    """The SDK client every replay of an api in a mode shares, sending through an offline transport.

    A client built per scenario loaded TLS certificates every time (google-genai three times), half
    of a run, though a replay never reaches the network. The explicit httpx client also keeps
    google-genai on httpx, where vcrpy replays, when aiohttp is installed.
    """
    adapter = get_adapter(api)
    key = (adapter, mode, base_url)
    client = _replay_clients.get(key)
    if client is None:
        offline = RequestCapture(_unrecorded)
        http_client = offline.async_client() if mode == "async" else offline.client()
        tls = {"ssl_context": untrusting_tls_context()} if _takes_ssl_context(adapter) else {}
        client = adapter.sdk_client(
            api_key=FAKE_KEY,
            asynchronous=mode == "async",
            http_client=http_client,
            base_url=base_url or RECORDED_BASE_URLS.get(api),
            **tls,
        )
        _replay_clients[key] = client
    return client


def _takes_ssl_context(adapter: Adapter) -> bool:
    """Whether the adapter's `sdk_client` has the `ssl_context` keyword (a third-party one may predate it)."""
    parameters = inspect.signature(adapter.sdk_client).parameters.values()
    return any(p.name == "ssl_context" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


@cache
def untrusting_tls_context() -> ssl.SSLContext:
    """A TLS context that trusts no certificate, for the HTTP clients an SDK builds beside the offline one.

    google-genai builds the other mode's client and a websocket context; each loaded the CA store
    (a fifth of a Gemini worker's time). With no CA loaded, nothing it builds can reach a server.
    """
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _unrecorded(request: Any) -> Any:
    """The offline transport's answer when no cassette is active: replays never reach the network."""
    raise AssertionError(f"no cassette is replaying: {request.method} {request.url} was not sent")


def _run_agent(
    api: str,
    scenario: Scenario,
    mode: Mode,
    *,
    client: Any = None,
    http_client: Any = None,
    api_key: str = FAKE_KEY,
    base_url: str | None = None,
) -> tuple[ToolLog, list[Event], _AgentSummary]:
    """Run a scenario's agent around `client`, or around a new SDK client built from the other arguments."""
    log = ToolLog()
    if client is None:
        client = get_adapter(api).sdk_client(
            api_key=api_key,
            asynchronous=mode == "async",
            http_client=http_client,
            base_url=base_url or RECORDED_BASE_URLS.get(api),
        )
    agent = build_agent(api, scenario, client, log)
    if mode == "sync":
        events = list(agent.stream(scenario.prompt))
        result = agent.result()
    else:
        events, result = _event_loop().run(_collect_async(agent, scenario.prompt))
    return log, events, _AgentSummary(result.text, result.finish_reason, result.messages)


_runner: asyncio.Runner | None = None


def _event_loop() -> asyncio.Runner:
    """One event loop for every async replay: the shared async clients stay on the loop they first used."""
    global _runner
    if _runner is None:
        _runner = asyncio.Runner()
        atexit.register(_runner.close)
    return _runner


def _forget_after_fork() -> None:
    """A forked child builds its own event loop and clients: the parent's share its file descriptors."""
    global _runner
    _runner = None
    _replay_clients.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


async def _collect_async(agent: Agent, prompt: str) -> tuple[list[Event], Any]:
    events = [event async for event in agent.astream(prompt)]
    return events, agent.result()


def split_steps(events: list[Event]) -> list[list[dict[str, Any]]]:
    """Events in JSON form, grouped per model call (tool outputs stay with the step that asked)."""
    steps: list[list[dict[str, Any]]] = []
    for event in events:
        if isinstance(event, StartStep) or not steps:
            steps.append([])
        steps[-1].append(json.loads(json.dumps(event.to_dict())))
    return steps


def _expected_events(path: Path) -> list[list[dict[str, Any]]] | None:
    if not path.exists():
        return None
    steps: list[list[dict[str, Any]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        step = record.pop("step")
        while len(steps) <= step:
            steps.append([])
        steps[step].append(record)
    return steps


def write_expected_events(path: Path, steps: list[list[dict[str, Any]]]) -> None:
    """Write steps of events as JSON lines (`{"step": n, ...event}`)."""
    lines = [json.dumps({"step": i, **event}, ensure_ascii=False) for i, step in enumerate(steps) for event in step]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _event_diff(expected: list[list[dict[str, Any]]], actual: list[list[dict[str, Any]]]) -> str:
    import difflib

    left = [json.dumps({"step": i, **e}, ensure_ascii=False) for i, s in enumerate(expected) for e in s]
    right = [json.dumps({"step": i, **e}, ensure_ascii=False) for i, s in enumerate(actual) for e in s]
    diff = "\n".join(difflib.unified_diff(left, right, "expected events", "events now", lineterm="", n=1))
    return f"events differ:\n{diff}"


def _json(body: Any) -> Any:
    raw = body.read() if hasattr(body, "read") else body
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw


def cassette_of(api: str, scenario: str, root: Path | None = None) -> dict[str, Any]:
    """The cassette dict of a scenario (for tools that inspect it)."""
    return load_cassette(cassette_path(api, scenario, root))
