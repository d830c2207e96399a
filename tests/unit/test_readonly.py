"""The read-only JSON containers shared by the encode cache: refuse changes, serialize and copy as plain JSON."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pydantic
import pytest

from toolwire._readonly import ReadOnlyDict, ReadOnlyList, read_only

VALUE = {"type": "object", "properties": {"tags": {"type": "array", "items": [1, 2.5, None, True]}}}


def _kinds(value: Any) -> set[type]:
    """Every container type inside a value."""
    if isinstance(value, dict):
        return {type(value)}.union(*(_kinds(v) for v in value.values()))
    if isinstance(value, list):
        return {type(value)}.union(*(_kinds(v) for v in value))
    return set()


def test_a_read_only_copy_is_equal_and_read_only_at_every_level() -> None:
    shared = read_only(VALUE)
    assert shared == VALUE
    assert _kinds(shared) == {ReadOnlyDict, ReadOnlyList}


def test_the_source_is_copied_not_wrapped() -> None:
    """Changing the source afterwards does not reach the read-only copy."""
    source = {"properties": {"a": {"type": "string"}}}
    shared = read_only(source)
    source["properties"]["a"]["type"] = "integer"
    assert shared == {"properties": {"a": {"type": "string"}}}


def test_tuples_become_arrays_and_other_objects_are_kept() -> None:
    marker = object()
    shared = read_only({"pair": (1, 2), "object": marker})
    assert shared["pair"] == [1, 2]
    assert shared["object"] is marker


def test_json_dumps_it_as_plain_json() -> None:
    assert json.dumps(read_only(VALUE)) == json.dumps(VALUE)


@pytest.mark.parametrize(
    "duplicate",
    [
        pytest.param(copy.deepcopy, id="deepcopy"),
        pytest.param(lambda value: pickle.loads(pickle.dumps(value)), id="pickle"),
    ],
)
def test_deep_copies_are_plain_editable_containers(duplicate: Any) -> None:
    copied = duplicate(read_only(VALUE))
    assert copied == VALUE
    assert _kinds(copied) == {dict, list}
    copied["properties"]["tags"]["items"].append(3)


def test_a_shallow_copy_is_a_plain_dict_holding_the_shared_contents() -> None:
    shared = read_only(VALUE)
    for shallow in (copy.copy(shared), dict(shared), {**shared}):
        assert type(shallow) is dict
        assert shallow["properties"] is shared["properties"]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d, lst: d.__setitem__("x", 1), id="d[k]=v"),
        pytest.param(lambda d, lst: d.__delitem__("type"), id="del d[k]"),
        pytest.param(lambda d, lst: d.update(x=1), id="update"),
        pytest.param(lambda d, lst: d.__ior__({"x": 1}), id="|="),
        pytest.param(lambda d, lst: d.setdefault("x", 1), id="setdefault"),
        pytest.param(lambda d, lst: d.pop("type"), id="pop"),
        pytest.param(lambda d, lst: d.popitem(), id="popitem"),
        pytest.param(lambda d, lst: d.clear(), id="clear"),
        pytest.param(lambda d, lst: lst.__setitem__(0, 9), id="l[i]=v"),
        pytest.param(lambda d, lst: lst.__setitem__(slice(0, 1), [9]), id="l[a:b]=v"),
        pytest.param(lambda d, lst: lst.__delitem__(0), id="del l[i]"),
        pytest.param(lambda d, lst: lst.__iadd__([9]), id="+="),
        pytest.param(lambda d, lst: lst.__imul__(2), id="*="),
        pytest.param(lambda d, lst: lst.append(9), id="append"),
        pytest.param(lambda d, lst: lst.extend([9]), id="extend"),
        pytest.param(lambda d, lst: lst.insert(0, 9), id="insert"),
        pytest.param(lambda d, lst: lst.pop(), id="list.pop"),
        pytest.param(lambda d, lst: lst.remove(1), id="remove"),
        pytest.param(lambda d, lst: lst.clear(), id="list.clear"),
        pytest.param(lambda d, lst: lst.sort(), id="sort"),
        pytest.param(lambda d, lst: lst.reverse(), id="reverse"),
    ],
)
def test_every_in_place_change_raises_and_changes_nothing(change: Any) -> None:
    shared = read_only(VALUE)
    items = shared["properties"]["tags"]["items"]
    with pytest.raises(TypeError, match="shared by toolwire's tool-encoding cache and read-only"):
        change(shared, items)
    assert shared == VALUE


def test_pydantic_reads_it_as_a_dict() -> None:
    """SDK request models built with pydantic accept the shared entries as they are."""

    class Entry(pydantic.BaseModel):
        parameters: dict[str, Any]

    assert Entry(parameters=read_only(VALUE)).model_dump() == {"parameters": VALUE}
