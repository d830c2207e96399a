"""Runs inside the sandbox child: the model's source turned into a runnable program, and errors into lines.

Standard library only, and only what start-up can afford (`_ast`, not `ast`). The source is
compiled as a module with top-level `await` allowed, so its names are real globals (`global x`
in a helper works) and every node keeps the line the model wrote: no wrapper text, no offset
arithmetic. A top-level `return` and a trailing bare expression become
`raise __toolwire_return__(value, line)`, which the runner catches (a BaseException, so only a
bare `except:` or `except BaseException:` around a top-level `return` would swallow it).
"""

from __future__ import annotations

import _ast
from types import CodeType

# `typing` costs start-up time in the child; annotations are never evaluated there.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _T = TypeVar("_T", bound=_ast.AST)

FILENAME = "<program>"
RETURN_NAME = "__toolwire_return__"


class ProgramReturn(BaseException):
    """Carries the program's value out of module code; a BaseException so `except Exception` lets it pass."""

    def __init__(self, value: Any, line: int) -> None:
        super().__init__()
        self.value = value
        self.line = line


class ErrorInfo:
    """What the host learns about a failure: all plain strings and ints (no dataclass: start-up time)."""

    __slots__ = ("line", "message", "name")

    def __init__(self, name: str, message: str, line: int | None) -> None:
        self.name = name
        self.message = message
        self.line = line


def _located(node: _T, where: _ast.stmt) -> _T:
    """`node` placed at `where` (the private `_ast` module has no `copy_location`)."""
    node.lineno, node.col_offset = where.lineno, where.col_offset  # type: ignore[attr-defined]
    node.end_lineno, node.end_col_offset = where.end_lineno, where.end_col_offset  # type: ignore[attr-defined]
    return node


def _raise_return(value: _ast.expr, where: _ast.stmt) -> _ast.stmt:
    name = _located(_ast.Name(id=RETURN_NAME, ctx=_ast.Load()), where)
    line = _located(_ast.Constant(value=where.lineno), where)
    call = _located(_ast.Call(func=name, args=[value, line], keywords=[]), where)
    return _located(_ast.Raise(exc=call, cause=None), where)


def _rewrite_returns(statements: list[_ast.stmt]) -> None:
    """Rewrite `return` in module-level code; function and class bodies keep their own."""
    for index, node in enumerate(statements):
        if isinstance(node, _ast.FunctionDef | _ast.AsyncFunctionDef | _ast.ClassDef):
            continue
        if isinstance(node, _ast.Return):
            value = node.value if node.value is not None else _located(_ast.Constant(value=None), node)
            statements[index] = _raise_return(value, node)
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                _rewrite_returns(block)
        for nested in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
            _rewrite_returns(nested.body)


def compile_program(source: str) -> CodeType:
    """Compile the model's code; `SyntaxError` carries the model's own line number."""
    tree = compile(source, FILENAME, "exec", _ast.PyCF_ONLY_AST, dont_inherit=True)
    assert isinstance(tree, _ast.Module)
    body = tree.body
    if body and isinstance(body[-1], _ast.Expr):
        body[-1] = _raise_return(body[-1].value, body[-1])
    _rewrite_returns(body)
    code: CodeType = compile(tree, FILENAME, "exec", flags=_ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    return code


def describe_error(error: BaseException, max_chars: int) -> ErrorInfo:
    """Name, message and model-code line of an exception, computed without trusting the exception."""
    name = _safe(lambda: type(error).__name__, "Exception")
    if isinstance(error, SyntaxError) and error.filename == FILENAME:
        message = _safe(lambda: str(error.msg), "invalid syntax")
        return ErrorInfo(name, _cap(message, max_chars), _line(error.lineno))
    message = _safe(lambda: str(error), f"<unprintable {name}>")
    return ErrorInfo(name, _cap(message, max_chars), error_line(error))


def error_line(error: BaseException) -> int | None:
    """The innermost line of the model's code in the traceback (a failed call: the `await` line)."""
    line = None
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == FILENAME:
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def _line(value: Any) -> int | None:
    return value if type(value) is int and value > 0 else None


def _safe(compute: Any, fallback: str) -> str:
    # The exception's own code is the model's: its __str__ may raise anything.
    try:
        value = compute()
    except BaseException:
        return fallback
    return value if isinstance(value, str) else fallback


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
