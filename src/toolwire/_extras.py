"""Optional dependencies: which extra brings each one, and the error that says so."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .exceptions import MissingExtraError

EXTRAS: dict[str, tuple[str, str]] = {
    "vcr": ("vcrpy", "conformance"),
    "yaml": ("PyYAML", "yaml"),
    "httpx2": ("httpx2", "http"),
    "rich": ("rich", "conformance"),
    "mcp": ("the MCP SDK", "mcp"),
    "mcp_types": ("the MCP SDK", "mcp"),
    "starlette": ("starlette", "mcp"),
    "uvicorn": ("uvicorn", "mcp"),
    "openai": ("the OpenAI SDK", "openai"),
    "anthropic": ("the Anthropic SDK", "anthropic"),
    "google": ("the Google Gen AI SDK", "gemini"),
    "dbos": ("DBOS", "dbos"),
    "sqlalchemy": ("DBOS", "dbos"),
}
"""Top-level module -> (what to call it in a message, the toolwire extra that installs it)."""


@contextmanager
def optional_imports(feature: str, extra: str | None = None) -> Iterator[None]:
    """Turn an import of a missing optional dependency into a `MissingExtraError` naming the extra.

    `extra` overrides the module's default extra (e.g. `conformance` for httpx2 inside the suite).

    Raises:
        MissingExtraError: the block imported an optional module that is not installed.
    """
    try:
        yield
    except MissingExtraError:
        raise
    except ImportError as exc:  # also `from google import genai` on a bare `google` namespace
        module = exc.name or ""
        known = EXTRAS.get(module.split(".")[0])
        if known is None:
            raise
        package, default_extra = known
        raise MissingExtraError(feature, package, extra or default_extra, module) from exc
