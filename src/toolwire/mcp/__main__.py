"""`python -m toolwire.mcp serve module:attribute`: serve a module's tools over MCP (what `toolwire mcp serve` runs)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from toolwire.exceptions import ConfigurationError


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and serve until stopped; 2 on a usage error."""
    parser = argparse.ArgumentParser(prog="python -m toolwire.mcp", description="Serve toolwire tools over MCP.")
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("serve", help="serve the tools named by module:attribute")
    command.add_argument("spec", help="module:attribute naming a Tool, a list of Tools or a dict of Tools")
    command.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    command.add_argument("--name", help="server name (default: the module's top-level package)")
    command.add_argument("--version", help="server version (default: the package's version)")
    command.add_argument("--host", default="127.0.0.1", help="streamable-http bind address (default: 127.0.0.1)")
    command.add_argument("--port", type=int, default=8000, help="streamable-http port (default: 8000)")
    args = parser.parse_args(argv)
    try:
        from toolwire.mcp import serve_from_spec

        serve_from_spec(
            args.spec, transport=args.transport, name=args.name, version=args.version, host=args.host, port=args.port
        )
    except (ConfigurationError, ModuleNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
