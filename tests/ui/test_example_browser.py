"""The example app (examples/ui_chat) in headless Chromium: a real useChat page against toolwire.ui.

The page is bundled from the pinned npm packages with esbuild (no CDN), the FastAPI app runs the
offline demo agent on 127.0.0.1, and playwright-core drives Debian's Chromium through the demo:
streamed text, the tool calls with their output and the chart image, Approve, the finish.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from .conftest import Node

EXAMPLE = Path(__file__).parents[2] / "examples" / "ui_chat"
CHROMIUM = "/usr/bin/chromium"


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("ui_chat_example", EXAMPLE / "app.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def example_url(node: Node, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The example app with a freshly built bundle, served by uvicorn on 127.0.0.1."""
    static = tmp_path_factory.mktemp("static")
    modules = node.folder / "node_modules"
    build = ["node", str(EXAMPLE / "build.mjs"), "--modules", str(modules), "--out", str(static / "app.js")]
    subprocess.run(build, check=True, timeout=120, capture_output=True)
    app = load_example().create_app("anthropic", static=static)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", timeout_graceful_shutdown=1)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        threading.Event().wait(0.01)
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}/"
    server.should_exit = True
    thread.join(5)


def test_the_example_pins_the_packages_the_tests_use() -> None:
    """The example's package.json pins the same versions as the test harness."""
    example = json.loads((EXAMPLE / "package.json").read_text())["dependencies"]
    harness = json.loads((Path(__file__).parent / "node" / "package.json").read_text())["dependencies"]
    assert {name: harness[name] for name in example} == example


def test_the_demo_runs_in_a_real_browser(node: Node, example_url: str) -> None:
    """Send, see the text stream in, the chart's output and image, approve the weather call, see the finish."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    seen = node.run("browser.mjs", {"url": example_url, "chromium": CHROMIUM}, timeout=180)
    assert seen.get("failure") is None, seen
    assert seen["steps"] == ["sent", "approved", "finished"]
    assert seen["streamedText"].startswith("I'll get the current weather in Paris")
    assert seen["chartOutput"].startswith('output: "iVBORw0KGgo')
    assert (seen["imageLoaded"], seen["imageSource"]) == (True, "data:image/png;base64,iVBORw0K")
    assert seen["weatherStateBefore"] == "approval-requested"
    assert seen["weatherOutput"] == 'output: {"city":"Paris","temperature":18,"unit":"celsius","conditions":"sunny"}'
    assert seen["finished"] == "finished: stop · 1308 tokens"
    assert seen["texts"][-1].startswith("It's currently **18°C and sunny** in Paris.")
    assert seen["assistantMessages"] == 1
    assert seen["consoleErrors"] == []
