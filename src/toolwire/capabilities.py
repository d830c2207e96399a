"""What an adapter claims to support; the conformance suite tests exactly these claims."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Capabilities:
    """Feature flags of one API surface (True: native support, no degradation)."""

    strict_tools: bool
    """Per-tool strict schema adherence."""
    native_input_examples: bool
    """Input examples have a field of their own (else folded into the description)."""
    output_schema: bool
    """Tool output schemas are sent to the provider."""
    parallel_tool_calls: bool
    """Several calls in one turn."""
    disable_parallel: bool
    """The request can forbid parallel calls."""
    allowed_tools_subset: bool
    """Tool choice can restrict the model to a subset of the sent tools."""
    streamed_arguments: bool
    """Call arguments arrive as text deltas (else whole calls)."""
    image_tool_results: bool
    """Images inside a tool result (else a follow-up user message)."""
    file_tool_results: bool
    """Files (PDF, ...) inside a tool result."""
    reasoning: bool
    """Reasoning/thinking parts in responses."""
    server_tools: bool
    """Provider-executed tools (web search, code execution, MCP) in responses."""
