"""Tool ids become ASCII `external_*` names; collisions raise and name both ids."""

from __future__ import annotations

import pytest

from toolwire import create_tool
from toolwire.codemode import CodeModeNameError, create_code_mode_instructions
from toolwire.codemode._names import External, build_externals, pascal, sanitize


def _tool(tool_id: str):
    return create_tool(id=tool_id, description="A tool.", execute=lambda _input: None)


class TestSanitize:
    @pytest.mark.parametrize(
        ("tool_id", "expected"),
        [
            ("getTopProducts", "getTopProducts"),
            ("my-tool", "my_tool"),
            ("name.space/tool v2", "name_space_tool_v2"),
            ("3d", "_3d"),
            ("", "_"),
            ('a"""b', "a___b"),
            ("line\nbreak", "line_break"),
            ("café", "caf_"),
            ("ﬁle", "_le"),
        ],
    )
    def test_every_character_outside_ascii_identifiers_becomes_underscore(self, tool_id: str, expected: str) -> None:
        """Only `[0-9A-Za-z_]` survives, and a leading digit gets an underscore."""
        assert sanitize(tool_id) == expected

    def test_keyword_ids_are_safe_behind_the_prefix(self) -> None:
        """`class` becomes `external_class`, which is not a keyword."""
        assert build_externals(["class"], code_mode_id="execute_python")[0].function == "external_class"

    @pytest.mark.parametrize(
        ("fragment", "expected"),
        [("get_top_products", "GetTopProducts"), ("getWeather", "GetWeather"), ("_3d", "Tool3d"), ("_", "Tool")],
    )
    def test_type_stems_are_pascal_case_identifiers(self, fragment: str, expected: str) -> None:
        """Stems never start with a digit and keep inner capitals."""
        assert pascal(fragment) == expected


class TestBuildExternals:
    def test_each_id_keeps_its_original_for_dispatch(self) -> None:
        """Calls dispatch by the original id, not by the sanitized name."""
        assert build_externals(["get-weather"], code_mode_id="execute_python") == (
            External(tool_id="get-weather", function="external_get_weather", type_stem="GetWeather"),
        )

    def test_ids_that_sanitize_alike_raise_naming_both(self) -> None:
        """`a-b` and `a_b` would be one function: an error, never a silent overwrite."""
        with pytest.raises(CodeModeNameError) as caught:
            build_externals(["a-b", "a_b"], code_mode_id="execute_python")
        assert str(caught.value) == "code mode: tool ids 'a-b' and 'a_b' both map to `external_a_b`; rename one of them"
        assert caught.value.tool_ids == ("a-b", "a_b")

    def test_non_ascii_ids_cannot_collide_through_nfkc(self) -> None:
        """Python would read `external_ﬁle` as `external_file`; ASCII-only names keep them apart."""
        functions = [e.function for e in build_externals(["ﬁle", "file"], code_mode_id="execute_python")]
        assert functions == ["external__le", "external_file"]

    def test_an_id_equal_to_the_code_mode_tool_id_raises(self) -> None:
        """The code-mode tool's own id is reserved."""
        with pytest.raises(CodeModeNameError) as caught:
            build_externals(["execute_python"], code_mode_id="execute_python")
        assert str(caught.value) == (
            "code mode: tool id 'execute_python' is also the id of the code-mode tool 'execute_python', "
            "so the model could not tell them apart; rename one of them"
        )

    def test_collisions_raise_when_building_instructions(self) -> None:
        """The error comes at instruction time too, as in Mastra."""
        with pytest.raises(CodeModeNameError, match=r"'a\.b' and 'a-b' both map to `external_a_b`"):
            create_code_mode_instructions({"a.b": _tool("a.b"), "a-b": _tool("a-b")})
