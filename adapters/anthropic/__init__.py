"""The Anthropic Messages API adapter (`api="anthropic"`)."""

from __future__ import annotations

from .messages import AnthropicAdapter

__all__ = ["AnthropicAdapter"]
