"""Authoring bundled cassettes from hand-written responses.

The responses in `cassettes/<api>/<scenario>.yaml` are written by hand in the provider's exact
wire format. This tool runs the scenario through the real SDK client against those responses
(an in-memory transport, in order), then stores the requests the SDK actually sent and the
events toolwire produced (`<scenario>.events.jsonl`) for review. Run it after changing a
response or on purpose after changing an encoding:

    python -m toolwire.conformance.author --api anthropic --scenario single_call
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolwire._extras import optional_imports

with optional_imports("authoring cassettes", "conformance"):
    import httpx2

from toolwire.conformance.cassette import cassette_path, events_path, load_cassette, save_cassette
from toolwire.conformance.runner import _run_agent, split_steps, write_expected_events
from toolwire.conformance.scenarios import SCENARIOS, scenario
from toolwire.testing.capture import RequestCapture


def author(api: str, name: str, root: Path | None = None) -> list[list[dict[str, Any]]]:
    """Fill in a cassette's requests and expected events from its responses.

    Raises:
        ValueError: the scenario made a different number of requests than there are responses.
    """
    path = cassette_path(api, name, root)
    cassette = load_cassette(path)
    interactions = cassette["interactions"]
    queue = [_response(i["response"]) for i in interactions]

    def respond(request: httpx2.Request) -> httpx2.Response:
        if not queue:
            raise ValueError(f"{path}: the scenario made more requests than the cassette has responses")
        return queue.pop(0)

    capture = RequestCapture(respond)
    _log, events, _summary = _run_agent(api, scenario(name), "sync", http_client=capture.client())
    if queue:
        raise ValueError(f"{path}: {len(queue)} response(s) left unused: the scenario made fewer requests")
    for interaction, request in zip(interactions, capture.requests, strict=True):
        interaction["request"] = {
            "method": request.method,
            "uri": str(request.url),
            "headers": {"content-type": ["application/json"]},
            "body": request.content.decode("utf-8"),
        }
    save_cassette(path, cassette)
    steps = split_steps(events)
    write_expected_events(events_path(api, name, root), steps)
    return steps


def _response(recorded: dict[str, Any]) -> httpx2.Response:
    body = recorded.get("body", {}).get("string", "")
    headers = {k: v[0] if isinstance(v, list) else v for k, v in recorded.get("headers", {}).items()}
    raw = body.encode("utf-8") if isinstance(body, str) else body
    return httpx2.Response(int(recorded.get("status", {}).get("code", 200)), headers=headers, content=raw)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m toolwire.conformance.author --api API --scenario NAME`."""
    parser = argparse.ArgumentParser(prog="python -m toolwire.conformance.author")
    parser.add_argument("--api", required=True)
    parser.add_argument("--scenario", action="append", help="default: every scenario with a cassette")
    args = parser.parse_args(argv)
    names = args.scenario or [s.name for s in SCENARIOS if cassette_path(args.api, s.name).exists()]
    for name in names:
        steps = author(args.api, name)
        print(f"{args.api}/{name}: {len(steps)} step(s), {sum(len(s) for s in steps)} events", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
