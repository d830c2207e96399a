"""Redaction of the secrets one target call used: env values and the identity token.

A handler, or a library between it and us, can send a secret back spelled differently. So
the text is also read decoded, one level at a time (up to `MAX_DECODINGS` levels, so a value
encoded twice or three times is read too): percent-encoding in either hex case, `\\x`, `\\u`,
`\\U`, octal and short backslash escapes (JSON, Python, C), and HTML character references, in any mix. Each
level is searched for every secret in any letter case (`+` also standing for a space), the
whole value in hex, and its base64, standard or URL-safe, padded or not, also inside a longer
base64 text such as a Basic `user:secret` credential (there the first and last characters
also carry neighbouring bytes and stay). Hex and base64 are matched for secrets of at least
`MIN_ENCODED_SECRET` characters: shorter runs of such text occur by chance. Whatever matched
is replaced in the original text, widened to whole encoded characters.

Env values are removed from everything: errors, logs, traces, what the model reads and what
the display shows. The identity token is removed from errors, logs, traces and the model's
view; the display stream (the user's own UI) keeps it, since an `embedUrl` may carry it to
the app's own page.
"""

from __future__ import annotations

import base64
import bisect
import functools
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

REDACTED = "[redacted]"
MIN_ENCODED_SECRET = 8
MAX_DECODINGS = 3
_ENCODED_TEMPLATE = (
    # Starting with the character class lets the regex engine skip plain text quickly.
    r"[%\\&](?:"
    r"(?<=%)(?P<percent>[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})*)"
    r"|(?<=\\)(?:x(?P<byte>[0-9A-Fa-f]{2}(?:\\x[0-9A-Fa-f]{2})*)"
    r"|u(?P<utf16>[0-9A-Fa-f]{4}(?:\\u[0-9A-Fa-f]{4})*)"
    r"|U(?P<wide>[0-9A-Fa-f]{8}(?:\\U[0-9A-Fa-f]{8})*)"
    r"|(?P<octal>OCTAL(?:\\OCTAL)*)"
    r"|(?P<short>[\"'\\/nrtbf]))"
    r"|(?<=&)(?P<entity>#[0-9]{1,8}|#[xX][0-9A-Fa-f]{1,8}|amp|lt|gt|quot|apos);)"
)
_OCTAL = r"(?:[0-3][0-7]{0,2}|[4-7][0-7]?)"
"""An octal escape as JavaScript (and C, for a byte) reads it: three digits only up to `\\377`."""
_MASKED_OCTAL = r"[0-7]{1,3}"
"""An octal escape as Python bytes (until 3.12) and PHP read it: three digits, modulo 256."""
_ENCODED = {
    masked: re.compile(_ENCODED_TEMPLATE.replace("OCTAL", _MASKED_OCTAL if masked else _OCTAL))
    for masked in (False, True)
}
_OCTAL_ESCAPE = {masked: re.compile("\\\\" + (_MASKED_OCTAL if masked else _OCTAL)) for masked in (False, True)}
_WIDE_OCTAL = re.compile(r"\\[4-7][0-7]{2}")
"""An escape the two readings read differently (`\\600`: `\\60` then `0`, or byte 0x80)."""
_MARKERS = re.compile(r"[%\\&]")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_ENCODING_ALPHABET = frozenset("%\\&#;xu0123456789abcdef" + "amplgtquos")
"""What encoded runs are written with: decoded, these may form the next level's runs."""
_SHORT = {'"': '"', "'": "'", "\\": "\\", "/": "/", "n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


Piece = tuple[int, int, int, int, int]
"""(decoded start, decoded end, source start, source end, stride) of one decoded piece.

A stride > 0 maps the piece linearly (character k came from `stride` source characters at
`source start + k * stride`: a run of `%XX` or `\\uXXXX` one byte or unit per character);
0 maps it as a whole.
"""


@dataclass(frozen=True, slots=True)
class _Level:
    """One decoding of the text: where each decoded character came from in the level below."""

    text: str
    starts: list[int]
    """Decoded start of each piece, ascending (for bisect)."""
    pieces: list[Piece]
    below: _Level | None
    may_decode: bool = True
    """False when decoding made no `%`, `\\` or `&`: the next level would decode nothing new."""

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that decoded into `[start, end)` of this level."""
        span = (self._source(start, first=True), self._source(end - 1, first=False))
        return self.below.source_span(*span) if self.below is not None else span

    def _source(self, index: int, *, first: bool) -> int:
        at = bisect.bisect_right(self.starts, index) - 1
        if at < 0:
            return index if first else index + 1
        decoded_start, decoded_end, source_start, source_end, stride = self.pieces[at]
        if index < decoded_end:
            if stride:
                source = source_start + (index - decoded_start) * stride
                return source if first else source + stride
            return source_start if first else source_end
        source = source_end + index - decoded_end
        return source if first else source + 1


def _decoded(level: _Level, alphabet: frozenset[str], masked: bool) -> _Level | None:
    """The next level, or None when nothing in `level` is encoded.

    Only runs that decode to a character of `alphabet` (what the secrets' spellings and the
    encodings themselves are made of) are decoded: a match cannot cover any other character,
    and skipping them keeps JSON's many `\\"` cheap.
    """
    text = level.text
    if not _MARKERS.search(text):
        return None
    out: list[str] = []
    starts: list[int] = []
    pieces: list[Piece] = []
    last = length = 0
    new_runs = False
    for match in _ENCODED[masked].finditer(text):
        run = match.group()
        decoded, folded = _short_run(run, masked) if len(run) <= _CACHED_RUN else _run(run, masked)
        if alphabet.isdisjoint(folded):
            continue
        plain = text[last : match.start()]
        out.append(plain)
        length += len(plain)
        for chars, offset, end, stride in decoded:
            new_runs = new_runs or _MARKERS.search(chars) is not None
            starts.append(length)
            pieces.append((length, length + len(chars), match.start() + offset, match.start() + end, stride))
            out.append(chars)
            length += len(chars)
        last = match.end()
    if not pieces:
        return None
    out.append(text[last:])
    return _Level("".join(out), starts, pieces, level, new_runs)


Segment = tuple[str, int, int, int]
"""(decoded text, start in the run, end in the run, stride) of part of one encoded run."""


def _run(run: str, masked: bool) -> tuple[tuple[Segment, ...], str]:
    """One encoded run's decoded segments, and their folded text."""
    segments = tuple(_segments(run, masked))
    return segments, _fold("".join(chars for chars, _, _, _ in segments))


_CACHED_RUN = 24
_short_run = functools.lru_cache(maxsize=4096)(_run)
"""`_run` for short runs, which repeat (`\\"`, `%20`, `&amp;`)."""


def _segments(run: str, masked: bool) -> Iterator[Segment]:
    if run[0] == "%" or run[1] == "x":
        width = 3 if run[0] == "%" else 4
        data = bytes.fromhex("".join(run[i + width - 2 : i + width] for i in range(0, len(run), width)))
        try:
            chars = data.decode("utf-8")
        except UnicodeDecodeError:
            chars = data.decode("latin-1")
        if len(chars) == len(data):
            yield chars, 0, len(run), width
            return
        start = 0
        for char in chars:
            size = len(char.encode("utf-8", "surrogatepass")) * width
            yield char, start, start + size, 0
            start += size
    elif run[0] == "&":
        yield _entity(run[1:-1]), 0, len(run), 0
    elif run[1] == "U":
        yield "".join(_code_point(int(run[i + 2 : i + 10], 16)) for i in range(0, len(run), 10)), 0, len(run), 10
    elif run[1] in _OCTAL_DIGITS:
        yield from _octal_segments(run, masked)
    elif run[1] == "u":
        units = [int(run[i + 2 : i + 6], 16) for i in range(0, len(run), 6)]
        joined = "".join(map(chr, units)).encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
        if len(joined) == len(units):
            yield joined, 0, len(run), 6
            return
        start = 0
        for char in joined:
            size = 12 if ord(char) > 0xFFFF else 6
            yield char, start, start + size, 0
            start += size
    else:
        yield _SHORT[run[1]], 0, 2, 0


_OCTAL_DIGITS = frozenset("01234567")


def _octal_segments(run: str, masked: bool) -> Iterator[Segment]:
    """C, JavaScript, Python and PHP octal escapes (`\\123`): bytes, read as UTF-8 where they are.

    `\\600` is `\\60` then a `0` as JavaScript reads it, byte 0x80 as PHP and Python bytes
    read it (`masked`): the text is searched both ways when it holds such an escape.
    """
    escapes = [(m.start(), m.end()) for m in _OCTAL_ESCAPE[masked].finditer(run)]
    data = bytes(int(run[start + 1 : end], 8) & 0xFF for start, end in escapes)
    try:
        chars = data.decode("utf-8")
    except UnicodeDecodeError:
        chars = data.decode("latin-1")
    at = 0
    for char in chars:
        size = len(char.encode("utf-8")) if len(chars) != len(data) else 1
        yield char, escapes[at][0], escapes[at + size - 1][1], 0
        at += size


def _code_point(value: int) -> str:
    return chr(value) if value < 0x110000 else "\ufffd"


def _entity(name: str) -> str:
    """A character reference as written, any code point (`html.unescape` drops control characters)."""
    if not name.startswith("#"):
        return _NAMED[name]
    code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
    return _code_point(code)


def _levels(text: str, alphabet: frozenset[str]) -> Iterator[_Level]:
    """Each decoding of `text`, and of its octal escapes read the other way when some read two ways."""
    wide = False
    for level in _reading(text, alphabet, masked=False):
        wide = wide or _WIDE_OCTAL.search(level.text) is not None
        yield level
    if wide:
        yield from itertools.islice(_reading(text, alphabet, masked=True), 1, None)


def _reading(text: str, alphabet: frozenset[str], masked: bool) -> Iterator[_Level]:
    level: _Level | None = _Level(text, [], [], None)
    for _ in range(MAX_DECODINGS + 1):
        if level is None:
            return
        yield level
        level = _decoded(level, alphabet, masked) if level.may_decode else None


def _fold(text: str) -> str:
    """Lower case (lengthens only `İ`), `+` as a space (forms), `-` and `_` as `+` and `/` (URL-safe base64)."""
    # str.replace is many times faster than str.translate on non-ASCII text.
    return text.lower().replace("+", " ").replace("-", " ").replace("_", "/")


def _case_variants(secret: str) -> set[str]:
    """The secret folded as written and upper-cased (`ß` upper-cases to `SS`, which lower-cases to `ss`)."""
    return {_fold(secret), _fold(secret.upper()), _fold(secret.casefold())}


def _base64_runs(data: bytes) -> set[str]:
    """The base64 characters that encode only `data`'s bits, at each of the three byte alignments."""
    runs: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
        run = encoded[-(-8 * offset // 6) : 8 * (offset + len(data)) // 6]
        if len(run) >= MIN_ENCODED_SECRET:
            runs.add(run)
    return runs


class _Search(NamedTuple):
    needles: tuple[str, ...]
    any_needle: re.Pattern[str]
    """Finds whether a short text holds a needle (one regex call beats a `find` per needle there)."""
    alphabet: frozenset[str]
    """The characters of the needles and of the encodings: runs decoding to nothing else cannot matter."""
    numeric: bool
    """Whether a number's text could hold a needle (most secrets have letters)."""


_SHORT_TEXT = 4096
_NUMBER_ALPHABET = frozenset("0123456789. e")
"""What a number's text is made of, folded (`-` and `+` fold to a space)."""


@functools.lru_cache(maxsize=256)
def _needles(secrets: tuple[str, ...]) -> _Search:
    """What to look for, folded (each secret, and for longer ones its hex and base64 runs)."""
    needles: set[str] = set()
    for secret in secrets:
        needles.update(_case_variants(secret))
        data = secret.encode("utf-8", "surrogatepass")
        if len(secret) >= MIN_ENCODED_SECRET:
            needles.add(data.hex())
            needles.update(_fold(run) for run in _base64_runs(data))
    ordered = tuple(sorted(needles, key=len, reverse=True))
    return _Search(
        needles=ordered,
        any_needle=re.compile("|".join(map(re.escape, ordered))),
        alphabet=frozenset("".join(needles)) | _ENCODING_ALPHABET,
        numeric=any(set(needle) <= _NUMBER_ALPHABET for needle in needles),
    )


_DOTTED_I = re.compile("\u0130")


def _folded(level: _Level) -> _Level:
    """`level` case folded when that lengthens it (`İ`), as a level of its own so spans still map back."""
    text = level.text
    out: list[str] = []
    starts: list[int] = []
    pieces: list[Piece] = []
    last = length = 0
    for match in _DOTTED_I.finditer(text):
        plain = _fold(text[last : match.start()])
        char = _fold(match.group())
        out += [plain, char]
        length += len(plain)
        starts.append(length)
        pieces.append((length, length + len(char), match.start(), match.end(), 0))
        length += len(char)
        last = match.end()
    out.append(_fold(text[last:]))
    return _Level("".join(out), starts, pieces, level)


def _found(level: _Level, search: _Search) -> Iterator[tuple[int, int]]:
    """Spans of the original text where a level, folded, holds a needle (overlapping ones too)."""
    text = _fold(level.text)
    if len(text) <= _SHORT_TEXT and not search.any_needle.search(text):
        return
    folded = _folded(level) if len(text) != len(level.text) else _Level(text, [], [], level)
    for needle in search.needles:
        at = text.find(needle)
        while at >= 0:
            yield folded.source_span(at, at + len(needle))
            at = text.find(needle, at + 1)


class Redactor:
    """Collects the secrets of one call and removes them from text and JSON values."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._hidden: set[str] = set()
        self._user_visible: set[str] = set()
        self._searches: dict[bool, _Search | None] = {}
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str, *, user_visible: bool = False) -> None:
        """Register a secret; `user_visible` secrets may stay in what the user's display shows."""
        if secret:
            (self._user_visible if user_visible else self._hidden).add(secret)
            self._searches.clear()

    def _search(self, display: bool) -> _Search | None:
        if display not in self._searches:
            words = self._hidden if display else self._hidden | self._user_visible
            self._searches[display] = _needles(tuple(sorted(words))) if words else None
        return self._searches[display]

    def text(self, value: str, *, display: bool = False) -> str:
        """`value` with every spelling of every secret replaced by `[redacted]`."""
        search = self._search(display)
        if search is None:
            return value
        if not _MARKERS.search(value) and "\u0130" not in value:
            folded = _fold(value)
            short = len(folded) <= _SHORT_TEXT
            if not (search.any_needle.search(folded) if short else any(n in folded for n in search.needles)):
                return value
        spans = sorted(span for level in _levels(value, search.alphabet) for span in _found(level, search))
        merged: list[tuple[int, int]] = []
        for start, end in spans:
            if merged and start < merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        out: list[str] = []
        last = 0
        for start, end in merged:
            out += [value[last:start], REDACTED]
            last = end
        out.append(value[last:])
        return "".join(out)

    def json(self, value: Any, *, display: bool = False) -> Any:
        """A JSON value with every string (keys included) redacted, and numbers that spell a secret replaced."""
        if isinstance(value, str):
            return self.text(value, display=display)
        if isinstance(value, Mapping):
            return {self.text(str(k), display=display): self.json(v, display=display) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.json(v, display=display) for v in value]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            search = self._search(display)
            if search is not None and search.numeric:
                text = repr(value)
                return value if self.text(text, display=display) == text else REDACTED
        return value
