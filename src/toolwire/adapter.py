"""The adapter contract: one subclass per provider API surface.

An adapter translates and never sends: tools and tool choice to a request fragment, provider
frames to neutral deltas, results and history to the provider's messages. This base class owns
everything that is the same for every provider: option handling, per-tool caching, name
mapping, degradation reporting, turning any source into frames, the assembler and hooks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from ._assembler import StreamAssembler
from ._frame_problems import DECODE_ERRORS, frame_error_text, frame_problem
from ._hooks import StreamHooks
from ._long_strings import RestatedStrings
from ._provider_calls import EncodedMessages as EncodedMessages  # re-exported: the adapter contract's types
from ._provider_calls import ProviderCalls
from ._readonly import read_only
from ._sources import FrameError, SdkConverter, aframe_batches, frame_batches
from .capabilities import Capabilities
from .compat import Degradation, report
from .deltas import Delta
from .events import Event
from .exceptions import ArgumentError, ConfigurationError, ToolDefinitionError
from .names import NameMap, NameRules, build_name_map
from .tool_choice import ToolChoice, parse_tool_choice
from .tools import STRING_INPUT_KEY, Tool, object_view


class StreamDecoder(Protocol):
    """Per-response state that maps provider frames to deltas."""

    def feed(self, frame: Any) -> Iterable[Delta]:
        """Deltas for one frame (a decoded JSON object or an SDK object)."""
        ...

    def close(self) -> Iterable[Delta]:
        """Deltas owed at the end of the response (e.g. calls a finish reason would have ended)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class EncodeOptions:
    """Per-request encoding choices (part of the per-tool cache key)."""

    strict: bool | None = None
    """Default for tools whose own `strict` is None."""
    auto_strict: bool = False
    """Enable strict for unset tools wherever the schema is compatible."""
    examples_in_description: bool = True
    """Fold input examples into the description where the provider has no field for them."""


class EncodedTools(dict[str, Any]):
    """The request fragment (wire JSON), plus what encoding it reported.

    The fragment, its lists of entries and each tool entry are new on every call: add, replace
    or remove their fields freely. What an entry holds (schemas, examples, nested objects such
    as Chat's `function`) is shared with toolwire's per-tool cache and read-only (`ReadOnlyDict`,
    `ReadOnlyList`: a change raises TypeError); replace it with an edited copy instead.
    """

    __slots__ = ("names", "tools", "warnings")

    def __init__(
        self, fragment: Mapping[str, Any], *, warnings: list[Degradation], names: NameMap, tools: tuple[Tool, ...]
    ) -> None:
        super().__init__(fragment)
        self.warnings = warnings
        """Every degradation, in the order it was found."""
        self.names = names
        """Tool ids and provider names, both ways."""
        self.tools = tools
        """The tools, in request order."""


def tool_mapping(tools: Sequence[Tool] | Mapping[str, Tool] | None) -> dict[str, Tool] | None:
    """Tools by id, refusing two different tools with one id.

    Raises:
        ArgumentError: `tools` is a lone Tool or not a collection.
        ConfigurationError: two different tools share an id, or an item is not a Tool.
    """
    if tools is None:
        return None
    if isinstance(tools, Tool) or not isinstance(tools, Iterable):
        raise ArgumentError("tools", "a list of Tool objects", tools)
    items = tools.values() if isinstance(tools, Mapping) else tools
    by_id: dict[str, Tool] = {}
    for tool in items:
        if not isinstance(tool, Tool):
            raise ConfigurationError(f"expected toolwire Tool objects, got {type(tool).__name__}")
        other = by_id.get(tool.id)
        if other is not None and other is not tool:
            raise ConfigurationError(f"two different tools have the id {tool.id!r}")
        by_id[tool.id] = tool
    return by_id


class Adapter(ProviderCalls, ABC):
    """Translate between the neutral IR and one provider API surface."""

    api: ClassVar[str]
    """The stable API name, e.g. `"openai-chat"`; also the cassette folder."""
    provider: ClassVar[str]
    """The key of this provider in `Tool.provider_options` (`openai`, `anthropic`, `google`)."""
    name_rules: ClassVar[NameRules]
    capabilities: ClassVar[Capabilities]
    reserved_tool_fields: ClassVar[frozenset[str]] = frozenset()
    """Tool-entry fields toolwire sets; provider options may not overwrite them."""
    unsupported_provider_options: ClassVar[frozenset[str]] = frozenset()
    """Keys of this provider's options another api of the same provider takes but this one
    rejects (e.g. Responses-only keys on Chat): left out and reported."""
    restated_strings: ClassVar[RestatedStrings | None] = None
    """Where the provider's stream events restate text it streamed: long strings there are
    compared with the streamed text without being decoded (`toolwire._long_strings`)."""

    def takes_free_form_tools(self) -> bool:
        """Whether `encode_tool` sends free-form (string-input) tools as such; else they go as `object_view`."""
        return False

    def settings_key(self) -> tuple[Any, ...]:
        """Adapter settings that change encoding (part of the per-tool cache key)."""
        return ()

    # -- tool definitions ----------------------------------------------------------------

    def encode_tools(
        self,
        tools: Sequence[Tool] | Mapping[str, Tool],
        tool_choice: Any = None,
        *,
        parallel: bool | None = None,
        strict: bool | None = None,
        auto_strict: bool = False,
        examples_in_description: bool = True,
        warn: bool = True,
    ) -> EncodedTools:
        """The request fragment for these tools, in wire JSON, ready to merge into the SDK call.

        Degradations are on `.warnings`, and each is also a `CompatibilityWarning` unless
        `warn=False` (a caller that reports them itself, like the agent, once per conversation).
        Each tool is translated once per api, settings and options; repeats reuse that entry and
        copy only its top level (see `EncodedTools` for what may be edited).

        Raises:
            ConfigurationError: duplicate ids, name collisions, a bad tool choice.
            ToolDefinitionError: provider options that overwrite fields toolwire sets.
        """
        by_id = tool_mapping(tools) or {}
        names = build_name_map(self.api, by_id, self.name_rules)
        choice = parse_tool_choice(tool_choice, by_id, parallel=parallel)
        options = EncodeOptions(strict=strict, auto_strict=auto_strict, examples_in_description=examples_in_description)
        degradations: list[Degradation] = []
        entries: list[dict[str, Any]] = []
        token = _cache_token(self.api, self.settings_key(), options)
        for tool in by_id.values():
            wire_name = names.wire(tool.id)
            cached = tool._wire_cache.get((token, wire_name))
            if cached is None:
                cached = self._encode_entry(tool, wire_name, options, token)
            entries.append(dict(cached[0]))  # only the entry is new: its contents stay shared and read-only
            degradations.extend(cached[1])
        fragment = self.build_fragment(entries, choice, names, tuple(by_id.values()), degradations)
        if warn:
            report(degradations)
        return EncodedTools(fragment, warnings=degradations, names=names, tools=tuple(by_id.values()))

    def _encode_entry(
        self, tool: Tool, wire_name: str, options: EncodeOptions, token: object
    ) -> tuple[dict[str, Any], tuple[Degradation, ...]]:
        """Translate one tool and cache its entry, read-only, with what it reported."""
        found: list[Degradation] = []
        if tool.free_form and not self.takes_free_form_tools():
            self.degrade(
                found,
                "free_form",
                f"sent as an object with one string property `{STRING_INPUT_KEY}` ({self.api} has no free-form "
                "tools); the call's input is unwrapped to the text",
                tool.id,
            )
            entry = self.encode_tool(object_view(tool), wire_name, options, found)
        else:
            entry = self.encode_tool(tool, wire_name, options, found)
        self._merge_provider_options(tool, entry, found)
        cached = tool._wire_cache[(token, wire_name)] = (read_only(entry), tuple(found))
        return cached

    def _merge_provider_options(self, tool: Tool, entry: dict[str, Any], degradations: list[Degradation]) -> None:
        options = tool.provider_options.get(self.provider)
        if not options:
            return
        skipped = sorted(self.unsupported_provider_options.intersection(options))
        if skipped:
            self.degrade(
                degradations,
                "provider_options",
                f"not sent: {', '.join(skipped)} (another {self.provider} api takes them; {self.api} rejects them)",
                tool.id,
            )
        for key, value in options.items():
            if key in self.unsupported_provider_options:
                continue
            if key in self.reserved_tool_fields:
                raise ToolDefinitionError(
                    tool.id,
                    f"provider_options.{self.provider}.{key}",
                    f"would overwrite the {key!r} field toolwire sets for {self.api}",
                )
            entry[key] = value

    @abstractmethod
    def encode_tool(
        self, tool: Tool, wire_name: str, options: EncodeOptions, degradations: list[Degradation]
    ) -> dict[str, Any]:
        """One tool's entry (before provider options); append a `Degradation` for each fallback."""

    @abstractmethod
    def build_fragment(
        self,
        entries: list[dict[str, Any]],
        choice: ToolChoice | None,
        names: NameMap,
        tools: tuple[Tool, ...],
        degradations: list[Degradation],
    ) -> dict[str, Any]:
        """The request fragment: the tool entries plus tool choice and parallelism fields."""

    def degrade(self, degradations: list[Degradation], feature: str, action: str, tool_id: str | None = None) -> None:
        """Record one degradation of this api, once (a long history would repeat the same one)."""
        degradation = Degradation(api=self.api, feature=feature, action=action, tool_id=tool_id)
        if degradation not in degradations:
            degradations.append(degradation)

    def name_map(self, tools: Sequence[Tool] | Mapping[str, Tool] | None) -> NameMap:
        """The name table for decoding calls to these tools."""
        by_id = tool_mapping(tools)
        return build_name_map(self.api, by_id or {}, self.name_rules)

    # -- responses -----------------------------------------------------------------------

    @abstractmethod
    def new_decoder(self) -> StreamDecoder:
        """Fresh decoding state for one response."""

    def sdk_frame(self, obj: Any) -> Any:
        """How an SDK object becomes a frame (default: read by attribute, as is)."""
        return obj

    def _converter(self) -> SdkConverter:
        """`sdk_frame`, or None when the adapter reads SDK objects as they are (saves a call per frame)."""
        return None if type(self).sdk_frame is Adapter.sdk_frame else self.sdk_frame

    def normalize(
        self,
        source: Any,
        *,
        tools: Sequence[Tool] | Mapping[str, Tool] | None = None,
        partial: bool = False,
        messages: Any = None,
        abort_signal: Any = None,
    ) -> Iterator[Event]:
        """Unified events for a response from any source, firing the tools' stream hooks.

        Undecodable input becomes `error` events (with the byte offset); the stream goes on.
        Once `abort_signal` is aborted nothing more is yielded and no hook fires (calls still
        streaming are not finalized).
        """
        assembler, hooks, decoder = self._start(tools, partial, messages, abort_signal)
        out: list[Event] = []
        decode = decoder.feed
        handlers = assembler.handlers
        delta: Delta | None = None
        for batch in frame_batches(source, self._converter(), self.restated_strings):
            for frame in batch:  # `_decode`, inlined: the hottest loop
                if type(frame) is FrameError:
                    assembler.error(frame_error_text(self.api, frame), out)
                else:
                    try:
                        for delta in decode(frame):
                            handlers[type(delta)](delta, out)
                    except DECODE_ERRORS as exc:
                        assembler.error(frame_problem(self.api, frame, exc), out)
                if out:
                    if abort_signal is not None and _aborted(abort_signal):
                        return
                    if hooks is not None:
                        hooks.fire_sync(out)
                    yield from out
                    out.clear()
            # Released before the next batch is decoded: a frame may hold megabytes.
            batch, frame, delta = (), None, None
        if abort_signal is not None and _aborted(abort_signal):
            return
        self._close(decoder, assembler, out)
        if hooks is not None:
            hooks.fire_sync(out)
        yield from out

    async def anormalize(
        self,
        source: Any,
        *,
        tools: Sequence[Tool] | Mapping[str, Tool] | None = None,
        partial: bool = False,
        messages: Any = None,
        abort_signal: Any = None,
    ) -> AsyncIterator[Event]:
        """`normalize` for async sources (async iterables); sync sources work too."""
        assembler, hooks, decoder = self._start(tools, partial, messages, abort_signal)
        out: list[Event] = []
        if isinstance(source, AsyncIterable):
            batches = aframe_batches(source, self._converter(), self.restated_strings)
        else:
            batches = _as_async(frame_batches(source, self._converter(), self.restated_strings))
        async for batch in batches:
            for frame in batch:
                self._decode(decoder, assembler, frame, out)
                if out:
                    if abort_signal is not None and _aborted(abort_signal):
                        return
                    if hooks is not None:
                        await hooks.fire_async(out)
                    for event in out:
                        yield event
                    out.clear()
            batch = frame = ()  # released before the next batch is decoded
        if abort_signal is not None and _aborted(abort_signal):
            return
        self._close(decoder, assembler, out)
        if hooks is not None:
            await hooks.fire_async(out)
        for event in out:
            yield event

    def _start(
        self, tools: Sequence[Tool] | Mapping[str, Tool] | None, partial: bool, messages: Any, abort_signal: Any
    ) -> tuple[StreamAssembler, StreamHooks | None, StreamDecoder]:
        """The per-response state shared by `normalize` and `anormalize`."""
        by_id = tool_mapping(tools)
        assembler = StreamAssembler(names=self.name_map(by_id), tools=by_id, partial=partial, provider=self.provider)
        wanted = StreamHooks.wanted(by_id)
        hooks = StreamHooks(by_id or {}, {"messages": messages, "abort_signal": abort_signal}) if wanted else None
        return assembler, hooks, self.new_decoder()

    def _decode(self, decoder: StreamDecoder, assembler: StreamAssembler, frame: Any, out: list[Event]) -> None:
        if type(frame) is FrameError:
            assembler.error(frame_error_text(self.api, frame), out)
            return
        try:
            for delta in decoder.feed(frame):
                assembler.feed(delta, out)
        except DECODE_ERRORS as exc:
            assembler.error(frame_problem(self.api, frame, exc), out)

    def _close(self, decoder: StreamDecoder, assembler: StreamAssembler, out: list[Event]) -> None:
        try:
            for delta in decoder.close():
                assembler.feed(delta, out)
        except DECODE_ERRORS as exc:
            assembler.error(f"unexpected {self.api} end of stream ({type(exc).__name__}: {exc})", out)
        assembler.close(out)


def _aborted(signal: Any) -> bool:
    return bool(getattr(signal, "aborted", False))


async def _as_async(frames: Iterator[Any]) -> AsyncIterator[Any]:
    for frame in frames:
        yield frame


_cache_tokens: dict[tuple[str, tuple[Any, ...], EncodeOptions], object] = {}


def _cache_token(api: str, settings: tuple[Any, ...], options: EncodeOptions) -> object:
    """One object per (api, settings, options): per-tool cache keys then hash and compare by identity."""
    return _cache_tokens.setdefault((api, settings, options), object())
