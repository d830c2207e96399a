"""Errors of declarative HTTP targets, layered by who is at fault.

```
ToolwireError
├── ConfigurationError
│   └── TargetConfigError         the host's configuration or a declaration file is wrong
├── TargetError                   one target call failed; the message is redacted and shown to the model
│   ├── TargetReferenceError      a `${...}` reference is missing or cannot go where it is used
│   ├── UnsafeRequestError        a value would change the request's structure (CR/LF, `..`, origin)
│   ├── EgressBlocked             the SSRF guard refused the destination
│   ├── TargetTimeout             connect, read or total deadline passed
│   ├── TargetConnectionError     the destination could not be reached
│   ├── TargetRedirectError       a redirect the guard will not follow
│   ├── TargetHTTPError           the handler answered a non-2xx status (its `code` and `error` kept)
│   ├── TargetResponseError       the handler's answer breaks the answer contract
│   └── CardError                 an action card cannot be shown, or was dismissed
│       └── PressRequired         resumed without a press of its card (also a runtime ResumeRefused)
└── PressError                    a button press was refused (`reason` says why); for the host only
```

Creation-time problems are `toolwire.exceptions.ToolDefinitionError`, naming the tool and the
field; `TargetSpecError` is the internal form they are raised from.
"""

from __future__ import annotations

from typing import Literal

from toolwire.exceptions import ConfigurationError, ToolwireError
from toolwire.runtime.suspension import ResumeRefused


class TargetSpecError(ValueError):
    """A target declaration is invalid at `field` (a dotted path below `target`)."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"`{field}` {problem}" if field else problem)

    def under(self, prefix: str) -> TargetSpecError:
        """The same problem, located below `prefix`."""
        return TargetSpecError(f"{prefix}.{self.field}" if self.field else prefix, self.problem)


class TargetConfigError(ConfigurationError, ValueError):
    """The host's target configuration, or a tool declaration file, is invalid."""


class TargetError(ToolwireError):
    """A target call failed; the message never contains a secret and is meant for the model."""


class TargetReferenceError(TargetError, LookupError):
    """A reference has no value, or a value that cannot be used where it appears."""

    def __init__(self, reference: str, problem: str) -> None:
        self.reference = reference
        super().__init__(f"`{reference}` {problem}; no request was sent")


class UnsafeRequestError(TargetError, ValueError):
    """A resolved value would change the request's method, origin, path structure or headers."""


class EgressBlocked(TargetError):
    """The destination is not one a target may reach (private, loopback, link-local, metadata...)."""


class TargetTimeout(TargetError):
    """The request did not complete in time."""


class TargetConnectionError(TargetError, ConnectionError):
    """The destination could not be reached."""


class TargetRedirectError(TargetError):
    """The handler redirected somewhere the guard does not follow."""


class TargetHTTPError(TargetError):
    """The handler answered with a non-2xx status."""

    def __init__(self, status: int, code: str | None, error: str | None) -> None:
        self.status = status
        self.code = code
        self.error = error
        label = f"HTTP {status}" + (f" ({code})" if code else "")
        super().__init__(f"the handler answered {label}" + (f": {error}" if error else ""))


class TargetResponseError(TargetError, ValueError):
    """The handler's answer does not follow the answer contract."""


class CardError(TargetError):
    """An `action_required` card cannot be shown here, or its user dismissed it."""


class PressRequired(CardError, ResumeRefused):
    """A suspended target call was resumed with something other than a press of its card; it stays suspended."""


PressRefusal = Literal[
    "no_card",
    "not_a_target_tool",
    "stale_card",
    "not_thread",
    "wrong_thread",
    "not_assignee",
    "unknown_button",
    "expired",
    "in_progress",
    "bad_signature",
]


class PressError(ToolwireError):
    """A button press was refused; `reason` is a stable code a UI endpoint can map to a status."""

    def __init__(self, reason: PressRefusal, message: str) -> None:
        self.reason: PressRefusal = reason
        super().__init__(message)
