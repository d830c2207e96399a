"""Re-recording scenarios against the live APIs (needs API keys; nothing here runs in CI).

    TOOLWIRE_ANTHROPIC_API_KEY=... python -m toolwire.conformance.record --api anthropic

Secrets are filtered from headers and bodies, compressed bodies are stored decoded, streams are
stored as readable blocks, and the expected events are written beside each cassette for
review. Keys are read from `TOOLWIRE_<PROVIDER>_API_KEY` (or the SDK's usual variable).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from toolwire._extras import optional_imports

with optional_imports("re-recording cassettes", "conformance"):
    import vcr

from toolwire.conformance.cassette import (
    MATCH_ON,
    SECRET_HEADERS,
    ReadableSerializer,
    cassette_path,
    events_path,
    json_body,
    redactor,
)
from toolwire.conformance.runner import _run_agent, split_steps, write_expected_events
from toolwire.conformance.scenarios import SCENARIOS, Scenario, scenario

KEY_VARIABLES = {
    "openai-chat": ("TOOLWIRE_OPENAI_API_KEY", "OPENAI_API_KEY"),
    "openai-responses": ("TOOLWIRE_OPENAI_API_KEY", "OPENAI_API_KEY"),
    "anthropic": ("TOOLWIRE_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"),
    "gemini": ("TOOLWIRE_GEMINI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"),
}


def recording_vcr(secrets: list[str]) -> vcr.VCR:
    """A VCR that records every request anew, with secrets filtered and bodies decoded."""
    scrub = redactor(secrets)
    recorder = vcr.VCR(
        record_mode="all",
        match_on=MATCH_ON,
        filter_headers=list(SECRET_HEADERS),
        filter_query_parameters=["key"],
        decode_compressed_response=True,
        before_record_request=scrub,
        before_record_response=scrub,
        serializer="toolwire",
    )
    recorder.register_matcher("json_body", json_body)
    recorder.register_serializer("toolwire", ReadableSerializer)
    return recorder


def record_scenario(
    api: str, item: Scenario, *, api_key: str, base_url: str | None = None, root: Path | None = None
) -> Path:
    """Run a scenario for real and store its cassette and expected events."""
    path = cassette_path(api, item.name, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with recording_vcr([api_key]).use_cassette(str(path)):
        _log, events, _summary = _run_agent(api, item, "sync", api_key=api_key, base_url=base_url)
    write_expected_events(events_path(api, item.name, root), split_steps(events))
    return path


def api_key_for(api: str) -> str | None:
    """The key for an api from the environment."""
    for variable in KEY_VARIABLES.get(api, ()):
        value = os.environ.get(variable)
        if value:
            return value
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m toolwire.conformance.record --api API [--scenario NAME] [--base-url URL]`."""
    parser = argparse.ArgumentParser(prog="python -m toolwire.conformance.record")
    parser.add_argument("--api", required=True, choices=sorted(KEY_VARIABLES))
    parser.add_argument("--scenario", action="append")
    parser.add_argument("--base-url", help="send to this server instead of the provider (a local fake)")
    parser.add_argument("--root", type=Path, help="cassette folder (default: the bundled cassettes)")
    args = parser.parse_args(argv)
    key = api_key_for(args.api)
    if key is None:
        print(f"set one of {', '.join(KEY_VARIABLES[args.api])} to record {args.api}", file=sys.stderr)
        return 2
    for name in args.scenario or [s.name for s in SCENARIOS]:
        path = record_scenario(args.api, scenario(name), api_key=key, base_url=args.base_url, root=args.root)
        print(f"recorded {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
