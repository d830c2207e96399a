"""Incremental partial-JSON parsing of a streamed tool call against jiter re-parsing; run by hand.

    python benchmarks/partial_json.py [--repeat N]

The stream is a ~100 KB and a ~1 MB tool-argument object (records with floats, bools and nulls,
a long raw-unicode string, a `\\uXXXX`-escaped string with surrogate pairs), cut into 4-20
character fragments with a seeded RNG, the shape measured in the reference performance notes.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import jiter

from toolwire._partial_json import IncrementalJsonParser

_WORDS = (
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
    "naïve", "café", "résumé", "Zoë", "日本語", "テキスト", "中文", "emoji😀", "rocket🚀",
    "path\\to\\file", "say", '"hi"', "tab\tsep", "line\nbreak",
)  # fmt: skip


def _words(rng: random.Random, size: int) -> str:
    """Random words from _WORDS, about `size` characters."""
    out: list[str] = []
    length = 0
    while length < size:
        out.append(rng.choice(_WORDS) + ("\n" if rng.random() < 0.08 else ""))
        length += len(out[-1]) + 1
    return " ".join(out)[:size]


def _fit(text: str, size: int, ensure_ascii: bool) -> str:
    """`text` cut so its JSON form takes at most about `size` UTF-8 bytes."""
    while len(json.dumps(text, ensure_ascii=ensure_ascii).encode()) > size:
        text = text[: int(len(text) * 0.97)]
    return text


def _record(rng: random.Random, i: int) -> dict[str, Any]:
    return {
        "id": i,
        "name": f"item-{i}-{rng.choice(_WORDS)}",
        "score": round(rng.uniform(-1e3, 1e3), 4),
        "ratio": rng.random(),
        "active": rng.random() < 0.5,
        "tags": [rng.choice(_WORDS) for _ in range(rng.randint(0, 4))],
        "meta": {"owner": {"name": "Zoë", "roles": ["admin", "dev"]}, "limits": {"mem": 1.5e9, "deep": [1, None]}},
        "description": _words(rng, rng.randint(40, 400)),
        "matrix": [[rng.randint(0, 99) for _ in range(3)] for _ in range(2)],
        "nothing": None,
    }


def make_text(size: int, seed: int = 1234) -> str:
    """About `size` UTF-8 bytes: half records, a third raw-unicode `content`, the rest `\\uXXXX` `notes`."""
    rng = random.Random(seed)
    records: list[str] = []
    length = 0
    while length < size // 2:
        records.append(json.dumps(_record(rng, len(records)), ensure_ascii=False))
        length += len(records[-1].encode()) + 2
    head = f'{{"path": "/srv/проект/file_ü.py", "records": [{", ".join(records)}]'
    content = json.dumps(_fit(_words(rng, size * 35 // 100), size * 35 // 100, False), ensure_ascii=False)
    notes = json.dumps(_fit(_words(rng, size * 15 // 100), size * 15 // 100, True))  # \uXXXX escapes
    text = f'{head}, "content": {content}, "notes": {notes}, "done": true, "count": 12345}}'
    json.loads(text)
    return text


def make_fragments(text: str, seed: int = 99) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    i = 0
    while i < len(text):
        k = rng.randint(4, 20)
        out.append(text[i : i + k])
        i += k
    return out


def feed_all(fragments: list[str]) -> Any:
    parser = IncrementalJsonParser()
    for fragment in fragments:
        parser.feed(fragment)
    return parser.value()


def feed_and_read_each(fragments: list[str]) -> Any:
    parser = IncrementalJsonParser()
    value = None
    for fragment in fragments:
        parser.feed(fragment)
        value = parser.value()
    return value


def jiter_reparse_each(fragments: list[str]) -> Any:
    buffer = b""
    value = None
    for fragment in fragments:
        buffer += fragment.encode()
        value = jiter.from_json(buffer, partial_mode="trailing-strings")
    return value


def json_loads_at_end(fragments: list[str]) -> Any:
    return json.loads("".join(fragments))


def measure(strategy: Callable[[list[str]], Any], fragments: list[str], expected: Any, repeat: int) -> float:
    """Median seconds over `repeat` runs, GC on as in real use."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = strategy(fragments)
        times.append(time.perf_counter() - start)
        assert result == expected
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per cell; the median is shown")
    args = parser.parse_args()
    # jiter re-parsing is quadratic: one run at 100 KB takes about a second, at 1 MB about three minutes.
    strategies: list[tuple[str, Callable[[list[str]], Any], tuple[str, ...], int]] = [
        ("(a) incremental, value() once at end", feed_all, ("100KB", "1MB"), args.repeat),
        ("(b) incremental, value() after every fragment", feed_and_read_each, ("100KB", "1MB"), args.repeat),
        ("(c) jiter re-parse after every fragment", jiter_reparse_each, ("100KB",), 1),
        ("(d) json.loads once at end (floor)", json_loads_at_end, ("100KB", "1MB"), args.repeat),
    ]
    streams: dict[str, tuple[list[str], Any, int]] = {}
    for label, size in (("100KB", 100_000), ("1MB", 1_000_000)):
        text = make_text(size)
        streams[label] = (make_fragments(text), json.loads(text), len(text.encode()))
        print(f"{label}: {len(text.encode()):,} bytes, {len(text):,} chars, {len(streams[label][0]):,} fragments")
    print()
    print(
        f"| {'strategy':<46} | {'100KB total':>11} | {'µs/frag':>7} | {'1MB total':>11} | {'µs/frag':>7} "
        f"| {'ns/byte':>7} | 1MB/100KB |"
    )
    print(f"|{'-' * 48}|{'-' * 12}:|{'-' * 8}:|{'-' * 12}:|{'-' * 8}:|{'-' * 8}:|{'-' * 10}:|")
    for name, strategy, labels, repeat in strategies:
        cells: list[str] = []
        seconds: dict[str, float] = {}
        for label, (fragments, expected, _size) in streams.items():
            if label not in labels:
                cells.append(f"{'not run':>11} | {'':>7}")
                continue
            seconds[label] = measure(strategy, fragments, expected, repeat)
            cells.append(f"{seconds[label] * 1e3:>8.1f} ms | {seconds[label] / len(fragments) * 1e6:>7.2f}")
        last = list(seconds)[-1]
        per_byte = f"{seconds[last] / streams[last][2] * 1e9:>7.0f}"
        ratio = f"{seconds['1MB'] / seconds['100KB']:>9.1f}" if len(seconds) == 2 else f"{'':>9}"
        print(f"| {name:<46} | {' | '.join(cells)} | {per_byte} | {ratio} |")


if __name__ == "__main__":
    main()
