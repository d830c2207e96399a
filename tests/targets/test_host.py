"""Specification of the host's own configuration checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolwire.targets import TargetConfigError, TargetHost, TargetLimits, set_default_host


class TestHostConfiguration:
    @pytest.mark.parametrize(
        ("settings", "message"),
        [
            (
                {"components": {"api": "ftp://x"}},
                "component 'api': base URL must be an absolute http:// or https:// URL",
            ),
            ({"components": {"api": "https://u:p@x.com"}}, "component 'api': base URL must be a plain base URL"),
            ({"env": {"bad-name": "x"}}, "env name 'bad-name' is not a valid name"),
            ({"env": {"N": 3}}, "env 'N' must be text, None or a function returning text"),
            ({"allowed_origins": ["https://x.com/path"]}, "allowed origin 'https://x.com/path' must be an origin"),
            (
                {"builtins": {"b": lambda a, b, c: None}},
                "builtin 'b' must be a function taking `(input)` or `(input, context)`",
            ),
            ({"identity_token": lambda user: "t"}, "identity_token asks for 'user', which is never passed"),
            ({"card_ttl": 0}, "card_ttl must be a positive number of seconds, got 0"),
        ],
    )
    def test_bad_host_settings_fail_at_construction(self, settings: dict[str, Any], message: str) -> None:
        """Host mistakes surface when the host is built, with the setting named."""
        with pytest.raises(TargetConfigError) as caught:
            TargetHost(**settings)
        assert str(caught.value).startswith(message)

    @pytest.mark.parametrize(
        "limits",
        [
            {"connect_timeout": 0},
            {"read_timeout": -1},
            {"total_timeout": 0},
            {"max_response_bytes": 0},
            {"max_redirects": -1},
        ],
    )
    def test_limits_must_be_positive(self, limits: dict[str, Any]) -> None:
        """A zero or negative limit is a configuration mistake."""
        with pytest.raises(TargetConfigError):
            TargetLimits(**limits)

    def test_set_default_host_takes_only_a_host(self) -> None:
        """A wrong object is refused at once."""
        bad: Callable[..., Any] = set_default_host
        with pytest.raises(TypeError, match="expects a TargetHost, got dict"):
            bad({})
