"""pyproject.toml reader: values from tomllib, lines from the raw text."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgen.errors import InputError
from docgen.snapshot.pyproject import ConflictItem, SourceSpec, read_pyproject, read_root_facts

REPO = Path(__file__).resolve().parents[2]
FIXTURE_WS = REPO / "tests" / "fixtures" / "lockws" / "ws" / "pyproject.toml"
from tests.reference import NEMO_RL_REF, needs_reference  # noqa: E402
NEMO_RL_PYPROJECT = NEMO_RL_REF / "pyproject.toml"


def _lines(path: Path | str) -> list[str]:
    return Path(path).read_text().splitlines()


def _assert_requirement_lines(facts) -> int:
    """Every requirement's line holds its text; returns how many were checked."""
    lines = _lines(facts.path)
    reqs = [r for group in (*facts.extras.values(), *facts.groups.values()) for r in group]
    reqs += [*facts.overrides, *facts.constraints]
    for req in reqs:
        assert req.text in lines[req.line - 1], req
    return len(reqs)


def test_fixture_workspace_root() -> None:
    facts = read_pyproject(FIXTURE_WS)
    lines = _lines(FIXTURE_WS)
    assert facts.name == "lockws-root" and facts.requires_python == ">=3.11"
    assert list(facts.extras) == ["old_tools", "new_tools", "gym", "legacy", "plain"]
    assert all(lines[n - 1].startswith(f"{extra} = [") for extra, n in facts.extra_lines.items())
    assert [r.name for r in facts.extras["gym"]] == ["lockws-member"]
    assert facts.extras["old_tools"][0].text == "iniconfig==1.1.1"
    assert list(facts.groups) == ["dev", "build", "docs", "lint"]
    assert facts.default_groups == ("dev", "build")
    assert facts.conflicts == (
        (ConflictItem(None, "old_tools", None), ConflictItem(None, "new_tools", None)),
        (ConflictItem("lockws-root", "new_tools", None), ConflictItem("lockws-member", "slow", None)),
        (ConflictItem(None, "new_tools", None), ConflictItem(None, None, "lint")),
    )
    kinds = {s.name: (s.kind, s.detail) for s in facts.sources}
    assert kinds == {"lockws-member": ("workspace", "lockws-member"), "localgit": ("git", "@GITREPO@@v1.0"),
                     "edit-lib": ("editable", "libs/edit-lib"), "plain-lib": ("path", "libs/plain-lib")}
    assert all(lines[s.line - 1].startswith(s.name) for s in facts.sources)
    assert facts.workspace_members == ("packages/member",)
    assert _assert_requirement_lines(facts) == 11


def test_repeated_requirement_text_gets_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "p"\n[project.optional-dependencies]\na = [\n  "six",\n  "six",\n]\n'
                    'b = ["six", "attrs"]\n')
    facts = read_pyproject(path)
    assert [r.line for r in facts.extras["a"]] == [5, 6]
    assert [r.line for r in facts.extras["b"]] == [8, 8]


def test_groups_defaults_and_include_group(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "My_App"\n[dependency-groups]\ndev = ["pytest", {include-group = "lint"}]\n'
                    'lint = ["ruff"]\n')
    facts = read_pyproject(path)
    assert [r.name for r in facts.groups["dev"]] == ["pytest", "ruff"]
    assert facts.default_groups == ("dev",)  # uv's default
    path.write_text(path.read_text() + '[tool.uv]\ndefault-groups = "all"\n')
    assert read_pyproject(path).default_groups == ("dev", "lint")
    assert read_root_facts(path) == ("My_App", ("dev", "lint"))


def test_conflict_on_another_package_extra_is_not_checked_here(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "app"\n[project.optional-dependencies]\nvllm = ["six"]\n'
                    '[tool.uv]\nconflicts = [[{ extra = "vllm" }, { package = "gym", extra = "vllm-x" }]]\n')
    assert read_pyproject(path).conflicts[0][1] == ConflictItem("gym", "vllm-x", None)


def test_conflict_naming_undefined_group(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "app"\n[project.optional-dependencies]\nx = ["six"]\n'
                    '[tool.uv]\nconflicts = [\n  [{ extra = "x" }, { group = "nope" }],\n]\n')
    with pytest.raises(InputError) as caught:
        read_pyproject(path)
    assert caught.value.line == 7 and "group 'nope'" in caught.value.message


def test_missing_name_and_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.x]\na = 1\n\n[project]\nversion = "1"\n')
    with pytest.raises(InputError) as caught:
        read_pyproject(path)
    assert caught.value.line == 4
    with pytest.raises(InputError, match="cannot read"):
        read_pyproject(tmp_path / "absent.toml")


@needs_reference
def test_nemo_rl_pyproject() -> None:
    facts = read_pyproject(NEMO_RL_PYPROJECT)
    lines = _lines(NEMO_RL_PYPROJECT)
    assert facts.name == "nemo-rl" and facts.requires_python == ">=3.13.14,<3.14"
    assert list(facts.extras) == ["fsdp", "automodel", "vllm", "sglang", "mcore", "trtllm", "modelopt", "nvrx",
                                  "nemo_gym"]
    assert all(lines[n - 1].startswith(f"{extra} = [") for extra, n in facts.extra_lines.items())
    assert len(facts.conflicts) == 17
    assert facts.conflicts[0] == (ConflictItem("nemo-rl", "automodel", None), ConflictItem("nemo-gym", "vllm", None))
    assert facts.default_groups == ("dev", "build")
    assert facts.workspace_members == ("3rdparty/Gym-workspace/Gym", "research/template_project")
    te = [r for r in facts.overrides if r.name == "transformer-engine"]
    assert len(te) == 1 and te[0].text.endswith("@release_v2.15")
    deep_ep = [r for r in facts.extras["automodel"] if r.name == "deep-ep"]
    assert len(deep_ep) == 2 and deep_ep[0].line + 1 == deep_ep[1].line
    by_name: dict[str, list[SourceSpec]] = {}
    for source in facts.sources:
        by_name.setdefault(source.name, []).append(source)
    assert [(s.kind, s.detail, s.marker) for s in by_name["torch"]] == [
        ("index", "pytorch-cu130", "sys_platform != 'darwin'"), ("index", "pypi", "sys_platform == 'darwin'")]
    assert by_name["torch"][1].line == by_name["torch"][0].line + 1
    assert by_name["nemo_run"][0].detail.endswith("@414f0077c648fde2c71bb1186e97ccbf96d6844c")
    assert by_name["nv-grouped-gemm"][0].detail.endswith("@v1.1.4.post7")
    assert (by_name["nemo-automodel"][0].kind, by_name["tensorrt-llm"][0].kind) == ("editable", "path")
    assert by_name["nemo_gym"][0].kind == "workspace"
    assert _assert_requirement_lines(facts) == 132


def test_line_numbers_count_newlines_only(tmp_path: Path) -> None:
    # TOML strings may hold U+2028 and lines end at "\n": the line of each key must not shift after it
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "app"\ndescription = "one\u2028two"\n\n[project.optional-dependencies]\n'
                    'vllm = ["six"]\n', encoding="utf-8")
    facts = read_pyproject(path)
    assert facts.extra_lines == {"vllm": 6}
    assert facts.extras["vllm"][0].line == 6


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b'[project]\nname = "app"\n# caf\xe9\n')
    with pytest.raises(InputError) as caught:
        read_pyproject(path)
    assert caught.value.line == 3 and "not UTF-8" in caught.value.message


# ---- [tool.uv] required-version ------------------------------------------------------------------------

@pytest.mark.parametrize("value, read", [('">=0.8.0"', ">=0.8.0"), ('" 0.9.2 "', "0.9.2"),
                                         ("'>=0.8,<0.12'", ">=0.8,<0.12"), (None, None)])
def test_uv_required_version_is_read_as_written(tmp_path: Path, value, read) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "p"\n[tool.uv]\n' + (f"required-version = {value}\n" if value else ""))
    assert read_pyproject(path).uv_required_version == read


@pytest.mark.parametrize("value, says", [("5", "must be a version specifier string"),
                                         ('""', "must be a version specifier string"),
                                         ('">= soon"', "neither a version nor a PEP 440 specifier set")])
def test_a_bad_uv_required_version_names_its_line(tmp_path: Path, value, says) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(f'[project]\nname = "p"\n\n[tool.uv]\nconflicts = []\nrequired-version = {value}\n')
    with pytest.raises(InputError) as info:
        read_pyproject(path)
    assert (info.value.line, says in info.value.message) == (6, True), info.value.message
