"""Which SDK client an adapter was given, and whether it is the sync or the async one.

Read from the client's classes (their module and name), so no SDK is imported to check: a
client of another provider's SDK, `None`, or an object without the method the adapter calls
is refused with an error naming the argument and what it takes. An object that is not an SDK
client but has the method (a test double) is accepted: sync or async by that method.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Literal

from .exceptions import ArgumentError

ClientMode = Literal["sync", "async", "both"]

_SDK_PACKAGES = {"openai": "openai", "anthropic": "anthropic", "google.genai": "google-genai"}


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSpec:
    """The SDK client an adapter drives."""

    package: str
    """The SDK's import name, e.g. `"openai"`, `"google.genai"`."""
    expected: str
    """How to name the accepted clients in an error, e.g. `"an openai.OpenAI or openai.AsyncOpenAI client"`."""
    sync_classes: tuple[str, ...] = ()
    """Class names (anywhere in the client's MRO, defined in the package) of sync clients."""
    async_classes: tuple[str, ...] = ()
    """Class names of async clients."""
    both_classes: tuple[str, ...] = ()
    """Class names of clients that serve both (google-genai's `Client`, with `.aio`)."""
    method: str = ""
    """The dotted path of the method the adapter calls, e.g. `"chat.completions.create"`."""


def client_mode(api: str, spec: ClientSpec | None, client: Any) -> ClientMode:
    """Whether `client` is sync, async or both for this api.

    Raises:
        ArgumentError: `client` is None, belongs to another SDK, or lacks the method the adapter calls.
    """
    expected = spec.expected if spec is not None else "an SDK client"
    if client is None:
        raise ArgumentError("client", f"{expected} for api {api!r}", None)
    if spec is None:
        return "both"
    owner = _sdk_of(client)
    if owner is not None and owner != spec.package:
        raise ArgumentError(
            "client",
            f"{spec.expected} for api {api!r}",
            detail=f"got a client of {_pip_name(owner)} ({_class_name(client)}); use an api of that SDK, "
            f"or a client of {_pip_name(spec.package)}",
        )
    if owner == spec.package:
        names = {cls.__name__ for cls in type(client).__mro__ if _in_package(cls.__module__, spec.package)}
        for mode, classes in (("both", spec.both_classes), ("sync", spec.sync_classes), ("async", spec.async_classes)):
            if names.intersection(classes):
                return mode  # type: ignore[return-value]  # the loop's literals
    return _by_method(api, spec, client)


def _by_method(api: str, spec: ClientSpec, client: Any) -> ClientMode:
    target: Any = client
    for name in spec.method.split("."):
        target = getattr(target, name, None)
        if target is None:
            raise ArgumentError(
                "client",
                f"{spec.expected} for api {api!r}",
                detail=f"got {_class_name(client)}, which has no `{spec.method}`",
            )
    return "async" if inspect.iscoroutinefunction(target) else "sync"


def _sdk_of(client: Any) -> str | None:
    module = type(client).__module__
    return next((p for p in _SDK_PACKAGES if _in_package(module, p)), None)


def _in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _pip_name(package: str) -> str:
    return _SDK_PACKAGES.get(package, package)


def _class_name(client: Any) -> str:
    cls = type(client)
    return f"{cls.__module__}.{cls.__qualname__}"


def wrong_mode_message(api: str, mode: ClientMode, method: str) -> str:
    """Why a run method cannot drive this client, and which one can."""
    if mode == "async":
        return (
            f"the {api} client is an async client, so `{method}` (sync) cannot drive it: use `await agent.arun(...)` "
            "or `agent.astream(...)`, or give the agent the SDK's sync client"
        )
    return (
        f"the {api} client is a sync client, so `{method}` (async) cannot drive it: use `agent.run(...)` or "
        "`agent.stream(...)`, or give the agent the SDK's async client"
    )
