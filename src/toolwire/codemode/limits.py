"""The host-side limits of one code-mode run; the host counts and enforces every one of them."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from toolwire.exceptions import ConfigurationError

from .protocol import MAX_NESTING


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """Bounds on time, calls and sizes; the child is never trusted to respect them."""

    timeout: float = 30.0
    """Wall-clock seconds from the sandbox's start to the program's result; then everything is killed."""
    max_calls: int = 1000
    """`external_*` calls one run may make; later calls raise `ToolError` in the program."""
    max_concurrency: int = 16
    """Tool calls running on the host at once; further calls wait their turn."""
    max_code_chars: int = 200_000
    """Longest program accepted."""
    max_log_chars: int = 64_000
    """Total characters of logs kept; the rest is dropped and a marker says how much."""
    max_log_line_chars: int = 4_000
    """Longest single log entry kept; longer ones are cut with a marker."""
    max_result_bytes: int = 1_000_000
    """Largest JSON result (UTF-8 bytes) the program may return."""
    max_frame_bytes: int = 4_000_000
    """Largest protocol message from the sandbox; a longer one is a protocol violation."""
    max_inbound_bytes: int = 64_000_000
    """Total bytes the sandbox may send in one run; more is a protocol violation."""
    max_error_chars: int = 2_000
    """Longest error message kept."""

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ConfigurationError(f"code mode limit `{item.name}` must be a positive number, got {value!r}")
            if item.name != "timeout" and not isinstance(value, int):
                raise ConfigurationError(f"code mode limit `{item.name}` must be an integer, got {value!r}")
        if self.max_result_bytes > self.max_frame_bytes:
            raise ConfigurationError("code mode limit `max_result_bytes` cannot exceed `max_frame_bytes`")

    def for_child(self) -> dict[str, int]:
        """The limits the runner applies cooperatively (the host enforces them regardless)."""
        return {
            "max_log_chars": self.max_log_chars,
            "max_log_line_chars": self.max_log_line_chars,
            "max_result_bytes": self.max_result_bytes,
            "max_frame_bytes": self.max_frame_bytes,
            "max_error_chars": self.max_error_chars,
            "max_nesting": MAX_NESTING,
        }
