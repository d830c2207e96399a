"""Adapters by api name, from the `toolwire.adapters` entry-point group (in-tree ones included).

Entry points are listed without importing anything; an adapter's module (and its provider
SDK, if it needs one) is imported only when that adapter is asked for.
"""

from __future__ import annotations

import difflib
import json
import threading
from collections.abc import Callable
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any

from .adapter import Adapter
from .exceptions import AdapterNotFound, ConfigurationError

ENTRY_POINT_GROUP = "toolwire.adapters"

AdapterFactory = Callable[..., Adapter]

_registered: dict[str, AdapterFactory] = {}
_instances: dict[tuple[str, str], Adapter] = {}
_lock = threading.Lock()


def _entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def register_adapter(api: str, factory: AdapterFactory, *, replace: bool = False) -> None:
    """Register an adapter class (or factory) in this process, beside the entry points.

    Raises:
        ConfigurationError: the name is taken and `replace` is False.
    """
    with _lock:
        if not replace and (api in _registered or api in _entry_points()):
            raise ConfigurationError(f"an adapter is already registered for api {api!r}")
        _registered[api] = factory
        for key in [k for k in _instances if k[0] == api]:
            del _instances[key]


def unregister_adapter(api: str) -> None:
    """Forget an adapter registered in this process (entry points stay).

    Raises:
        KeyError: no adapter was registered in-process under that name.
    """
    with _lock:
        del _registered[api]
        for key in [k for k in _instances if k[0] == api]:
            del _instances[key]


def list_adapters() -> list[str]:
    """Every api name an adapter is registered for, sorted."""
    return sorted({*_entry_points(), *_registered})


def registered_factories() -> MappingProxyType[str, AdapterFactory]:
    """A read-only view of the adapters registered in-process."""
    return MappingProxyType(_registered)


def get_adapter(api: str, **settings: Any) -> Adapter:
    """The adapter for an api name, configured with `settings` (instances are shared).

    Raises:
        AdapterNotFound: no adapter has that name; the message lists the known ones.
    """
    key = (api, json.dumps(settings, sort_keys=True, default=repr))
    cached = _instances.get(key)
    if cached is not None:
        return cached
    factory = _registered.get(api)
    if factory is None:
        entry = _entry_points().get(api)
        if entry is None:
            known = list_adapters()
            close = difflib.get_close_matches(api, known, n=1)
            raise AdapterNotFound(api, known, close[0] if close else None)
        factory = entry.load()
    adapter = factory(**settings)
    if not isinstance(adapter, Adapter):
        raise ConfigurationError(f"the adapter registered for {api!r} is not a toolwire Adapter")
    with _lock:
        _instances[key] = adapter
    return adapter
