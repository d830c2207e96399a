"""Shared fixtures: the seed's shop tools, a local sandbox, and a helper that runs one program."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import Tool, create_tool
from toolwire.codemode import CodeModeToolResult, LocalSandbox, create_code_mode
from toolwire.runtime import execute_tool

SANDBOX = LocalSandbox()


class Product(BaseModel):
    id: str
    name: str
    totalSales: float


class TopProducts(BaseModel):
    products: list[Product]


class Rating(BaseModel):
    score: float


class Ratings(BaseModel):
    ratings: list[Rating]


class LimitInput(BaseModel):
    limit: int


class ProductInput(BaseModel):
    productId: str


CATALOG = {
    "p1": ("Kettle", 120.0, [5, 4]),
    "p2": ("Toaster", 95.0, [2, 3]),
    "p3": ("Blender", 80.0, [5, 5]),
}


def top_products(input: LimitInput) -> dict[str, Any]:
    items = [{"id": k, "name": v[0], "totalSales": v[1]} for k, v in CATALOG.items()]
    return {"products": items[: input.limit]}


async def product_ratings(input: ProductInput) -> dict[str, Any]:
    return {"ratings": [{"score": s} for s in CATALOG[input.productId][2]]}


def shop_tools() -> dict[str, Tool]:
    """The seed's two tools, with pydantic schemas (what `zod` is in the seed)."""
    return {
        "getTopProducts": create_tool(
            id="getTopProducts",
            description="Get top selling products",
            input_schema=LimitInput,
            output_schema=TopProducts,
            execute=top_products,
        ),
        "getProductRatings": create_tool(
            id="getProductRatings",
            description="Get ratings for a product",
            input_schema=ProductInput,
            output_schema=Ratings,
            execute=product_ratings,
        ),
    }


Runner = Callable[..., Awaitable[CodeModeToolResult]]


async def run_code(code: str, tools: Mapping[str, Tool] | None = None, **options: Any) -> CodeModeToolResult:
    """Create a code-mode tool on the local sandbox and run one program through `execute_tool`."""
    options.setdefault("sandbox", SANDBOX)
    code_mode = create_code_mode(dict(tools or {}), **options)
    result = await execute_tool(
        code_mode.tool, {"toolCallId": "call-1", "toolName": code_mode.tool.id, "input": {"code": code}}
    )
    assert isinstance(result.raw, CodeModeToolResult), result.output
    return result.raw


@pytest.fixture
def run() -> Runner:
    """`await run(code, tools, **create_code_mode_options)` -> CodeModeToolResult."""
    return run_code


@pytest.fixture
def shop() -> dict[str, Tool]:
    return shop_tools()


@pytest.fixture
def sandbox() -> LocalSandbox:
    return SANDBOX


@pytest.fixture
def needs_filesystem_isolation() -> None:
    if not SANDBOX.isolation().filesystem:
        pytest.skip("this kernel has no Landlock (Linux 5.13+), so LocalSandbox cannot isolate files")


@pytest.fixture
def needs_network_isolation() -> None:
    if not SANDBOX.isolation().network:
        pytest.skip("neither network namespaces nor seccomp are available on this machine")


@pytest.fixture
def needs_process_isolation() -> None:
    if not SANDBOX.isolation().processes:
        pytest.skip("seccomp is not available here (it needs Linux on x86-64 or AArch64)")
