"""Properties that hold for any input: the request keeps its origin, its shape and its headers."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx2
from hypothesis import given, settings
from hypothesis import strategies as st

import toolwire.targets
from toolwire import create_tool
from toolwire.targets import TargetHost, TargetReferenceError, UnsafeRequestError, binding_of
from toolwire.targets._addresses import numeric_host
from toolwire.targets._context import ToolInvocation
from toolwire.targets._redact import Redactor
from toolwire.targets._request import PreparedRequest, prepare
from toolwire.targets._spec import HttpSpec

HOST = TargetHost(components={"api": "https://api.example.com/v1"}, env={"KEY": "k-1"}, identity_token="tok")
TOOL = create_tool(
    id="p",
    description="d",
    target={
        "type": "app",
        "component": "api",
        "path": "/a/${input.x}/b",
        "method": "POST",
        "query": {"q": "${input.x}"},
        "headers": {"X-Value": "${input.x}"},
        "body": {"v": "${input.x}", "text": "<${input.x}>"},
    },
    target_host=HOST,
)
_binding = binding_of(TOOL)
SPEC = _binding.spec if _binding is not None else None
assert isinstance(SPEC, HttpSpec)


def _prepare(value: Any) -> PreparedRequest:
    async def run() -> PreparedRequest:
        assert isinstance(SPEC, HttpSpec)
        return await prepare(
            SPEC,
            value,
            host=HOST,
            redactor=Redactor(),
            tool_id="p",
            request_context=None,
            invocation=ToolInvocation("api"),
        )

    return asyncio.run(run())


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.text(), st.integers(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False)))
def test_no_input_changes_origin_path_shape_headers_or_body_structure(value: Any) -> None:
    """Any scalar input is refused before sending, or lands exactly in its three slots."""
    try:
        request = _prepare({"x": value})
    except (UnsafeRequestError, TargetReferenceError):
        return
    split = urlsplit(request.url)
    parsed = httpx2.URL(request.url)
    segments = split.path.split("/")
    assert (split.hostname, parsed.host, split.port, parsed.port) == ("api.example.com", "api.example.com", None, None)
    assert (len(segments), segments[:3], segments[4]) == (5, ["", "v1", "a"], "b")
    text = value if isinstance(value, str) else json.dumps(value)
    assert unquote(segments[3]) == text
    assert (split.query.count("&"), unquote(split.query)) == (0, f"q={text}")
    header_names = [name.lower() for name, _ in request.headers]
    assert len(header_names) == len(set(header_names))
    assert dict(request.headers)["X-Value"] == text
    assert json.loads(request.body or b"") == {"v": value, "text": f"<{text}>"}


@given(number=st.integers(min_value=0, max_value=2**32 - 1))
def test_every_decimal_spelling_of_an_ipv4_address_is_recognized(number: int) -> None:
    """`2130706433` is 127.0.0.1: whole-number hosts are addresses, as the C resolver reads them."""
    assert int(numeric_host(str(number)) or -1) == number


@given(parts=st.lists(st.integers(min_value=0, max_value=255), min_size=4, max_size=4))
def test_octal_and_hex_spellings_agree_with_decimal(parts: list[int]) -> None:
    """`0177.0.0.1`, `0x7f.0.0.1` and `127.0.0.1` are one address."""
    octal = ".".join(f"0{p:o}" for p in parts)
    hexa = ".".join(f"0x{p:x}" for p in parts)
    decimal = ".".join(str(p) for p in parts)
    assert numeric_host(octal) == numeric_host(hexa) == numeric_host(decimal)


def test_every_public_name_exists() -> None:
    """`from toolwire.targets import *` cannot fail (ruff's RUF022 keeps the list sorted)."""
    names = toolwire.targets.__all__
    assert ([n for n in names if not hasattr(toolwire.targets, n)], len(set(names)) == len(names)) == ([], True)


def test_importing_toolwire_does_not_load_targets_or_httpx2() -> None:
    """Targets (and their HTTP client) load only when a tool is created with a target."""
    code = "import sys, toolwire; print(sorted(m for m in ('toolwire.targets', 'httpx2') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
