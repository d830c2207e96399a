"""Code mode: the model writes one Python program that calls many tools; it runs in a sandbox.

```python
from toolwire.codemode import LocalSandbox, create_code_mode

code_mode = create_code_mode({"getTopProducts": top, "getProductRatings": ratings}, sandbox=LocalSandbox())
code_mode.tool          # register it: input {"code": str}, output CodeModeToolResult
code_mode.instructions  # add to the system prompt: usage contract, isolation, typed stubs
```

Each `external_<name>(input)` call in the program travels as a JSON-RPC frame over a
dedicated pipe to the host, which runs the real tool with `toolwire.runtime.execute_tool`
and answers with the model-facing output (after `to_model_output`), never the raw one.
Only configured tools can be called and only JSON crosses the boundary. See `local` for what
`LocalSandbox` enforces and what it does not protect against, and `protocol` for the wire.
"""

from __future__ import annotations

from ._bridge import Approve
from ._names import CodeModeNameError
from .factory import CodeModeResult, create_code_mode, create_code_mode_instructions, create_code_mode_tool
from .isolation import GUARANTEES, Guarantee, Isolation, IsolationError
from .limits import Limits
from .local import LocalSandbox, SandboxStartError
from .results import CallRecord, CodeModeError, CodeModeToolResult
from .runner import runner_command
from .transport import Channel, CodeModeSandbox, CodeModeTransport, CommandTransport, SandboxTransport

__all__ = [
    "GUARANTEES",
    "Approve",
    "CallRecord",
    "Channel",
    "CodeModeError",
    "CodeModeNameError",
    "CodeModeResult",
    "CodeModeSandbox",
    "CodeModeToolResult",
    "CodeModeTransport",
    "CommandTransport",
    "Guarantee",
    "Isolation",
    "IsolationError",
    "Limits",
    "LocalSandbox",
    "SandboxStartError",
    "SandboxTransport",
    "create_code_mode",
    "create_code_mode_instructions",
    "create_code_mode_tool",
    "runner_command",
]
