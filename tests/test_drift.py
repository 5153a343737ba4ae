"""The pull-request drift check end to end: `docgen write` / `check` / `lint` through the command line on a
repository copy (in this interpreter, tests/docgen_cli.py; the killed `write` as real processes).

What must hold: on the committed repository `check` is clean and `write` changes nothing; dropping the mcore
filter makes `check` fail naming the filter, the venv count and the Dockerfile comments that now lie; `write`
fixes the docs but not the Dockerfile; bad input changes nothing; a killed `write` never leaves half a file.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_mutations import REPO_INPUTS, not_inputs

sys.path.insert(0, str(Path(__file__).parent / "unit"))
from tests.unit.blocks_fixtures import DOCKERFILE, write_inputs  # noqa: E402

from docgen.project import DEFAULTS  # noqa: E402
FACTS_FILE = DEFAULTS["facts"]
from docgen.cli import main  # noqa: E402
from docgen.render.generators import GENERATORS  # noqa: E402
from tests.docgen_cli import docgen  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MCORE_FILTER = " \\\n    megatron_policy_worker.MegatronPolicyWorker\n"  # the fixture's last filter


def without_mcore(text: str) -> str:
    assert MCORE_FILTER in text
    return text.replace(MCORE_FILTER, "\n")


def snapshot_tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def small_repo(root: Path, dockerfile: str = DOCKERFILE) -> Path:
    """A repository copy from the small fixture: every generator and some values on two pages."""
    write_inputs(root, dockerfile)
    (root / "docs" / "sub").mkdir(parents=True)
    blocks = "".join(f"## {name}\n\n<!-- docgen:begin {name} -->\n<!-- docgen:end {name} -->\n\n" for name in GENERATORS)
    (root / "docs" / "sub" / "all.md").write_text("# Everything\n\n" + blocks)
    (root / "README.md").write_bytes(
        b"# nmp-rl-base\r\n\r\nIts <!-- docgen:value filters.count.word --><!-- docgen:end-value --> filters give "
        b"<!-- docgen:value venvs.count --><!-- docgen:end-value --> venvs.\r\n\r\n"
        b"<!-- docgen:begin filter-table -->\r\n<!-- docgen:end filter-table -->\r\n")
    return root


# --------------------------------------------------------------------------------------- the repository



@pytest.fixture
def repo_copy(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    for rel in REPO_INPUTS:
        src = REPO / rel
        if src.is_dir():
            shutil.copytree(src, root / rel, ignore=not_inputs)
        elif src.exists():
            shutil.copy2(src, root / rel)
    return root


def test_committed_repository_is_clean_and_write_changes_nothing(repo_copy):
    result = docgen("check", "--root", str(REPO))
    assert result.returncode == 0, result.stdout + result.stderr
    before = snapshot_tree(repo_copy)
    assert docgen("write", "--root", str(repo_copy)).returncode == 0
    assert snapshot_tree(repo_copy) == before


def test_dropping_the_mcore_filter_in_the_repository_copy(repo_copy):
    dockerfile = repo_copy / "Dockerfile.nmp-rl-base"
    text = dockerfile.read_text()
    line = next(ln for ln in text.splitlines(keepends=True) if ln.strip().rstrip("\\").strip()
                == "megatron_policy_worker.MegatronPolicyWorker")
    dockerfile.write_text(text.replace(line, "", 1))
    result = docgen("check", "--root", str(repo_copy))
    assert result.returncode == 1
    assert "filters: -megatron_policy_worker.MegatronPolicyWorker" in result.stdout
    assert "venvs 9 -> 8" in result.stdout
    assert "[count-statement]" in result.stdout
    assert docgen("write", "--root", str(repo_copy)).returncode == 0
    again = docgen("check", "--root", str(repo_copy))
    assert again.returncode == 1 and "stale" not in again.stdout
    assert "[count-statement]" in again.stdout and "[verify-list]" in again.stdout


# ------------------------------------------------------------------------------------ the small fixture

def test_drift_scenario_end_to_end(tmp_path):
    root = small_repo(tmp_path / "repo")
    assert docgen("check", "--root", str(root)).returncode == 1  # never rendered
    assert docgen("write", "--root", str(root)).returncode == 0
    clean = snapshot_tree(root)
    assert docgen("check", "--root", str(root)).returncode == 0
    assert docgen("write", "--root", str(root)).returncode == 0 and snapshot_tree(root) == clean
    assert b"\r\n<!-- docgen:end filter-table body=" in clean["README.md"]  # CRLF page stays CRLF
    assert clean["README.md"].startswith(b"# nmp-rl-base\r\n\r\nIts <!-- docgen:value filters.count.word -->three<")

    dockerfile = root / "Dockerfile.nmp-rl-base"
    dockerfile.write_text(without_mcore(DOCKERFILE))
    quiet_log = docgen("check", "--root", str(root))   # not a terminal: no diff unless asked for
    assert quiet_log.returncode == 1 and "-| `megatron_policy_worker" not in quiet_log.stdout
    assert "(--diff shows what would change.)" in quiet_log.stderr
    result = docgen("check", "--root", str(root), "--diff")
    out = result.stdout
    assert result.returncode == 1
    assert "facts changed since the docs were written: filters: -megatron_policy_worker.MegatronPolicyWorker" in out
    assert "venvs 4 -> 3" in out
    assert "docs/sub/all.md:" in out
    assert "block `filter-table` is stale: its text differs from what the current facts render" in out
    assert "-| `megatron_policy_worker.MegatronPolicyWorker` |" in out  # the unified diff
    assert "README.md:3: value `venvs.count` is stale: '4' -> '3'" in out
    comment_line = DOCKERFILE.splitlines().index("# Three filters -> four venvs.") + 1
    assert (f"Dockerfile.nmp-rl-base:{comment_line}: [count-statement] comment 'Three filters -> four venvs.' "
            "says 3 filters, 4 venvs; the registry gives two (2) filters, three (3) venvs") in out
    assert "[verify-list]" in out and "[not-prefetched-list]" in out
    assert snapshot_tree(root)["docs/sub/all.md"] == clean["docs/sub/all.md"]  # check wrote nothing

    assert docgen("write", "--root", str(root)).returncode == 0
    facts = json.loads((root / FACTS_FILE).read_text())
    assert facts["counts"]["venvs"] == 3 and "megatron_policy_worker.MegatronPolicyWorker" not in facts["filters"]
    result = docgen("check", "--root", str(root))
    assert result.returncode == 1 and "stale" not in result.stdout and "facts changed" not in result.stdout
    assert {"[count-statement]", "[verify-list]", "[not-prefetched-list]"} <= set(result.stdout.split())

    fixed = (without_mcore(DOCKERFILE)
             .replace("# Three filters -> four venvs.", "# Two filters -> three venvs.")
             .replace("    rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker; do",
                      "    ; do")
             .replace("#   rl.models.value.workers.dtensor_value_worker_v2",
                      "#   rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker: built on first use\n"
                      "#   rl.models.value.workers.dtensor_value_worker_v2"))
    fixed = fixed.replace("DTensorPolicyWorkerV2 \\\n    ; do", "DTensorPolicyWorkerV2; do")
    dockerfile.write_text(fixed)
    assert docgen("write", "--root", str(root)).returncode == 0  # the new reason shows in the docs
    result = docgen("check", "--root", str(root))
    assert result.returncode == 0, result.stdout


def test_hand_edited_block_is_reported(tmp_path):
    root = small_repo(tmp_path / "repo")
    assert main(["write", "--root", str(root)]) == 0
    page = root / "docs" / "sub" / "all.md"
    page.write_text(page.read_text().replace("| `vllm.vllm_worker` |", "| `vllm.vllm_worker` (edited) |"))
    result = docgen("check", "--root", str(root))
    assert result.returncode == 1 and "block `filter-table` is stale: edited by hand" in result.stdout


def test_github_and_json_formats(tmp_path):
    root = small_repo(tmp_path / "repo")
    assert main(["write", "--root", str(root)]) == 0
    (root / "Dockerfile.nmp-rl-base").write_text(without_mcore(DOCKERFILE))
    github = docgen("check", "--root", str(root), "--format", "github", "--max-annotations", "100")
    assert github.returncode == 1
    annotations = [ln for ln in github.stdout.splitlines() if ln.startswith("::error ")]
    assert any(ln.startswith("::error file=docs/sub/all.md,line=") and "`filter-table` is stale" in ln for ln in annotations)
    assert any(ln.startswith("::error file=Dockerfile.nmp-rl-base,line=") and "count-statement" in ln for ln in annotations)
    assert any("facts changed" in ln and "venvs 4 -> 3" in ln for ln in annotations)
    report = json.loads(docgen("check", "--root", str(root), "--format", "json").stdout)
    assert report["ok"] is False
    assert {f["check"] for f in report["findings"]} == {"count-statement", "verify-list", "not-prefetched-list"}
    assert "venvs 4 -> 3" in report["facts_changes"]
    stale = {b["generator"] for b in report["stale_blocks"]}
    assert {"filter-table", "venv-inventory", "diagram-build"} <= stale and "build-options" not in stale
    lint = docgen("lint", "--root", str(root), "--format", "json")
    assert lint.returncode == 1 and json.loads(lint.stdout)["stale_blocks"] == []


def test_coverage_and_unknown_names(tmp_path):
    root = small_repo(tmp_path / "repo")
    page = root / "docs" / "sub" / "all.md"
    page.write_text(page.read_text().replace("<!-- docgen:begin te-consumers -->\n<!-- docgen:end te-consumers -->\n", ""))
    result = docgen("lint", "--root", str(root))
    assert result.returncode == 1 and "no page renders the required generator `te-consumers`" in result.stdout
    page.write_text(page.read_text() + "<!-- docgen:value venvs.cuont --><!-- docgen:end-value -->\n")
    result = docgen("check", "--root", str(root))
    assert result.returncode == 2 and "unknown value 'venvs.cuont'" in result.stderr


def test_bad_input_changes_nothing(tmp_path):
    root = small_repo(tmp_path / "repo")
    (root / "docs" / "broken.md").write_text("ok\n\n<!-- docgen:begin filter-table -->\nno end\n")
    before = snapshot_tree(root)
    result = docgen("write", "--root", str(root))
    assert result.returncode == 2
    assert result.stderr.strip() == ("docgen: error: docs/broken.md:3: docgen:begin filter-table is never closed "
                                     "by docgen:end filter-table")
    assert "Traceback" not in result.stderr and snapshot_tree(root) == before


def test_failed_replace_leaves_every_page_whole_and_says_which_changed(tmp_path, monkeypatch, capsys):
    written = small_repo(tmp_path / "written")
    assert main(["write", "--root", str(written)]) == 0
    after = snapshot_tree(written)
    root = small_repo(tmp_path / "repo")
    before = snapshot_tree(root)

    real_replace, calls = os.replace, []

    def second_replace_fails(src, dst):  # the first page is replaced, then the disk fills up
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)
    monkeypatch.setattr(os, "replace", second_replace_fails)
    assert main(["write", "--root", str(root)]) == 2
    first = Path(calls[0]).relative_to(root).as_posix()
    assert (f"{calls[1]}: cannot write: No space left on device; 1 of 3 files were replaced already ({first}) "
            "and the others are as they were: run docgen write again") in capsys.readouterr().err
    now = snapshot_tree(root)   # no temporary file left, the first file new, the others as they were
    assert now == {**before, first: after[first]}


def test_killed_write_never_leaves_half_a_file(tmp_path):
    root = small_repo(tmp_path / "repo")
    pages = [root / "README.md", root / "docs" / "sub" / "all.md"]
    assert main(["write", "--root", str(root)]) == 0
    rendered = {p: p.read_bytes() for p in pages}
    for p in pages:  # un-render: every write below has work to do
        text = p.read_bytes()
        while b" body=" in text:
            start = text.index(b" body=")
            text = text[:start] + text[text.index(b" -->", start):]
        p.write_bytes(text)
    blank = {p: p.read_bytes() for p in pages}
    command = [sys.executable, "-m", "docgen", "write", "--root", str(root)]
    # The sweep's step is a 25th of how long a whole write takes on this machine now (a loaded one is slower);
    # it widens until kills landed both before and after the writes, however long that takes.
    started = time.monotonic()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    whole = time.monotonic() - started
    for p in pages:
        assert p.read_bytes() == rendered[p]
        p.write_bytes(blank[p])
    step = max(0.02, whole / 25)
    outcomes: set[bool] = set()
    kills = 0
    for delay in (step * n for n in itertools.count(1)):
        assert delay < 50 * whole + 10, f"no kill landed both before and after the writes (a whole write: {whole:.2f}s)"
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        for p in pages:
            data = p.read_bytes()
            assert data in (blank[p], rendered[p]), f"{p.name} is half written after a kill at {delay:.2f}s"
            outcomes.add(data == rendered[p])
            p.write_bytes(blank[p])
        # (a SIGKILL between writing the temp file and os.replace may leave that temp file; the page is whole)
        if outcomes == {True, False} and kills >= 10:
            break
    assert outcomes == {True, False}, "the kills should land both before and after the writes"
    # a kill between staging and replacing may leave staged files; the next write clears those of dead writers
    assert main(["write", "--root", str(root)]) == 0
    assert [p.name for p in root.rglob("*docgen-tmp*")] == []


def test_a_page_asking_for_a_fact_the_dockerfile_lacks_names_the_page_line(tmp_path):
    root = small_repo(tmp_path / "repo", DOCKERFILE.replace("ARG UV_VERSION=0.11.33\n", ""))
    (root / "docs" / "uv.md").write_text("# uv\n\nThe image ships uv <!-- docgen:value uv.version -->"
                                        "<!-- docgen:end-value -->.\n")
    before = snapshot_tree(root)
    for command in ("check", "write"):
        result = docgen(command, "--root", str(root))
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("docgen: error: docs/uv.md:3: value uv.version: ")
        assert "UV_VERSION" in result.stderr and "Traceback" not in result.stderr
    assert snapshot_tree(root) == before
