"""Looking into request bodies: did the SDK send a result, an image, a tool choice, examples?

These checks state wire facts per api independently of the recorded cassettes, so a scenario
cannot pass just because the recording agrees with the code that produced it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def find(node: Any, predicate: Callable[[Any], bool]) -> list[Any]:
    """Every sub-node (dicts and lists, depth first) that satisfies the predicate."""
    found: list[Any] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if predicate(item):
            found.append(item)
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def _is(kind: str, key: str = "type") -> Callable[[Any], bool]:
    return lambda node: isinstance(node, dict) and node.get(key) == kind


def request_has_result_for(api: str, body: Any, call_id: str) -> bool:
    """Whether the request carries the result of call `call_id` in the api's result form."""
    if api == "openai-chat":
        return bool(
            find(body, lambda n: isinstance(n, dict) and n.get("role") == "tool" and n.get("tool_call_id") == call_id)
        )
    if api == "openai-responses":
        return bool(
            find(
                body,
                lambda n: (
                    isinstance(n, dict)
                    and str(n.get("type", "")).endswith("call_output")
                    and n.get("call_id") == call_id
                ),
            )
        )
    if api == "anthropic":
        return bool(find(body, lambda n: _is("tool_result")(n) and n.get("tool_use_id") == call_id))
    responses = find(body, lambda n: isinstance(n, dict) and "functionResponse" in n)
    return any(r["functionResponse"].get("id") in (call_id, None) for r in responses)


def request_has_image(api: str, body: Any) -> bool:
    """Whether the request carries an image (as the api takes images from tools)."""
    if api == "openai-chat":
        users = find(body, lambda n: isinstance(n, dict) and n.get("role") == "user")
        return any(find(u, _is("image_url")) for u in users)
    if api == "openai-responses":
        outputs = find(body, _is("function_call_output"))
        return any(find(o, _is("input_image")) for o in outputs)
    if api == "anthropic":
        results = find(body, _is("tool_result"))
        return any(find(r, _is("image")) for r in results)
    responses = find(body, lambda n: isinstance(n, dict) and "functionResponse" in n)
    return any(
        find(r, lambda n: isinstance(n, dict) and str(n.get("mime_type", n.get("mimeType", ""))).startswith("image/"))
        for r in responses
    )


def examples_visible(api: str, body: Any) -> bool:
    """Whether the request shows the input examples (native field or folded into the description)."""
    if api == "anthropic":
        return bool(find(body, lambda n: isinstance(n, dict) and "input_examples" in n))
    return bool(find(body, lambda n: isinstance(n, str) and "Examples:" in n))


def tool_choice_sent(body: Any) -> Any:
    """The raw tool-choice field of a request, whatever the api calls it (None when absent)."""
    if isinstance(body, dict):
        if "tool_choice" in body:
            return body["tool_choice"]
        config = body.get("toolConfig") or body.get("tool_config")
        if config is not None:
            return config
    return None
