"""The `toolwire` command: encode tools, normalize responses, replay cassettes, run conformance."""

from __future__ import annotations

import argparse
import gc
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from toolwire.compat import CompatibilityWarning
from toolwire.events import Error
from toolwire.exceptions import ToolwireError
from toolwire.loading import load_tools
from toolwire.recordings import read_recording
from toolwire.registry import get_adapter, list_adapters


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `toolwire` script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
    except ToolwireError as exc:
        print(f"toolwire: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return status


def run() -> NoReturn:
    """The `toolwire` script: `main`, then an exit that does not walk every object still alive.

    While it tears the modules down, Python collects garbage over everything left (0.2-0.3 s after
    a conformance run, 0.5 s once an SDK is loaded): the objects are frozen first, so those
    collections pass them by. atexit handlers, thread joins and stream flushes run as usual.
    """
    status = main()
    gc.freeze()
    sys.exit(status)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolwire", description="One tool definition for every LLM provider API.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    encode = commands.add_parser("encode", help="print the request fragment for tools on one API")
    encode.add_argument("--api", required=True, help=f"one of {', '.join(list_adapters())}")
    encode.add_argument("tools", metavar="TOOLS", help="module:attribute, or a JSON file of tool definitions")
    encode.add_argument("--tool-choice", help='auto | none | required | JSON such as {"tool": "id"}')
    encode.add_argument("--parallel", choices=["true", "false"], help="allow parallel calls (default: provider)")
    encode.add_argument("--strict", choices=["true", "false"], help="strict default for tools that leave it unset")
    encode.add_argument("--auto-strict", action="store_true", help="enable strict wherever the schema allows it")
    encode.add_argument("--no-examples-in-description", action="store_true", help="do not fold examples into text")
    encode.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE", help="adapter setting")
    encode.set_defaults(handler=_encode)

    normalize = commands.add_parser("normalize", help="print the unified events of one raw response body")
    normalize.add_argument("--api", required=True, help=f"one of {', '.join(list_adapters())}")
    normalize.add_argument("file", nargs="?", default="-", help="response body (JSON, SSE or JSON array); - for stdin")
    normalize.add_argument("--tools", help="module:attribute or JSON file: validate inputs against these tools")
    normalize.add_argument("--partial", action="store_true", help="add partialInput to tool-input-delta events")
    normalize.set_defaults(handler=_normalize)

    replay = commands.add_parser("replay", help="print the unified events of every interaction in a recording")
    replay.add_argument("cassette", help="vcrpy cassette (.yaml), HAR (.har), chunk log or JSON body")
    replay.add_argument("--api", help="force the api (default: guessed from each request URL)")
    replay.set_defaults(handler=_replay)

    adapters = commands.add_parser("adapters", help="list the registered adapters")
    adapters.set_defaults(handler=lambda _args: _print_lines(list_adapters()))

    _add_extension_commands(commands)
    return parser


def _add_extension_commands(commands: Any) -> None:
    """Commands whose code lives in optional modules (imported only when run)."""
    conformance = commands.add_parser("conformance", help="run the bundled cassette scenarios on every adapter")
    conformance.add_argument("--api", action="append", help="only this api (repeatable)")
    conformance.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    conformance.add_argument("--json", action="store_true", help="print results as JSON (and nothing else on stdout)")
    conformance.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="at most N forked worker processes, one per provider (default: the processors; 1: all in this one)",
    )
    conformance.set_defaults(handler=_run_module("toolwire.conformance.command", "run_command"))

    demo = commands.add_parser("demo", help="an offline agent run on each provider, from cassettes")
    demo.add_argument("--api", action="append", help="only this api (repeatable)")
    demo.set_defaults(handler=_run_module("toolwire.conformance.demo", "run_demo"))

    mcp = commands.add_parser("mcp", help="Model Context Protocol")
    mcp_commands = mcp.add_subparsers(required=True, metavar="MCP_COMMAND")
    serve = mcp_commands.add_parser("serve", help="serve tools to MCP clients")
    serve.add_argument("tools", metavar="TOOLS", help="module:attribute (a Tool, a list or a dict of Tools)")
    serve.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    serve.add_argument("--name", help="server name (default: the module's top-level package)")
    serve.add_argument("--version", help="server version (default: that distribution's version)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(handler=_mcp_serve)


def _run_module(module: str, function: str) -> Any:
    def handler(args: argparse.Namespace) -> int:
        import importlib

        result: int = getattr(importlib.import_module(module), function)(args)
        return result

    return handler


def _mcp_serve(args: argparse.Namespace) -> int:
    from toolwire.mcp import serve_from_spec

    serve_from_spec(
        args.tools, transport=args.transport, name=args.name, version=args.version, host=args.host, port=args.port
    )
    return 0


def _positive_int(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"takes a whole number of at least 1, got {text!r}")
    return number


def _print_lines(lines: Sequence[str]) -> int:
    for line in lines:
        print(line)
    return 0


def _settings(pairs: Sequence[str]) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for pair in pairs:
        key, equals, raw = pair.partition("=")
        if not equals:
            raise SystemExit(f"toolwire: --setting takes KEY=VALUE, got {pair!r}")
        try:
            settings[key] = json.loads(raw)
        except ValueError:
            settings[key] = raw
    return settings


def _bool(value: str | None) -> bool | None:
    return None if value is None else value == "true"


def _encode(args: argparse.Namespace) -> int:
    adapter = get_adapter(args.api, **_settings(args.setting))
    tools = load_tools(args.tools)
    choice: Any = args.tool_choice
    if choice is not None and choice.lstrip().startswith("{"):
        choice = json.loads(choice)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompatibilityWarning)
        fragment = adapter.encode_tools(
            tools,
            choice,
            parallel=_bool(args.parallel),
            strict=_bool(args.strict),
            auto_strict=args.auto_strict,
            examples_in_description=not args.no_examples_in_description,
        )
    print(json.dumps(dict(fragment), indent=2, ensure_ascii=False))
    for degradation in fragment.warnings:
        print(f"warning: {degradation}", file=sys.stderr)
    return 0


def _normalize(args: argparse.Namespace) -> int:
    adapter = get_adapter(args.api)
    body = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    tools = load_tools(args.tools) if args.tools else None
    failed = False
    for event in adapter.normalize(body, tools=tools, partial=args.partial):
        failed = failed or isinstance(event, Error)
        print(json.dumps(event.to_dict(), ensure_ascii=False, default=str))
    return 1 if failed else 0


def _replay(args: argparse.Namespace) -> int:
    failed = False
    for exchange in read_recording(args.cassette):
        api = args.api or exchange.api
        if api is None:
            print(json.dumps({"interaction": exchange.index, "skipped": f"not a known API: {exchange.uri}"}))
            continue
        for event in get_adapter(api).normalize(exchange.response_body):
            failed = failed or isinstance(event, Error)
            line = {"interaction": exchange.index, "api": api, **event.to_dict()}
            print(json.dumps(line, ensure_ascii=False, default=str))
    return 1 if failed else 0


if __name__ == "__main__":
    run()
