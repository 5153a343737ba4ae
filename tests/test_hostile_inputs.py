"""Hostile inputs: deep nesting in every format docgen reads, and a fence left open above a block. Each is
bad input (exit 2, file and line, no traceback, nothing written), never a RecursionError."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.docgen_cli import docgen, docgen_process
from tests.test_cli import CORPUS, LOCK, PYPROJECT, REGISTRY, snapshot_case, snapshot_file_case
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


@pytest.mark.probe("malformed input")
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


@pytest.mark.probe("escaping and markers")
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


@pytest.mark.probe("malformed input")
def test_a_deeply_nested_docgen_toml_is_bad_input(tmp_path):
    (tmp_path / "docgen.toml").write_text(f"deep = {_nested_toml_array()}\n")
    run = docgen("check", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert f"{tmp_path / 'docgen.toml'}:1: not valid TOML: arrays or tables nested too deeply" in run.stderr


# ------------------------------------------------------------------ files docgen writes, files docgen reads

STALE_PAGE = "# Page\n\n<!-- docgen:begin filter-table -->\nstale\n<!-- docgen:end filter-table -->\n"


def small_project(where: Path, config: str = "") -> Path:
    """The image's Dockerfile and snapshot, one page with a stale block, `docgen.toml` holding `config`."""
    where.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Dockerfile.nmp-rl-base", where / "Dockerfile.nmp-rl-base")
    (where / "snapshot").mkdir(exist_ok=True)
    shutil.copy(ROOT / "snapshot/nemo-rl.json", where / "snapshot/nemo-rl.json")
    (where / "docgen.toml").write_text('pages = ["page.md"]\nrequired = []\n' + config)
    (where / "page.md").write_text(STALE_PAGE)
    return where


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.probe("writes outside what docgen owns")
@pytest.mark.parametrize("facts", [".git/hooks/pre-commit", ".git/config", "sub/.git/x.json", "page.md",
                                   "Dockerfile.nmp-rl-base", "snapshot/nemo-rl.json", "docgen.toml",
                                   "facts.txt", "docs/facts"])
def test_a_config_cannot_point_the_facts_record_at_a_file_docgen_does_not_own(tmp_path, facts):
    root = small_project(tmp_path / "p", f'facts = "{facts}"\n')
    (root / ".git/hooks").mkdir(parents=True)
    (root / ".git/config").write_text("[core]\n")
    hook = root / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    before = files_of(root)
    for command in ("write", "check"):
        run = docgen(command, cwd=root)
        assert run.returncode == 2, (command, run.stdout, run.stderr)
        assert "Traceback" not in run.stderr
        assert f"docgen: error: {root / 'docgen.toml'}:3: facts: " in run.stderr, run.stderr
    assert files_of(root) == before


@pytest.mark.probe("writes outside what docgen owns")
@pytest.mark.parametrize("content", ['{"somebody": "else\'s data"}\n', "[1, 2]\n", '{"format": 1}\n'])
def test_an_existing_json_file_in_another_format_is_never_overwritten(tmp_path, content):
    """Valid JSON that is not docgen's record is someone else's file: check and write both refuse it. (A file
    there that is not JSON at all is docgen's own record, broken: see the tests below.)"""
    root = small_project(tmp_path / "p", 'facts = "data/mine.json"\n')
    (root / "data").mkdir()
    mine = root / "data/mine.json"
    mine.write_text(content)
    before = files_of(root)
    for command in ("check", "write"):
        run = docgen(command, cwd=root)
        assert run.returncode == 2, (command, run.stdout, run.stderr)
        assert "data/mine.json: the file there is not the facts record docgen wrote" in run.stderr, run.stderr
    assert files_of(root) == before   # the stale page is not written either


FACTS_SHAPE = '{\n "format": 1,\n "filters": [\n  "a"\n ],\n "counts": {\n  "venvs": 9\n }\n}\n'
UNREADABLE_FACTS = {
    "merge conflict": FACTS_SHAPE.replace(' "counts": {\n  "venvs": 9\n }\n',
                                          '<<<<<<< HEAD\n "counts": {\n  "venvs": 9\n }\n=======\n'
                                          ' "counts": {\n  "venvs": 8\n }\n>>>>>>> bump\n'),
    "duplicate key": FACTS_SHAPE.replace('"venvs": 9', '"venvs": 9,\n  "venvs": 8'),
    "huge integer": FACTS_SHAPE.replace('"venvs": 9', '"venvs": ' + "9" * 5000),
    "not JSON": "the facts, as a sentence\n",
    "empty": "",
    "not UTF-8": '{"format": 1, "filters": ["\xff"]}\n',
}
UNREADABLE_SAYS = {"merge conflict": "facts.json:6: not valid JSON", "duplicate key": "facts.json:8: ",
                   "huge integer": "facts.json:7: ", "not JSON": "facts.json:1: not valid JSON",
                   "empty": "facts.json:1: not valid JSON", "not UTF-8": "facts.json:1: cannot read the facts record: not UTF-8"}


@pytest.mark.probe("malformed input")
@pytest.mark.parametrize("case", sorted(UNREADABLE_FACTS))
def test_an_unreadable_facts_record_is_named_by_check_and_regenerated_by_write(tmp_path, case):
    fresh = small_project(tmp_path / "fresh", 'facts = "facts.json"\n')
    assert docgen("write", cwd=fresh).returncode == 0
    root = small_project(tmp_path / "p", 'facts = "facts.json"\n')
    (root / "facts.json").write_bytes(UNREADABLE_FACTS[case].encode("latin-1" if case == "not UTF-8" else "utf-8"))
    before = files_of(root)
    run = docgen("check", cwd=root)
    said = run.stdout + run.stderr
    assert run.returncode == 1 and "Traceback" not in said, said
    assert f"{UNREADABLE_SAYS[case]}" in said and "cannot be read" in said, said
    assert "`docgen write` writes it anew" in said, said
    assert files_of(root) == before
    run = docgen("write", cwd=root)
    assert run.returncode == 0, run.stderr
    assert "docgen: regenerated facts.json from scratch: the record there could not be read" in run.stderr
    assert (root / "facts.json").read_bytes() == (fresh / "facts.json").read_bytes()
    assert docgen("check", cwd=root).returncode == 0


@pytest.mark.probe("writes outside what docgen owns")
def test_the_facts_record_docgen_wrote_is_rewritten(tmp_path):
    root = small_project(tmp_path / "p", 'facts = "facts.json"\n')
    assert docgen("write", cwd=root).returncode == 0
    (root / "Dockerfile.nmp-rl-base").write_text(
        (root / "Dockerfile.nmp-rl-base").read_text().replace(MEGATRON_FILTER, "", 1))
    first = (root / "facts.json").read_bytes()
    run = docgen("write", cwd=root)
    assert run.returncode == 0, run.stderr
    assert (root / "facts.json").read_bytes() != first


MEGATRON_FILTER = "  megatron_policy_worker.MegatronPolicyWorker \\\n"
SECRET = "docgen-hostile-probe-9f3a1c"


@pytest.mark.probe("symlinks and special files")
def test_a_dockerfile_symlinked_to_the_environment_never_prints_it(tmp_path):
    root = small_project(tmp_path / "p")
    (root / "Dockerfile.nmp-rl-base").unlink()
    (root / "Dockerfile.nmp-rl-base").symlink_to("/proc/self/environ")
    # a real process: /proc/self/environ is the environment a process started with, which os.environ no
    # longer changes once it runs, so in this interpreter the secret would never be there to leak
    run = docgen_process("check", cwd=root, env={**os.environ, "DOCGEN_PROBE": SECRET})
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert SECRET not in run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert "a symlink leads it outside the root" in run.stderr, run.stderr


@pytest.mark.probe("malformed input")
def test_a_dockerfile_holding_the_environment_is_not_quoted(tmp_path):
    """Inside the root and regular, but not text: refused without echoing its content."""
    root = small_project(tmp_path / "p")
    (root / "Dockerfile.nmp-rl-base").write_bytes(
        b"\0".join(f"{k}={v}".encode() for k, v in {**os.environ, "DOCGEN_PROBE": SECRET}.items()) + b"\0")
    run = docgen("check", cwd=root)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert SECRET not in run.stdout + run.stderr
    assert "not text (it holds a NUL byte)" in run.stderr, run.stderr


@pytest.mark.probe("escaping and markers")
def test_terminal_escapes_in_an_input_are_shown_escaped(tmp_path):
    root = small_project(tmp_path / "p")
    (root / "page.md").write_text("# Page\n\n<!-- docgen:begin no-such-\x1b[2J-generator -->\n"
                                  "<!-- docgen:end no-such-\x1b[2J-generator -->\n")
    run = docgen("check", cwd=root)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "\x1b" not in run.stderr and "\\x1b" in run.stderr, run.stderr


@pytest.mark.probe("symlinks and special files")
@pytest.mark.parametrize("target", ["inside", "outside", "fifo"])
def test_a_symlinked_input_is_read_only_when_it_resolves_to_a_regular_file_inside_the_root(tmp_path, target):
    root = small_project(tmp_path / "p")
    real = {"inside": root / "real/snap.json", "outside": tmp_path / "snap.json", "fifo": root / "fifo"}[target]
    real.parent.mkdir(exist_ok=True)
    if target == "fifo":
        os.mkfifo(real)
    else:
        shutil.copy(root / "snapshot/nemo-rl.json", real)
    (root / "snapshot/nemo-rl.json").unlink()
    (root / "snapshot/nemo-rl.json").symlink_to(real)
    run = docgen("check", cwd=root)
    if target == "inside":
        assert run.returncode in (0, 1), run.stderr   # 1: the stale page
    else:
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        assert f"docgen: error: {root / 'snapshot/nemo-rl.json'}: snapshot: a symlink leads it" in run.stderr


@pytest.mark.probe("writes outside what docgen owns")
def test_snapshot_output_over_a_file_that_is_not_a_snapshot_is_refused(tmp_path):
    root = small_project(tmp_path / "p")
    victim = root / "package.json"
    victim.write_text('{"name": "x"}\n')
    run = docgen("snapshot", "--from", str(tmp_path / "nowhere"), "-o", str(victim), cwd=root)
    assert run.returncode == 2
    assert victim.read_text() == '{"name": "x"}\n'


LONG_INT = "1" * 5000

BIG_CASES = {
    "pyproject holds an over-long integer": snapshot_case(pyproject=PYPROJECT + f"\n[tool.big]\nv = {LONG_INT}\n"),
    "lock holds an over-long integer": snapshot_case(lock=LOCK + f"\n[manifest]\nbig = {LONG_INT}\n"),
    "registry facts hold an over-long integer": snapshot_case(
        registry=json.dumps({**REGISTRY, "big": "@"}).replace('"@"', LONG_INT)),
    "snapshot holds an over-long integer": snapshot_file_case('{"format": 1,\n "big": ' + LONG_INT + "}\n"),
    "snapshot repeats a key": snapshot_file_case('{"format": 1,\n "format": 2}\n'),
    "registry facts repeat a key": snapshot_case(
        registry=json.dumps(REGISTRY, indent=1)[:-2] + ',\n "registry": []\n}'),
}


@pytest.mark.probe("malformed input")
@pytest.mark.parametrize("case", sorted(BIG_CASES), ids=lambda c: c.replace(" ", "-"))
def test_long_integers_and_repeated_keys_are_bad_input(case, tmp_path, monkeypatch):
    monkeypatch.setitem(CORPUS, case, BIG_CASES[case])
    check_bad_input(case, tmp_path)
