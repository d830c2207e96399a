"""Vertex `partialArgs` paths: RFC 9535 normalized paths (`$.recipe.steps[1]`) read as segments.

A streamed call's paths arrive in document order, each usually a sibling or a near relative of
the one before: `PathReader` reads only the part of a path after the longest segment prefix it
shares with the previous one, so a path costs one or two segments, not its whole depth.
"""

from __future__ import annotations

import re

Segment = str | int
Path = tuple[Segment, ...]


class PathError(ValueError):
    """A `jsonPath` that is not an RFC 9535 normalized path below `$`."""


_PLAIN_SEGMENT = re.compile(r"\.([^.\[]+)|\[([0-9]+)\]")
"""A member name after a dot or an index: the segments of nearly every path, read by one regex match."""


def parse_json_path(path: str) -> Path:
    """`$.a['b'][0]` as `("a", "b", 0)`.

    Raises:
        PathError: not a path of member names and indices below `$`.
    """
    if not path.startswith("$"):
        raise PathError(f"jsonPath {path!r} does not start at `$`")
    segments: list[Segment] = []
    _read_segments(path, 1, segments, [])
    return tuple(segments)


def _read_segments(path: str, i: int, segments: list[Segment], ends: list[int]) -> None:
    """The segments of `path` from offset `i` on, and the offset where each ends."""
    n = len(path)
    match = _PLAIN_SEGMENT.match
    while i < n:
        plain = match(path, i)
        if plain is not None:
            name, index = plain.groups()
            segments.append(name if index is None else int(index))
            i = plain.end()
        else:
            i = _irregular_segment(path, i, segments)
        ends.append(i)


def _irregular_segment(path: str, i: int, segments: list[Segment]) -> int:
    """A quoted name, or the error that names what is wrong at `i`; the offset after the segment."""
    n = len(path)
    char = path[i]
    if char == ".":
        raise PathError(f"jsonPath {path!r} has an empty member name at {i}")
    if char == "[" and i + 1 < n and path[i + 1] in "'\"":
        return _quoted(path, i, segments)
    if char == "[":
        j = path.find("]", i)
        if j < 0 or not path[i + 1 : j].isdigit():
            raise PathError(f"jsonPath {path!r} has a bad index at {i}")
        segments.append(int(path[i + 1 : j]))
        return j + 1
    raise PathError(f"jsonPath {path!r} has an unexpected {char!r} at {i}")


def _quoted(path: str, start: int, segments: list[Segment]) -> int:
    quote = path[start + 1]
    chars: list[str] = []
    i = start + 2
    while i < len(path):
        char = path[i]
        if char == "\\" and i + 1 < len(path):
            escaped = path[i + 1]
            chars.append({"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}.get(escaped, escaped))
            i += 2
        elif char == quote:
            if path[i + 1 : i + 2] != "]":
                raise PathError(f"jsonPath {path!r} has an unclosed bracket at {start}")
            segments.append("".join(chars))
            return i + 2
        else:
            chars.append(char)
            i += 1
    raise PathError(f"jsonPath {path!r} has an unterminated name at {start}")


class PathReader:
    """`parse_json_path` for one call's paths in turn, reusing what a path shares with the one before."""

    __slots__ = ("_ends", "_path", "_raw")

    def __init__(self) -> None:
        self._raw: str | None = None
        self._path: Path = ()
        self._ends: list[int] = []
        """`_raw[:_ends[d]]` is the text of the first `d` segments of `_path` (empty before any path)."""

    def read(self, raw: str) -> Path:
        """The segments of `raw`, exactly as `parse_json_path` reads them.

        Raises:
            PathError: not a path of member names and indices below `$`.
        """
        if raw == self._raw:
            return self._path
        previous, ends = self._raw or "", self._ends
        depth = len(ends) - 1
        size = len(raw)
        # The deepest segment boundary of the previous path where `raw` continues with a new segment
        # (or ends): up to there, `raw` holds the same text, hence the same segments.
        while depth >= 0:
            end = ends[depth]
            if raw.startswith(previous[:end]) and (end == size or raw[end] in ".["):
                break
            depth -= 1
        else:  # no shared prefix: the whole path, or its error
            if not raw.startswith("$"):
                raise PathError(f"jsonPath {raw!r} does not start at `$`")
            depth = 0
            ends = [1]
        segments = list(self._path[:depth])
        ends = ends[: depth + 1]
        _read_segments(raw, ends[-1], segments, ends)
        path = tuple(segments)
        self._raw, self._path, self._ends = raw, path, ends
        return path

    def parent_text(self) -> str | None:
        """The text of the last path read without its last segment (None when it has none)."""
        ends = self._ends
        return self._raw[: ends[-2]] if len(ends) > 1 and self._raw is not None else None
