"""Frames from the sandbox are parsed as untrusted input: JSON only, exact shapes, nothing evaluated."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.codemode.protocol import (
    Call,
    Done,
    Ignored,
    Log,
    ProtocolViolation,
    Ready,
    encode_error,
    encode_result,
    encode_start,
    nesting,
    parse_frame,
)


def _frame(method: str | None = None, **fields: object) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", **fields}
    if method is not None:
        message["method"] = method
    return json.dumps(message).encode() + b"\n"


class TestWellFormedFrames:
    def test_ready(self) -> None:
        """The child reports the confinement that took effect."""
        frame = parse_frame(_frame("ready", params={"layers": {"seccomp": True}, "python": "3.11"}))
        assert frame == Ready({"seccomp": True}, "3.11")

    def test_call(self) -> None:
        """A call names the original tool id and carries its input."""
        frame = parse_frame(_frame("call", id=7, params={"tool": "get-weather", "input": {"city": "Paris"}}))
        assert frame == Call(7, "get-weather", {"city": "Paris"})

    def test_log(self) -> None:
        """One console line per frame."""
        assert parse_frame(_frame("log", params={"stream": "stderr", "text": "oops"})) == Log("stderr", "oops")

    def test_successful_done(self) -> None:
        """The result is whatever JSON the program returned."""
        frame = parse_frame(_frame("done", params={"ok": True, "result": [1, {"a": None}], "logsDropped": 3}))
        assert frame == Done(True, [1, {"a": None}], logs_dropped=3)

    def test_failed_done(self) -> None:
        """An error carries a name, a message and the program line."""
        params = {"ok": False, "error": {"name": "NameError", "message": "name 'x' is not defined", "line": 4}}
        assert parse_frame(_frame("done", params=params)) == Done(
            False, error_name="NameError", error_message="name 'x' is not defined", error_line=4
        )

    @pytest.mark.parametrize("line", [0, -1, "4", 2.5, True, None])
    def test_a_line_that_is_not_a_positive_integer_is_dropped(self, line: object) -> None:
        """The host never reports a line it cannot trust."""
        params = {"ok": False, "error": {"name": "E", "message": "m", "line": line}}
        frame = parse_frame(_frame("done", params=params))
        assert isinstance(frame, Done)
        assert frame.error_line is None


class TestIgnoredFrames:
    def test_unknown_methods_are_ignored(self) -> None:
        """Forward compatible, and harmless: they trigger nothing."""
        assert parse_frame(_frame("shell", params={"cmd": "rm -rf /"})) == Ignored("unknown method 'shell'")

    def test_responses_are_ignored_because_the_host_asks_nothing(self) -> None:
        """A child answering an id the host never used cannot resolve anything."""
        assert parse_frame(_frame(None, id=1, result="forged")) == Ignored("a response, but the host asked nothing")


class TestViolations:
    @pytest.mark.parametrize(
        ("line", "reason"),
        [
            (b"not json\n", "a frame that is not JSON (JSONDecodeError)"),
            (b"\xff\xfe\n", "a frame that is not JSON (UnicodeDecodeError)"),
            (
                b'{"jsonrpc": "2.0", "method": "done", "params": {"ok": true, "result": NaN}}\n',
                "a frame that is not JSON (ValueError)",
            ),
            (
                b'{"jsonrpc": "2.0", "method": "done", "params": {"ok": true, "result": [1e400]}}\n',
                "a frame that is not JSON (ValueError)",
            ),
            (
                b'{"jsonrpc": "2.0", "method": "call", "id": 1, "params": {"tool": "t", "input": {"a": -1e999}}}\n',
                "a frame that is not JSON (ValueError)",
            ),
            (b"[1, 2]\n", "a frame that is not a JSON-RPC 2.0 object"),
            (b'{"method": "done", "params": {"ok": true}}\n', "a frame that is not a JSON-RPC 2.0 object"),
            (b'{"jsonrpc": "2.0", "params": {}}\n', "a frame without a method"),
            (b'{"jsonrpc": "2.0", "method": "log", "params": []}\n', "`params` of 'log' is not an object"),
            (b'{"jsonrpc": "2.0", "method": "log", "params": {"stream": "fd3", "text": "x"}}\n', "a malformed `log`"),
            (b'{"jsonrpc": "2.0", "method": "done", "params": {"ok": "yes"}}\n', "a malformed `done`"),
            (
                b'{"jsonrpc": "2.0", "method": "call", "id": "1", "params": {"tool": "t", "input": {}}}\n',
                "a call whose id is not a non-negative integer",
            ),
            (
                b'{"jsonrpc": "2.0", "method": "call", "id": -1, "params": {"tool": "t", "input": {}}}\n',
                "a call whose id is not a non-negative integer",
            ),
            (
                b'{"jsonrpc": "2.0", "method": "call", "id": 1, "params": {"tool": 5, "input": {}}}\n',
                "call 1 without a tool name and an input",
            ),
            (b'{"jsonrpc": "2.0", "method": "ready", "params": {"layers": []}}\n', "a malformed `ready`"),
        ],
    )
    def test_malformed_frames_are_violations(self, line: bytes, reason: str) -> None:
        """Each broken shape is refused with a reason the host can log."""
        with pytest.raises(ProtocolViolation) as caught:
            parse_frame(line)
        assert str(caught.value) == reason

    def test_deep_nesting_is_a_violation_not_a_host_crash(self) -> None:
        """A million nested arrays exhaust the decoder's recursion, which is caught."""
        deep = (
            b'{"jsonrpc": "2.0", "method": "log", "params": {"stream": "stdout", "text": '
            + b"[" * 1_000_000
            + b"]" * 1_000_000
            + b"}}\n"
        )
        with pytest.raises(ProtocolViolation, match=r"not JSON \(RecursionError\)"):
            parse_frame(deep)

    @pytest.mark.parametrize("inner", [b'"\\ud800"', b"1", b"{}"], ids=["lone-surrogate", "number", "object"])
    def test_nesting_past_the_cap_is_a_violation_before_anything_recurses(self, inner: bytes) -> None:
        """900 levels decode, but nothing downstream (surrogate scrubbing, encoders) may recurse that deep."""
        deep = b'{"jsonrpc": "2.0", "method": "done", "params": {"ok": true, "result": '
        deep += b"[" * 900 + inner + b"]" * 900 + b"}}\n"
        with pytest.raises(ProtocolViolation, match=r"^a value nested deeper than 100 levels$"):
            parse_frame(deep)

    def test_a_value_exactly_at_the_cap_is_accepted(self) -> None:
        """100 levels of value inside the two-level envelope."""
        value: object = "\ud800"
        for _ in range(100):
            value = [value]
        frame = parse_frame(_frame("done", params={"ok": True, "result": value}))
        assert isinstance(frame, Done)
        assert nesting(frame.result) == 100

    def test_brackets_inside_strings_do_not_count(self) -> None:
        """The bracket count only decides whether to walk the value."""
        text = "[" * 500
        assert parse_frame(_frame("log", params={"stream": "stdout", "text": text})) == Log("stdout", text)

    def test_pickled_bytes_are_just_bad_json(self) -> None:
        """A pickle payload (CVE-2025-14931's vector) is never unpickled: it is not JSON."""
        payload = pickle.dumps({"ok": True})
        with pytest.raises(ProtocolViolation, match="not JSON"):
            parse_frame(payload + b"\n")


class TestHostileValuesStayData:
    def test_lone_surrogates_are_replaced(self) -> None:
        """A lone surrogate could not be encoded for the model; it becomes U+FFFD."""
        frame = parse_frame(
            b'{"jsonrpc": "2.0", "method": "log", "params": {"stream": "stdout", "text": "a\\ud800b"}}\n'
        )
        assert frame == Log("stdout", "a\ufffdb")

    def test_surrogate_pairs_are_kept(self) -> None:
        """An escaped emoji is a valid pair and stays as it is."""
        frame = parse_frame(
            b'{"jsonrpc": "2.0", "method": "log", "params": {"stream": "stdout", "text": "\\ud83d\\ude00"}}\n'
        )
        assert frame == Log("stdout", "\U0001f600")

    def test_a_reduce_shaped_result_is_plain_data(self) -> None:
        """Something that looks like a pickle or class instruction is a dict, nothing more."""
        result = {"__reduce__": ["os.system", ["id"]], "__class__": "subprocess.Popen", "py/object": "os.system"}
        frame = parse_frame(_frame("done", params={"ok": True, "result": result}))
        assert frame == Done(True, result)


class TestHostFrames:
    def test_start_carries_the_functions_as_data(self) -> None:
        """Names are a JSON list, never spliced into source."""
        frame = json.loads(encode_start("1 + 1", [("external_a", "a")], {"max_log_chars": 10}))
        assert frame == {
            "jsonrpc": "2.0",
            "method": "start",
            "params": {
                "code": "1 + 1",
                "externals": [{"name": "external_a", "tool": "a"}],
                "limits": {"max_log_chars": 10},
            },
        }

    def test_result_and_error_replies(self) -> None:
        """Replies are JSON-RPC responses with the tool error's name in `data`."""
        assert json.loads(encode_result(3, {"x": 1})) == {"jsonrpc": "2.0", "id": 3, "result": {"x": 1}}
        assert json.loads(encode_error(3, "ValidationError", "bad input", "t")) == {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {"code": -32000, "message": "bad input", "data": {"name": "ValidationError", "tool": "t"}},
        }

    def test_a_result_that_is_not_json_is_refused(self) -> None:
        """The caller turns this into an error reply."""
        with pytest.raises(ValueError, match="not JSON serializable"):
            encode_result(1, {1, 2})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


class TestFuzz:
    @given(JSON)
    def test_nesting_matches_a_recursive_definition(self, value: object) -> None:
        """The iterative walk agrees with the obvious recursive one."""
        assert nesting(value) == _depth(value)

    @given(st.binary(max_size=300))
    def test_arbitrary_bytes_are_a_frame_or_a_violation(self, line: bytes) -> None:
        """Nothing the child writes can raise anything else on the host."""
        try:
            frame = parse_frame(line)
        except ProtocolViolation:
            return
        assert isinstance(frame, Ready | Call | Log | Done | Ignored)

    @given(st.sampled_from(["ready", "call", "log", "done", "other", None]), JSON, JSON)
    def test_arbitrary_json_shapes_are_a_frame_or_a_violation(
        self, method: str | None, params: object, call_id: object
    ) -> None:
        """Well-formed JSON with wrong types in every field is still handled."""
        message = {"jsonrpc": "2.0", "method": method, "params": params, "id": call_id}
        try:
            frame = parse_frame(json.dumps(message).encode())
        except ProtocolViolation:
            return
        assert isinstance(frame, Ready | Call | Log | Done | Ignored)
