"""The README's copy-paste snippets for adopting docgen are valid as written: the [tool.docgen] table loads
through docgen's own configuration reader, the workflow job passes actionlint and GitHub's workflow schema,
and the pre-commit snippet names hooks this repository publishes. The two commands .ci/run relies on stay."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.test_workflow import actionlint, schema_check

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def fenced(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", README, re.M | re.S)


def test_the_two_set_up_commands_are_there():
    assert any(b == "bash scripts/bootstrap\n" for b in fenced("bash"))
    assert any(b == ".venv/bin/python -m pytest\n" for b in fenced("bash"))


def test_config_snippet_loads_through_docgens_reader(tmp_path):
    from docgen.project import find_project

    [toml] = fenced("toml")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"consumer\"\n\n" + toml)
    project = find_project(cwd=tmp_path)
    assert project.dockerfile == tmp_path / "docker/rl/Dockerfile.nmp-rl-base"
    assert project.pages == ("docker/rl/README.md", "docs/rl/**/*.md")
    assert project.required and all(isinstance(g, str) for g in project.required)
    from docgen.render.generators import GENERATORS
    assert set(project.required) <= set(GENERATORS)


def test_workflow_snippet_passes_actionlint_and_the_schema(tmp_path):
    [job] = [y for y in fenced("yaml") if y.startswith("jobs:")]
    wf = tmp_path / ".github" / "workflows" / "docgen.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text("name: docgen\non: [pull_request]\npermissions:\n  contents: read\n" + job)
    lint = actionlint(wf)
    assert lint.returncode == 0, lint.stdout
    assert schema_check(wf).returncode == 0
    assert "--changed-files-from" in job and "--format github" in job


def test_pre_commit_snippet_uses_published_hooks_with_a_pinned_tag():
    [snippet] = [y for y in fenced("yaml") if y.startswith("repos:")]
    [repo] = yaml.safe_load(snippet)["repos"]
    assert re.fullmatch(r"v\d+\.\d+\.\d+", repo["rev"])
    published = {h["id"] for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert {h["id"] for h in repo["hooks"]} <= published
