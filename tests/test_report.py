"""`docgen check` reports for a review, through the CLI on a small repository copy: changed files first,
GitHub's annotation cap with a last annotation naming the rest, a Markdown job summary (facts, findings,
diff folded), --diff/--quiet, the fix command, and end markers that change only with their block's text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from tests.docgen_cli import docgen
from tests.test_drift import DOCKERFILE, small_repo, snapshot_tree, without_mcore
from tests.unit.blocks_fixtures import snapshot_data

DOCS = "docs/sub/all.md"


def broken_repo(tmp_path):
    """Written, then the mcore filter dropped: 3 findings on the Dockerfile and many stale blocks."""
    root = small_repo(tmp_path / "repo")
    assert docgen("write", "--root", str(root)).returncode == 0
    (root / "Dockerfile.nmp-rl-base").write_text(without_mcore(DOCKERFILE))
    return root


def annotations_of(stdout: str) -> list[str]:
    return [ln for ln in stdout.splitlines() if ln.startswith("::error ")]


def test_annotations_are_capped_with_a_last_one_saying_how_many_more_and_where(tmp_path):
    root = broken_repo(tmp_path)
    every = annotations_of(docgen("check", "--root", str(root), "--format", "github",
                                  "--max-annotations", "1000").stdout)
    assert len(every) > 10
    result = docgen("check", "--root", str(root), "--format", "github")
    capped = annotations_of(result.stdout)
    assert result.returncode == 1 and len(capped) == 10
    assert capped[:9] == every[:9]
    left = len(every) - 9
    assert capped[-1].startswith(f"::error title=docgen%3A {left} more::{left} more not annotated")
    per_file = dict((p, int(n)) for n, p in re.findall(r"(\d+) in ([\w./-]+)", capped[-1].split("::", 2)[2]))
    assert sum(per_file.values()) == left and DOCS in per_file
    # nothing is lost: every item is in the log as a plain line too
    assert sum(1 for ln in result.stdout.splitlines() if not ln.startswith("::")) == len(every)
    three = annotations_of(docgen("check", "--root", str(root), "--format", "github", "--max-annotations", "3").stdout)
    assert len(three) == 3 and "more not annotated" in three[-1]


def test_items_on_changed_files_come_first(tmp_path):
    root = broken_repo(tmp_path)

    def order(*extra):
        out = docgen("check", "--root", str(root), "--format", "json", *extra).stdout
        return [i["path"] for i in json.loads(out)["order"]]

    facts = "docs/.docgen-facts.json"
    default = order()
    assert default[0] == facts
    on_page = order("--changed-files", DOCS)
    assert on_page[0] == facts and set(on_page[1:1 + default.count(DOCS)]) == {DOCS}
    assert sorted(on_page) == sorted(default)
    listing = tmp_path / "changed.txt"
    listing.write_text("README.md\n\n")
    from_file = order("--changed-files-from", str(listing))
    assert from_file[1:1 + default.count("README.md")] == ["README.md"] * default.count("README.md")
    # the list on standard input, as a workflow pipes `git diff --name-only`
    piped = docgen("check", "--root", str(root), "--format", "json", "--changed-files-from", "-", input="README.md\n")
    assert [i["path"] for i in json.loads(piped.stdout)["order"]] == from_file
    # relative to the working directory works as well as relative to the top level
    (root / "docgen.toml").write_text("# the defaults\n")
    from_inside = docgen("check", "--format", "json", "--changed-files", "all.md", cwd=root / "docs" / "sub")
    assert [i["path"] for i in json.loads(from_inside.stdout)["order"]] == on_page


def test_missing_changed_files_list_is_bad_input(tmp_path):
    root = broken_repo(tmp_path)
    result = docgen("check", "--root", str(root), "--changed-files-from", str(tmp_path / "nope.txt"))
    assert result.returncode == 2 and "nope.txt" in result.stderr and "Traceback" not in result.stderr
    result = docgen("check", "--root", str(root), "--max-annotations", "0")
    assert result.returncode == 2 and "at least 1" in result.stderr


def test_job_summary_puts_facts_first_then_findings_then_the_diff_folded(tmp_path):
    root = broken_repo(tmp_path)
    summary = tmp_path / "summary.md"
    summary.write_text("## an earlier step\n")
    result = docgen("check", "--root", str(root), "--summary", str(summary), "--changed-files",
                    "Dockerfile.nmp-rl-base")
    assert result.returncode == 1
    text = summary.read_text()
    assert text.startswith("## an earlier step\n## docgen check: failed")   # appended, as steps do
    assert f"run `docgen write --root {root}`" in text
    facts_at, findings_at = text.index("### What changed in the facts"), text.index("### Findings")
    stale_at, diff_at = text.index("### Stale docs"), text.index("<details>")
    assert facts_at < findings_at < stale_at < diff_at
    assert "- venvs 4 -&gt; 3" in text[facts_at:findings_at]   # Markdown text: `>` as an entity
    assert "(changed in this pull request): [count-statement]" in text[findings_at:stale_at]
    assert "-| `megatron_policy_worker.MegatronPolicyWorker` |" in text[diff_at:]
    assert text.rstrip().endswith("</details>")


def test_summary_defaults_to_github_step_summary_with_the_github_format(tmp_path):
    root = broken_repo(tmp_path)
    summary = tmp_path / "step-summary.md"
    env = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary), CI="true")
    run = lambda *a: docgen("check", "--root", str(root), *a, env=env)  # noqa: E731
    assert run().returncode == 1 and not summary.exists()       # text format: a terminal, not a job
    assert run("--format", "github").returncode == 1 and "## docgen check: failed" in summary.read_text()
    (tmp_path / "dir").mkdir()
    bad = run("--format", "github", "--summary", str(tmp_path / "dir"))
    assert bad.returncode == 2 and "summary" in bad.stderr and "Traceback" not in bad.stderr


def test_passing_summary_says_so(tmp_path):
    root = small_repo(tmp_path / "repo")
    assert docgen("write", "--root", str(root)).returncode == 0
    summary = tmp_path / "s.md"
    assert docgen("check", "--root", str(root), "--summary", str(summary)).returncode == 0
    assert summary.read_text().startswith("## docgen check: passed")


def test_quiet_prints_one_line_naming_the_fix(tmp_path):
    root = broken_repo(tmp_path)
    result = docgen("check", "--root", str(root), "--quiet", "--diff")
    assert result.returncode == 1 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("docgen: ") and "3 findings" in line
    assert f"Fix the docs with `docgen write --root {root}` and commit the result" in line
    (root / "docgen.toml").write_text("# the defaults\n")
    from_root = docgen("check", "-q", cwd=root)
    assert "Fix the docs with `docgen write` and commit" in from_root.stderr
    # findings only: the message names the file to edit, not docgen write
    assert docgen("write", "--root", str(root)).returncode == 0
    only = docgen("check", "--root", str(root), "-q")
    assert only.returncode == 1 and "docgen write" not in only.stderr and "Edit Dockerfile.nmp-rl-base" in only.stderr


def test_diff_is_on_only_when_asked_or_at_a_terminal(tmp_path):
    import pty

    root = broken_repo(tmp_path)
    assert "+++ b/docs/sub/all.md" not in docgen("check", "--root", str(root)).stdout
    assert "+++ b/docs/sub/all.md" in docgen("check", "--root", str(root), "--diff").stdout
    # at a terminal the diff is on by default, unless CI is set
    for ci, expect in ((None, True), ("true", False)):
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        if ci:
            env["CI"] = ci
        leader, follower = pty.openpty()
        # a real process: its standard output is a terminal, which only a process of its own can have
        proc = subprocess.Popen([sys.executable, "-m", "docgen", "check", "--root", str(root)], stdout=follower,
                                stderr=subprocess.DEVNULL, env=env)
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=60)
        os.close(leader)
        assert ("+++ b/docs/sub/all.md" in b"".join(chunks).decode()) is expect, ci


def test_lock_only_change_reports_the_blocks_whose_text_moved_and_nothing_else(tmp_path):
    root = small_repo(tmp_path / "repo")
    assert docgen("write", "--root", str(root)).returncode == 0
    before = snapshot_tree(root)
    data = snapshot_data(te_version="2.16.0+1")
    (root / "snapshot" / "nemo-rl.json").write_text(json.dumps(data, indent=1))
    report = json.loads(docgen("check", "--root", str(root), "--format", "json").stdout)
    stale = report["stale_blocks"]
    assert stale and all(b["text_changed"] and "differs from what the current facts render" in b["message"]
                         for b in stale), stale
    assert report["old_stamps"] == [] and "stale_stamps" not in report
    assert any("transformer-engine" in f for f in report["facts_changes"])   # the facts say what moved
    assert docgen("write", "--root", str(root)).returncode == 0
    assert docgen("check", "--root", str(root)).returncode == 0
    after = snapshot_tree(root)
    old_lines, new_lines = before[DOCS].decode().splitlines(), after[DOCS].decode().splitlines()
    # the end markers that moved are those of the stale blocks, one each, and no other
    moved_ends = [ln for ln in new_lines if "docgen:end " in ln and ln not in old_lines]
    assert len(moved_ends) == sum(b["path"] == DOCS for b in stale) > 0


def test_comment_only_dockerfile_edit_changes_nothing(tmp_path):
    root = small_repo(tmp_path / "repo")
    assert docgen("write", "--root", str(root)).returncode == 0
    dockerfile = root / "Dockerfile.nmp-rl-base"
    dockerfile.write_text(DOCKERFILE.replace("ENV UV_CACHE_DIR=/opt/uv_cache\n",
                                             "ENV UV_CACHE_DIR=/opt/uv_cache\n# a note no page shows\n"))
    before = snapshot_tree(root)
    result = docgen("check", "--root", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "" and "stamp" not in result.stderr
    assert docgen("write", "--root", str(root)).returncode == 0
    assert snapshot_tree(root) == before


def test_old_input_stamps_are_a_note_not_drift_and_write_drops_them(tmp_path):
    root = small_repo(tmp_path / "repo")
    assert docgen("write", "--root", str(root)).returncode == 0
    page = root / DOCS
    current = page.read_text()
    page.write_text(current.replace(" body=", " inputs=v2:dockerfile:0bad0bad,lock:12345678 body="))
    result = docgen("check", "--root", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
    [note] = [ln for ln in result.stderr.splitlines() if "input stamps" in ln]
    assert "end markers of version 2" in note and "not drift" in note and "docgen write" in note
    report = json.loads(docgen("check", "--root", str(root), "--format", "json").stdout)
    assert report["ok"] and report["old_stamps"] and report["stale_blocks"] == []
    assert docgen("write", "--root", str(root)).returncode == 0
    assert page.read_text() == current
    result = docgen("check", "--root", str(root))
    assert result.returncode == 0 and "input stamps" not in result.stderr
