"""The JSON lexical grammar the incremental parser scans with: strings, escapes, numbers, literals.

Each pattern matches the longest valid prefix, so a token cut between two fragments is told
apart from a malformed one.
"""

from __future__ import annotations

import re
from typing import Any, Final

MISSING: Any = object()
"""No value (yet): a number that does not parse, a leaf still incomplete."""

NON_WS = re.compile(r"[^ \t\n\r]")
WS_CHARS = " \t\n\r"
# Plain characters and complete escapes; stops at the closing quote, a partial or bad escape, or a control character.
STRING_RUN = re.compile(r'(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+')
ESCAPE_PREFIX = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
# The longest valid number prefix; the name of the last group matched says where the number stands.
NUMBER_PREFIX = re.compile(
    r"(?P<minus>-)?(?:(?:(?P<zero>0)|(?P<int>[1-9][0-9]*))"
    r"(?:(?P<dot>\.)(?:(?P<frac>[0-9]+)(?:(?P<e1>[eE])(?P<s1>[+-])?(?P<x1>[0-9]+)?)?)?"
    r"|(?P<e2>[eE])(?P<s2>[+-])?(?P<x2>[0-9]+)?)?)?"
)
# A short number in the same grammar state, so a number split across fragments is checked without its head.
NUMBER_STAND_IN: Final = {
    "minus": "-", "zero": "0", "int": "1", "dot": "0.", "frac": "0.0",
    "e1": "0.0e", "s1": "0.0e+", "x1": "0.0e0", "e2": "0e", "s2": "0e+", "x2": "0e0",
}  # fmt: skip
WHOLE_NUMBER: Final = frozenset({"zero", "int", "frac", "x1", "x2"})
INTEGER: Final = frozenset({"zero", "int"})
LITERALS: Final[dict[str, tuple[str, Any]]] = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}


def ends_with_high_surrogate(text: str, start: int, stop: int) -> bool:
    """Whether text[start:stop], a run of whole escapes and a backslash 6 from the end, ends with a high surrogate."""
    i = stop - 6
    if text[i + 1] != "u" or text[i + 2] not in "dD" or text[i + 3] not in "89abAB":
        return False
    # An escaped backslash followed by plain "ud83d" looks the same; count the backslashes before it.
    j = i
    while j > start and text[j - 1] == "\\":
        j -= 1
    return (i - j) % 2 == 0


def to_number(number: str, kind: str | None) -> Any:
    try:
        return int(number) if kind in INTEGER else float(number)
    except ValueError:  # an integer over sys.get_int_max_str_digits(), as json.loads also refuses
        return MISSING
