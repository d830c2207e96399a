"""`python -m toolwire`: the `toolwire` command."""

from __future__ import annotations

from toolwire.cli import run

run()
