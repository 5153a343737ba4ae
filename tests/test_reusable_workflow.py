"""The reusable workflow other repositories call for the drift check (.github/workflows/docgen-check.yml):
actionlint and GitHub's workflow schema accept it, a caller that omits its required input is rejected, and
it runs what it promises (docgen check --format github, given the pull request's files)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.test_workflow import actionlint, schema_check

REPO = Path(__file__).resolve().parents[1]
REUSABLE = REPO / ".github" / "workflows" / "docgen-check.yml"

CALLER = """name: docs
on: [pull_request]
permissions:
  contents: read
jobs:
  docs:
    uses: ./.github/workflows/docgen-check.yml
{with_block}"""


def test_actionlint_and_the_schema_accept_the_reusable_workflow():
    for check in (actionlint, schema_check):
        result = check(REUSABLE)
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("with_block, ok", [
    ('    with:\n      docgen: "docgen @ git+https://example.invalid/nmp-rl-base@v0.1.0"\n', True),
    ("", False),                                                           # the required input left out
    ('    with:\n      docgen: x\n      python: "3.12"\n', False),          # an input it does not have
])
def test_a_caller_is_checked_against_the_inputs_it_declares(tmp_path, with_block, ok):
    (tmp_path / ".git").mkdir()   # actionlint finds the project, and ./.github/workflows in it, by its .git
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    shutil.copy(REUSABLE, workflows / "docgen-check.yml")
    caller = workflows / "docs.yml"
    caller.write_text(CALLER.format(with_block=with_block))
    result = actionlint(caller)
    assert (result.returncode == 0) is ok, result.stdout + result.stderr


def test_it_is_called_not_triggered_and_runs_the_drift_check_with_the_changed_files():
    workflow = yaml.safe_load(REUSABLE.read_text())
    triggers = workflow[True]   # YAML 1.1 reads the key `on` as true
    assert list(triggers) == ["workflow_call"]
    assert triggers["workflow_call"]["inputs"]["docgen"]["required"] is True
    assert workflow["permissions"] == {"contents": "read"}
    [job] = workflow["jobs"].values()
    assert 0 < job["timeout-minutes"] <= 30
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert "docgen\" check --format github" in runs or "docgen check --format github" in runs
    assert "--changed-files-from" in runs and "git diff --name-only --relative" in runs
    for ref, rest in re.findall(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$", REUSABLE.read_text(), re.M):
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref) and re.match(r"\s+# v\d", rest), ref
