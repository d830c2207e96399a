"""The `gemini` adapter: Gemini `generateContent` / `streamGenerateContent` (Gemini API and Vertex)."""

from __future__ import annotations

from .generate_content import GeminiAdapter

__all__ = ["GeminiAdapter"]
