"""Specification of the adapter registry: entry points, in-process registration, lookups and instance caching."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import toolwire
from toolwire import AdapterNotFound, ConfigurationError, registry
from toolwire.adapter import Adapter


class _Settings(Adapter):
    """An adapter that only remembers its settings (its abstract methods are never called here)."""

    api = "test-registry"
    provider = "test"

    def __init__(self, **settings: Any) -> None:
        self.settings = settings

    def encode_tool(self, *args: Any) -> dict[str, Any]:
        raise NotImplementedError

    def build_fragment(self, *args: Any) -> dict[str, Any]:
        raise NotImplementedError

    def new_decoder(self) -> Any:
        raise NotImplementedError


class _Other(_Settings):
    """A second adapter class, to tell replacements apart."""


@pytest.fixture(autouse=True)
def isolated_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test are undone after it."""
    monkeypatch.setattr(registry, "_registered", dict(registry._registered))
    monkeypatch.setattr(registry, "_instances", dict(registry._instances))


class TestListing:
    def test_the_four_in_tree_adapters_are_listed_from_entry_points(self) -> None:
        """The built-in adapters register through the same entry-point group as third parties."""
        assert {"anthropic", "gemini", "openai-chat", "openai-responses"} <= set(toolwire.list_adapters())

    def test_listing_imports_no_adapter_module_nor_sdk(self) -> None:
        """Entry points are listed by name; no adapter or provider SDK is imported until asked for."""
        code = (
            "import sys, toolwire; toolwire.list_adapters(); "
            "print([m for m in sys.modules if m.startswith('toolwire.adapters.') "
            "or m.split('.')[0] in ('openai', 'anthropic') or m.startswith('google.genai')])"
        )
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert result.stdout.strip() == "[]"

    def test_an_in_process_registration_is_listed_sorted(self) -> None:
        """Registered names join the entry points in one sorted list."""
        toolwire.register_adapter("aaa-first", _Settings)
        names = toolwire.list_adapters()
        assert names[0] == "aaa-first"
        assert names == sorted(names)


class TestLookup:
    def test_an_unknown_api_lists_the_known_ones_and_suggests_a_close_one(self) -> None:
        """A typo gets a did-you-mean and the full list."""
        with pytest.raises(AdapterNotFound) as caught:
            toolwire.get_adapter("openai-chta")
        error = caught.value
        assert error.api == "openai-chta"
        assert error.known == tuple(toolwire.list_adapters())
        assert str(error).startswith("no adapter for api 'openai-chta' (did you mean 'openai-chat'?); known apis: ")
        assert "anthropic" in str(error)

    def test_an_unknown_api_with_nothing_close_has_no_suggestion(self) -> None:
        """No misleading guess when nothing is similar."""
        with pytest.raises(AdapterNotFound) as caught:
            toolwire.get_adapter("zzzzzz")
        assert "did you mean" not in str(caught.value)
        assert isinstance(caught.value, LookupError)

    def test_a_registered_adapter_is_returned_configured(self) -> None:
        """Settings are passed to the factory."""
        toolwire.register_adapter("test-registry", _Settings)
        adapter = toolwire.get_adapter("test-registry", profile="groq")
        assert isinstance(adapter, _Settings)
        assert adapter.settings == {"profile": "groq"}

    def test_the_same_settings_share_one_instance_and_different_settings_do_not(self) -> None:
        """Instances are cached per (api, settings), so per-tool encoding caches are reused."""
        toolwire.register_adapter("test-registry", _Settings)
        first = toolwire.get_adapter("test-registry", profile="groq", strict=True)
        assert toolwire.get_adapter("test-registry", strict=True, profile="groq") is first
        assert toolwire.get_adapter("test-registry", profile="together", strict=True) is not first
        assert toolwire.get_adapter("test-registry") is not first

    def test_a_setting_with_a_dict_value_configures_the_adapter(self) -> None:
        """Settings such as extra headers are dicts; they must reach the factory."""
        toolwire.register_adapter("test-registry", _Settings)
        adapter = toolwire.get_adapter("test-registry", headers={"x-team": "a"})
        assert isinstance(adapter, _Settings)
        assert adapter.settings == {"headers": {"x-team": "a"}}

    def test_a_factory_that_returns_something_else_is_refused(self) -> None:
        """Only Adapter instances can serve an api."""
        toolwire.register_adapter("test-registry", lambda **settings: object())  # type: ignore[arg-type]  # the mistake under test
        with pytest.raises(ConfigurationError, match=r"^the adapter registered for 'test-registry' is not a toolwire"):
            toolwire.get_adapter("test-registry")


class TestRegistration:
    def test_a_name_cannot_be_registered_twice(self) -> None:
        """A second registration under one name is refused unless asked for."""
        toolwire.register_adapter("test-registry", _Settings)
        with pytest.raises(ConfigurationError, match=r"^an adapter is already registered for api 'test-registry'$"):
            toolwire.register_adapter("test-registry", _Other)

    def test_an_entry_point_name_cannot_be_taken_without_replace(self) -> None:
        """The in-tree names are protected from accidental shadowing."""
        with pytest.raises(ConfigurationError, match=r"^an adapter is already registered for api 'gemini'$"):
            toolwire.register_adapter("gemini", _Settings)

    def test_replace_swaps_the_adapter_and_drops_cached_instances(self) -> None:
        """After a replacement, lookups build the new adapter."""
        toolwire.register_adapter("test-registry", _Settings)
        before = toolwire.get_adapter("test-registry")
        toolwire.register_adapter("test-registry", _Other, replace=True)
        after = toolwire.get_adapter("test-registry")
        assert type(before) is _Settings
        assert type(after) is _Other

    def test_replace_can_shadow_an_entry_point(self) -> None:
        """A test or a fork may stand in for an in-tree adapter."""
        toolwire.register_adapter("gemini", _Settings, replace=True)
        assert type(toolwire.get_adapter("gemini")) is _Settings

    def test_registered_factories_is_a_read_only_view(self) -> None:
        """The registry cannot be edited through the view."""
        toolwire.register_adapter("test-registry", _Settings)
        view = registry.registered_factories()
        assert view["test-registry"] is _Settings
        with pytest.raises(TypeError):
            view["x"] = _Settings  # type: ignore[index]  # the mutation under test
