"""Specification of errors on misuse: each names the argument and what it takes, raised at once.

Covers a sync/async client given to the wrong run method, `client=None`, another SDK's client,
`encode_messages("hello")`, and call dicts without `toolCallId` — each used to surface as an
AttributeError, KeyError or TypeError deep inside, or as an empty answer.
"""

from __future__ import annotations

import re
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import types

from toolwire import Agent, create_tool, get_adapter
from toolwire.exceptions import ArgumentError, ConfigurationError
from toolwire.messages import AssistantMessage, ReasoningPart, TextPart, user
from toolwire.runtime import Toolbox, execute_tool
from toolwire.testing.capture import RequestCapture
from toolwire.testing.scripted import SCRIPTED_CLIENT, ScriptedAdapter

from ._four_apis import text_reply

ECHO = create_tool(id="echo", description="Echo.", execute=lambda value: value)
OPENAI_CLIENTS = "an openai.OpenAI or openai.AsyncOpenAI client (or an Azure one)"


def _agent(api: str, client: Any) -> Agent:
    return Agent(api=api, client=client, model="m", tools=[ECHO])


class TestClientKinds:
    @pytest.mark.parametrize(
        ("api", "client"),
        [
            ("openai-chat", openai.AsyncOpenAI(api_key="k")),
            ("openai-responses", openai.AsyncAzureOpenAI(api_key="k", api_version="v", azure_endpoint="https://x")),
            ("anthropic", anthropic.AsyncAnthropic(api_key="k")),
        ],
    )
    def test_an_async_client_given_to_run_says_to_use_arun(self, api: str, client: Any) -> None:
        """Refused before any request, with the method to use instead."""
        with pytest.raises(
            ConfigurationError,
            match=r"is an async client, so `stream` \(sync\) cannot drive it: use `await agent\.arun",
        ):
            _agent(api, client).run("hi")

    @pytest.mark.parametrize(
        ("api", "client"),
        [("openai-chat", openai.OpenAI(api_key="k")), ("anthropic", anthropic.Anthropic(api_key="k"))],
    )
    async def test_a_sync_client_given_to_arun_says_to_use_run(self, api: str, client: Any) -> None:
        """The mirror case used to raise a raw TypeError from inside the SDK call."""
        with pytest.raises(
            ConfigurationError, match=r"is a sync client, so `astream` \(async\) cannot drive it: use `agent\.run"
        ):
            await _agent(api, client).arun("hi")

    def test_the_stream_methods_refuse_when_called_not_when_iterated(self) -> None:
        """`agent.stream(...)` with the wrong client fails on the call itself."""
        agent = _agent("anthropic", anthropic.AsyncAnthropic(api_key="k"))
        with pytest.raises(ConfigurationError, match=r"use `await agent\.arun"):
            agent.stream("hi")
        assert agent.messages == []

    def test_a_gemini_client_serves_both_kinds(self) -> None:
        """google-genai's `Client` runs sync and, through `.aio`, async."""
        agent = _agent("gemini", genai.Client(api_key="k"))
        agent.check_mode("run", asynchronous=False)
        agent.check_mode("arun", asynchronous=True)

    def test_the_async_side_of_a_gemini_client_is_an_async_client(self) -> None:
        """`client.aio` given as the client: `run` is refused with the method to use."""
        with pytest.raises(ConfigurationError, match=r"is an async client, so `stream` \(sync\) cannot drive it"):
            _agent("gemini", genai.Client(api_key="k").aio).run("hi")

    async def test_the_async_side_of_a_gemini_client_runs_arun(self) -> None:
        """`client.aio` is called as it is (it has no `.aio` of its own: that was an AttributeError)."""
        capture = RequestCapture([text_reply("gemini", "Hello.")])
        client = genai.Client(api_key="k", http_options=types.HttpOptions(httpx_async_client=capture.async_client()))
        agent = Agent(api="gemini", client=client.aio, model="gemini-2.5-flash", stream=False)
        assert (await agent.arun("hi")).text == "Hello."
        assert capture.body()["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]

    def test_no_client_names_the_argument_and_the_clients_the_api_takes(self) -> None:
        """`client=None` used to fail later with AttributeError on None."""
        expected = f"`client` must be {OPENAI_CLIENTS} for api 'openai-chat'; got None"
        with pytest.raises(ArgumentError, match=f"^{re.escape(expected)}$"):
            _agent("openai-chat", None)

    def test_a_client_of_another_sdk_names_both(self) -> None:
        """An Anthropic client given to an OpenAI api."""
        with pytest.raises(
            ArgumentError,
            match=r"^`client` must be an openai\.OpenAI or openai\.AsyncOpenAI client \(or an Azure one\) for api "
            r"'openai-responses'; got a client of anthropic \(anthropic\.Anthropic\); use an api of that SDK, or a "
            r"client of openai$",
        ):
            _agent("openai-responses", anthropic.Anthropic(api_key="k"))

    def test_an_object_without_the_sdk_method_is_refused(self) -> None:
        """A test double must at least have the method the adapter calls."""
        with pytest.raises(ArgumentError, match=r"got builtins\.object, which has no `messages\.create`$"):
            _agent("anthropic", object())

    def test_a_test_double_is_sync_or_async_by_its_method(self) -> None:
        """Duck typing works, and the kind check still applies."""

        class Completions:
            async def create(self, **request: Any) -> Any:
                raise AssertionError("never called")

        class Chat:
            completions = Completions()

        class FakeAsyncOpenAI:
            chat = Chat()

        with pytest.raises(ConfigurationError, match="is an async client"):
            _agent("openai-chat", FakeAsyncOpenAI()).run("hi")


class TestAgentArguments:
    @pytest.mark.parametrize(
        ("overrides", "message"),
        [
            ({"api": 3}, r"^`api` must be an api name such as 'openai-chat', or an Adapter; got builtins\.int 3$"),
            ({"model": None}, r"^`model` must be the model name, a non-empty string; got None$"),
            ({"model": ""}, r"^`model` must be the model name, a non-empty string; got builtins\.str ''$"),
            ({"max_steps": 0}, r"^`max_steps` must be a positive int; got builtins\.int 0$"),
            ({"messages": "hello"}, r"^`messages` must be a list of messages .*; got str; wrap a prompt as"),
            (
                {"instructions": "Be brief.", "messages": [{"role": "system", "content": "Be long."}]},
                r"^`instructions` must be None when `messages` has a system message; give the system prompt once$",
            ),
            ({"tools": ECHO}, r"^`tools` must be a list of Tool objects; got toolwire\.tools\.Tool "),
            ({"request_options": [1]}, r"^`request_options` must be a dict of SDK call arguments; got builtins\.list"),
            ({"settings": {"timeout": 1}}, r"^`settings` must be an ExecutionSettings or None; got builtins\.dict"),
            ({"state": [1]}, r"^`state` must be a JSON object \(a dict\); got builtins\.list \[1\]$"),
            ({"thread_id": 7}, r"^`thread_id` must be a string or None; got builtins\.int 7$"),
            ({"resource_id": b"r"}, r"^`resource_id` must be a string or None; got builtins\.bytes b'r'$"),
            ({"max_concurrency": 0}, r"^`max_concurrency` must be a positive int; got builtins\.int 0$"),
        ],
    )
    def test_a_wrong_argument_is_named(self, overrides: dict[str, Any], message: str) -> None:
        """Each is refused when the agent is built."""
        settings: dict[str, Any] = {"api": ScriptedAdapter([]), "client": SCRIPTED_CLIENT, "model": "m"}
        with pytest.raises(ArgumentError, match=message):
            Agent(**{**settings, **overrides})

    def test_a_prompt_of_the_wrong_kind_is_named(self) -> None:
        """Strings, messages and message dicts are prompts; nothing else."""
        agent = Agent(api=ScriptedAdapter([]), client=SCRIPTED_CLIENT, model="m")
        with pytest.raises(
            ArgumentError, match=r"^`prompt` must be a string, a Message or a message dict; got builtins\.int 42$"
        ):
            agent.run(42)  # type: ignore[arg-type]

    def test_running_without_a_prompt_or_a_conversation_is_refused(self) -> None:
        """There is nothing to continue."""
        agent = Agent(api=ScriptedAdapter([]), client=SCRIPTED_CLIENT, model="m")
        with pytest.raises(ArgumentError, match=r"^`prompt` must be given to start a conversation"):
            agent.run()


class TestToolLists:
    @pytest.mark.parametrize("build", [Toolbox, lambda tools: get_adapter("openai-chat").encode_tools(tools)])
    def test_a_lone_tool_is_not_a_list_of_tools(self, build: Any) -> None:
        """`Toolbox(tool)` and `encode_tools(tool)` name the argument, as `Agent(tools=tool)` does."""
        with pytest.raises(ArgumentError, match=r"^`tools` must be a list of Tool objects; got "):
            build(ECHO)


class TestImportState:
    @pytest.mark.parametrize(
        ("state", "problem"),
        [
            ({"toolbox": 5}, "`state.toolbox` must be a dict from export_state(); got builtins.int 5"),
            ({"background": []}, "`state.background` must be a dict from export_state(); got builtins.list []"),
            ({"run": "x"}, "`state.run` must be a dict from export_state(); got builtins.str 'x'"),
            ({"turn": {"calls": 3}}, "`state` must be a dict from export_state(); it cannot be read: TypeError: "),
        ],
    )
    def test_a_field_of_the_wrong_kind_is_named(self, state: dict[str, Any], problem: str) -> None:
        """A damaged saved state is an ArgumentError naming the field (was an AttributeError or TypeError inside)."""
        agent = Agent(api=ScriptedAdapter([]), client=SCRIPTED_CLIENT, model="m", tools=[ECHO])
        with pytest.raises(ArgumentError, match=f"^{re.escape(problem)}"):
            agent.import_state({"messages": [], **state})


class TestEncodeMessages:
    @pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "anthropic", "gemini"])
    def test_a_string_is_not_a_conversation(self, api: str) -> None:
        """`encode_messages("hello")` used to iterate the characters or fail deep inside."""
        with pytest.raises(
            ArgumentError,
            match=r"^`messages` must be a list of messages \(Message objects, or dicts with `role` and `content`\); "
            r"got str; wrap a prompt as \[\{'role': 'user', 'content': \.\.\.\}\]$",
        ):
            get_adapter(api).encode_messages("hello")  # type: ignore[arg-type]

    @pytest.mark.parametrize("api", ["openai-chat", "anthropic"])
    def test_an_item_that_is_not_a_message_is_named_by_its_position(self, api: str) -> None:
        """The second item is the culprit."""
        with pytest.raises(ArgumentError, match=r"message 1 cannot be read: it is a int, not a Message or a dict$"):
            get_adapter(api).encode_messages([user("hi"), 3])  # type: ignore[list-item]

    @pytest.mark.parametrize(
        ("message", "problem"),
        [
            ({"role": "system"}, "missing 'content'"),
            ({"role": "user"}, "missing 'content'"),
            ({"role": "system", "content": None}, "a system message's content must be a string; got NoneType"),
            (
                {"role": "user", "content": None},
                "a user message's content must be a string or a list of parts; got NoneType",
            ),
            ({"role": "tool", "content": 5}, "a tool message's content must be a list of tool results; got int"),
        ],
    )
    def test_a_message_without_its_content_is_named(self, message: dict[str, Any], problem: str) -> None:
        """A system message without content used to become the system prompt 'None'; a user one an empty message."""
        with pytest.raises(ArgumentError, match=f"message 0 cannot be read: {re.escape(problem)}$"):
            get_adapter("openai-chat").encode_messages([message])

    def test_a_prompt_dict_without_content_is_refused(self) -> None:
        """`run({"role": "user"})` used to send an empty user message."""
        agent = Agent(api=ScriptedAdapter([]), client=SCRIPTED_CLIENT, model="m")
        with pytest.raises(ArgumentError, match=r"^`prompt` must be .*message 0 cannot be read: missing 'content'$"):
            agent.run({"role": "user"})
        assert agent.messages == []

    def test_a_dict_missing_a_field_is_named(self) -> None:
        """A tool-call part without its id."""
        broken = {"role": "assistant", "content": [{"type": "tool-call", "toolName": "echo", "input": {}}]}
        with pytest.raises(ArgumentError, match=r"message 0 cannot be read: missing 'toolCallId'$"):
            get_adapter("openai-chat").encode_messages([broken])

    def test_the_result_is_still_the_dict_and_carries_its_degradations(self) -> None:
        """Backward compatible: compare it to a dict; `.warnings` lists what was dropped, once."""
        signed = ReasoningPart(text="hmm", provider_metadata={"anthropic": {"signature": "sig"}})
        turn = AssistantMessage(content=(signed, TextPart(text="Hi")))
        encoded = get_adapter("openai-chat").encode_messages([user("hi"), turn, user("again"), turn])
        assert encoded == {
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hi"},
                {"role": "user", "content": "again"},
                {"role": "assistant", "content": "Hi"},
            ]
        }
        assert [(w.api, w.feature) for w in encoded.warnings] == [
            ("openai-chat", "history.reasoning"),
            ("openai-chat", "history.provider_metadata"),
        ]


class TestCalls:
    @pytest.mark.parametrize(
        ("call", "message"),
        [
            (
                {"toolName": "echo", "input": {}},
                r"^`call` must be a ToolCall or its dict form \{\"toolCallId\": str, \"toolName\": str, \"input\": "
                r"\{\.\.\.\}\}; 'toolCallId' is missing \(keys: \['input', 'toolName'\]\)$",
            ),
            ({"toolCallId": "c1", "input": {}}, r"; 'toolName' is missing \(keys: \['input', 'toolCallId'\]\)$"),
            ({"toolCallId": 7, "toolName": "echo"}, r"; 'toolCallId' is 7, not a non-empty string"),
            ("echo", r"^`call` must be a ToolCall or its dict form .*; got builtins\.str 'echo'$"),
        ],
    )
    async def test_execute_tool_names_what_the_call_lacks(self, call: Any, message: str) -> None:
        """A KeyError deep inside used to be the only hint."""
        with pytest.raises(ArgumentError, match=message):
            await execute_tool(ECHO, call)

    async def test_the_toolbox_names_it_too(self) -> None:
        """Every runtime entry point reads calls the same way."""
        with pytest.raises(ArgumentError, match="'toolCallId' is missing"):
            await Toolbox([ECHO]).run([{"toolName": "echo"}])

    async def test_a_tool_that_is_not_a_tool_is_named(self) -> None:
        """Passing the tool's id instead of the tool."""
        with pytest.raises(
            ArgumentError,
            match=r"^`tool` must be a toolwire Tool \(create_tool\(\.\.\.\) or @tool\); got builtins\.str 'echo'$",
        ):
            await execute_tool("echo", {"toolCallId": "c1", "toolName": "echo"})  # type: ignore[arg-type]
