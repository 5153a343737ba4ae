"""Every workflow and the Dependabot configuration under .github/, audited as CI audits them: zizmor (the
security audit, offline) and actionlint (with shellcheck on every `run:` script) report nothing, and each
catches a planted fault; every action is pinned by commit; no checkout keeps credentials; Dependabot covers
the actions, requirements/ and mermaid."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.test_workflow import actionlint, schema_check, tool

REPO = Path(__file__).resolve().parents[1]
GITHUB = REPO / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))


def zizmor(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([tool("zizmor"), "--offline", "--no-progress", "--format", "plain", str(path)],
                          capture_output=True, text=True, timeout=300)


def test_zizmor_finds_nothing():
    run = zizmor(GITHUB)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "No findings to report" in run.stdout + run.stderr


def test_zizmor_catches_a_checkout_that_keeps_its_credentials(tmp_path):
    """The reusable workflow as it was (issue 31): checkout's default persists the token in .git/config."""
    planted = tmp_path / ".github" / "workflows" / "docgen-check.yml"
    planted.parent.mkdir(parents=True)
    text = (GITHUB / "workflows" / "docgen-check.yml").read_text()
    assert text.count("persist-credentials: false") == 1
    planted.write_text(re.sub(r"\n +persist-credentials: false[^\n]*", "", text))
    run = zizmor(tmp_path / ".github")
    assert run.returncode != 0 and "artipacked" in run.stdout + run.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actionlint_and_the_schema_accept_every_workflow(path):
    lint = actionlint(path)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert schema_check(path).returncode == 0


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_and_no_checkout_keeps_credentials(path):
    text = path.read_text()
    for ref, rest in re.findall(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$", text, re.M):
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{path.name}: {ref} is not pinned by commit"
        assert re.match(r"\s+# v\d+(\.\d+)*$", rest), f"{path.name}: {ref}: no `# vX.Y.Z` tag comment beside it"
    steps = [s for job in yaml.safe_load(text)["jobs"].values() for s in job.get("steps", [])]
    for step in steps:
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, path.name


def test_dependabot_covers_actions_python_tools_and_mermaid():
    config = yaml.safe_load((GITHUB / "dependabot.yml").read_text())
    got = {(u["package-ecosystem"], u["directory"]) for u in config["updates"]}
    assert got == {("github-actions", "/"), ("pip", "/requirements"), ("npm", "/")}
    assert (REPO / "requirements" / "dev.txt").is_file() and '"mermaid"' in (REPO / "package.json").read_text()
    assert shutil.which("git")
