"""Hostile inputs: deep nesting in every format docgen reads, and a fence left open above a block. Each is
bad input (exit 2, file and line, no traceback, nothing written), never a RecursionError."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.test_cli import CORPUS, LOCK, PYPROJECT, REGISTRY, docgen, snapshot_case, snapshot_file_case
from tests.test_cli import test_bad_input_exits_2_naming_file_and_line as check_bad_input

ROOT = Path(__file__).resolve().parent.parent
DEEP = 20_000


def _nested_toml_array(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


def _nested_json(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


DEEP_CASES = {
    "pyproject nests arrays deeply": snapshot_case(pyproject=PYPROJECT + f"\n[tool.deep]\nv = {_nested_toml_array()}\n"),
    "pyproject nests inline tables deeply": snapshot_case(
        pyproject=PYPROJECT + "\n[tool.deep]\nv = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n"),
    "lock nests arrays deeply": snapshot_case(lock=LOCK + f"\n[manifest]\ndeep = {_nested_toml_array()}\n"),
    "lock marker nests parentheses deeply": snapshot_case(lock=LOCK.replace(
        '    { name = "six" },\n]\n\n[package.optional',
        '    { name = "six", marker = "' + "(" * DEEP + "python_version >= '3'" + ")" * DEEP + '" },\n]\n\n[package.optional', 1)),
    "registry facts nest deeply": snapshot_case(registry=json.dumps({**REGISTRY, "deep": "@"}).replace('"@"', _nested_json())),
    "snapshot nests deeply": snapshot_file_case('{"format": 1, "project": ' + _nested_json() + "}\n"),
}


@pytest.mark.parametrize("case", sorted(DEEP_CASES), ids=lambda c: c.replace(" ", "-"))
def test_deep_nesting_is_bad_input(case, tmp_path, monkeypatch):
    monkeypatch.setitem(CORPUS, case, DEEP_CASES[case])
    check_bad_input(case, tmp_path)


PAGE_WITH_OPEN_FENCE = """\
# Page

```bash
echo this fence is never closed

<!-- docgen:begin filter-table -->
stale, and nobody would ever know
<!-- docgen:end filter-table -->
"""


def test_an_unclosed_fence_above_a_stale_block_fails_check_and_write(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copy(ROOT / "Dockerfile.nmp-rl-base", project / "Dockerfile.nmp-rl-base")
    (project / "snapshot").mkdir()
    shutil.copy(ROOT / "snapshot/nemo-rl.json", project / "snapshot/nemo-rl.json")
    (project / "docgen.toml").write_text('pages = ["page.md"]\n')
    (project / "page.md").write_text(PAGE_WITH_OPEN_FENCE)
    before = {p.name: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    for command in ("check", "write"):
        run = docgen(command, "page.md", cwd=project)
        assert run.returncode == 2, (command, run.stdout, run.stderr)
        assert "Traceback" not in run.stderr
        assert "page.md:3: code fence ``` is never closed, so the docgen marker at line 6" in run.stderr, run.stderr
    assert {p.name: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_a_deeply_nested_docgen_toml_is_bad_input(tmp_path):
    (tmp_path / "docgen.toml").write_text(f"deep = {_nested_toml_array()}\n")
    run = docgen("check", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert f"{tmp_path / 'docgen.toml'}:1: not valid TOML: arrays or tables nested too deeply" in run.stderr
