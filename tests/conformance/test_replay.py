"""Replays share one SDK client per api and mode, never reach the network, and run with or without aiohttp."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
import vcr.cassette

from toolwire.conformance import runner
from toolwire.conformance.cassette import cassette_path
from toolwire.conformance.runner import applicable, replay_client, run_scenario, untrusting_tls_context
from toolwire.conformance.scenarios import SCENARIOS, scenario
from toolwire.registry import get_adapter

APIS = ("openai-chat", "openai-responses", "anthropic", "gemini")

GEMINI_SUITE = textwrap.dedent(
    """
    import json, logging, sys
    if {hide_aiohttp}:
        sys.modules["aiohttp"] = None  # an environment without aiohttp: importing it fails
    from google.genai import _api_client
    from toolwire.conformance.runner import run_scenario
    from toolwire.conformance.scenarios import SCENARIOS
    logging.getLogger("google_genai.models").setLevel(logging.ERROR)
    outcomes = [run_scenario("gemini", item) for item in SCENARIOS]
    print(json.dumps({{
        "aiohttp": _api_client.has_aiohttp,
        "failed": {{o.scenario: o.reasons for o in outcomes if o.status == "fail"}},
        "ran": sum(o.status != "n/a" for o in outcomes),
    }}))
    """
)


class TestSharedClients:
    @pytest.mark.parametrize("api", APIS)
    @pytest.mark.parametrize("mode", ["sync", "async"])
    def test_every_replay_of_an_api_and_mode_gets_the_same_client(self, api: str, mode: str) -> None:
        """Clients (and their TLS set-up) are built once per process, not once per scenario."""
        assert replay_client(api, mode) is replay_client(api, mode)  # type: ignore[arg-type]

    def test_sync_and_async_replays_get_different_clients(self) -> None:
        """An async replay needs the SDK's async client."""
        assert replay_client("anthropic", "sync") is not replay_client("anthropic", "async")

    def test_a_replay_client_outside_a_cassette_sends_nothing(self) -> None:
        """Without an active cassette the offline transport refuses: a replay never reaches the network."""
        client = replay_client("anthropic", "sync")
        with pytest.raises(anthropic.APIConnectionError) as raised:
            client.messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "hi"}])
        refusal = "no cassette is replaying: POST https://api.anthropic.com/v1/messages was not sent"
        assert str(raised.value.__cause__) == refusal


class TestGeminiWithAndWithoutAiohttp:
    """google-genai sends async requests through aiohttp whenever it is importable, unless given an httpx client.

    The dev extra installs aiohttp, so the main run (tests/conformance/test_gemini.py) covers an
    environment with it; these run the whole Gemini suite in fresh interpreters, with aiohttp
    and with aiohttp made unimportable, so both environments are tested whatever was imported before.
    """

    @pytest.mark.parametrize("hide_aiohttp", [False, True], ids=["with-aiohttp", "without-aiohttp"])
    def test_every_gemini_scenario_passes(self, hide_aiohttp: bool) -> None:
        script = GEMINI_SUITE.format(hide_aiohttp=hide_aiohttp)
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout.splitlines()[-1])
        assert report["aiohttp"] is not hide_aiohttp, "aiohttp must be installed (the dev extra has it)"
        assert report["failed"] == {}
        assert report["ran"] == sum(not applicable("gemini", item) for item in SCENARIOS)


@pytest.fixture
def certificate_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way an SDK loads a CA store, recorded (nothing loads one while the list is read)."""
    loads: list[str] = []

    def recorder(name: str, original: Any) -> Any:
        def record(*args: Any, **kwargs: Any) -> Any:
            loads.append(name)
            return original(*args, **kwargs)

        return record

    monkeypatch.setattr(ssl, "create_default_context", recorder("create_default_context", ssl.create_default_context))
    monkeypatch.setattr(httpx2, "create_ssl_context", recorder("httpx2.create_ssl_context", httpx2.create_ssl_context))
    for method in ("load_verify_locations", "load_default_certs"):
        monkeypatch.setattr(ssl.SSLContext, method, recorder(method, getattr(ssl.SSLContext, method)))
    monkeypatch.setattr(runner, "_replay_clients", {})  # built anew under the recorder
    return loads


class TestNoCertificates:
    @pytest.mark.parametrize("api", APIS)
    def test_replay_clients_load_no_ca_store(self, api: str, certificate_loads: list[str]) -> None:
        """google-genai built three TLS contexts per client beside the offline transport: now none is loaded."""
        replay_client(api, "sync")
        replay_client(api, "async")
        assert certificate_loads == []

    def test_an_adapter_whose_sdk_client_has_no_ssl_context_still_replays(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A third-party adapter written before the keyword gets the same offline client, without it."""
        received: list[dict[str, Any]] = []

        class OlderAdapter:
            def sdk_client(
                self, *, api_key: str, asynchronous: bool = False, http_client: Any = None, base_url: Any = None
            ) -> str:
                received.append({"api_key": api_key, "asynchronous": asynchronous, "base_url": base_url})
                return "client"

        monkeypatch.setattr(runner, "get_adapter", lambda api: OlderAdapter())
        monkeypatch.setattr(runner, "_replay_clients", {})
        assert replay_client("older", "async", "https://example.com") == "client"
        assert received == [
            {"api_key": "test-key-not-a-secret", "asynchronous": True, "base_url": "https://example.com"}
        ]

    def test_the_replay_context_trusts_no_certificate(self) -> None:
        """Whatever an SDK builds beside the offline transport cannot complete a TLS handshake with any server."""
        context = untrusting_tls_context()
        assert context.verify_mode == ssl.CERT_REQUIRED
        assert context.check_hostname is True
        assert context.cert_store_stats() == {"x509": 0, "crl": 0, "x509_ca": 0}

    @pytest.mark.parametrize("api", APIS)
    @pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
    def test_an_sdk_client_without_http_client_builds_its_own_with_the_given_context(
        self, api: str, asynchronous: bool, certificate_loads: list[str]
    ) -> None:
        """`ssl_context` reaches the HTTP client the SDK builds itself: no CA store is loaded."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        client = get_adapter(api).sdk_client(api_key="k", asynchronous=asynchronous, ssl_context=context)
        assert client is not None
        assert certificate_loads == []


PARALLEL_MATRIX = textwrap.dedent(
    """
    import json, sys
    from toolwire.conformance.matrix import run_matrix
    from toolwire.conformance.scenarios import SCENARIOS
    chosen = [item for item in SCENARIOS if item.name in ("single_call", "reasoning_call", "error_result")]
    apis = ["openai-chat", "anthropic", "openai-responses"]
    calls = []
    class Recorder:
        def start(self, total): calls.append(("start", total))
        def advance(self, outcome): calls.append(("advance", outcome.api, outcome.scenario))
        def stop(self): calls.append(("stop",))
    outcomes = run_matrix(apis, chosen, Recorder(), workers={workers})
    advanced = [call[1:] for call in calls if call[0] == "advance"]
    print(json.dumps({{
        "outcomes": [[o.api, o.scenario, o.status] for o in outcomes],
        "progress": [calls[0], len(advanced), len(set(advanced)), calls[-1]],
        "sdks_here": sorted(m for m in ("openai", "anthropic") if m in sys.modules),
    }}))
    """
)


class TestParallelMatrix:
    def _run(self, workers: int) -> dict[str, object]:
        script = PARALLEL_MATRIX.format(workers=workers)
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
        report: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
        return report

    def test_providers_run_in_workers_with_the_same_outcomes_in_the_same_order(self) -> None:
        """Forked workers (one per provider) give what one process gives; the SDKs load only in them."""
        parallel, alone = self._run(workers=2), self._run(workers=1)
        assert parallel["outcomes"] == alone["outcomes"]
        assert [row[:2] for row in parallel["outcomes"]] == [  # type: ignore[attr-defined]
            [api, name]
            for api in ("openai-chat", "anthropic", "openai-responses")
            for name in ("single_call", "error_result", "reasoning_call")  # the order of SCENARIOS
        ]
        assert parallel["progress"] == [["start", 9], 9, 9, ["stop"]]  # every outcome once, between start and stop
        assert alone["progress"] == [["start", 9], 9, 9, ["stop"]]
        assert parallel["sdks_here"] == []
        assert alone["sdks_here"] == ["anthropic", "openai"]


class TestOneCassetteUsePerScenario:
    def test_both_modes_replay_from_one_load_of_the_cassette(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """vcrpy loads and patches once per scenario; each mode still has to request every interaction."""
        loads: list[str] = []
        load = vcr.cassette.Cassette._load

        def counted(cassette: Any) -> None:
            loads.append(cassette._path)
            load(cassette)

        monkeypatch.setattr(vcr.cassette.Cassette, "_load", counted)
        outcome = run_scenario("anthropic", scenario("parallel_calls"))
        assert (outcome.status, outcome.reasons, outcome.modes) == ("pass", [], ["sync", "async"])
        assert loads == [str(cassette_path("anthropic", "parallel_calls"))]

    def test_a_cassette_that_will_not_load_fails_each_mode(self, tmp_path: Path) -> None:
        """A load error is each mode's verdict, as when each mode used the cassette on its own."""
        folder = tmp_path / "anthropic"
        folder.mkdir()
        (folder / "single_call.yaml").write_text("interactions: !!python/name:os.system\n", encoding="utf-8")
        (folder / "single_call.events.jsonl").write_text("", encoding="utf-8")
        outcome = run_scenario("anthropic", scenario("single_call"), root=tmp_path)
        problem = (
            "ValueError: There was a problem loading the cassette: could not determine a constructor for the tag"
            " 'tag:yaml.org,2002:python/name:os.system'\n  in \"<unicode string>\", line 1, column 15."
            " If this is an old cassette, delete it and re-record."
        )
        assert (outcome.status, outcome.reasons) == ("fail", [f"sync: {problem}", f"async: {problem}"])
