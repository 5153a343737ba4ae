"""The README's copy-paste snippets for adopting docgen are valid as written: the [tool.docgen] table loads
through docgen's own configuration reader, the workflow job passes actionlint and GitHub's workflow schema,
and the pre-commit snippet names hooks this repository publishes. The two commands .ci/run relies on stay."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
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


# ------------------------------------------------------------------------- the routine, followed literally

def routine_script() -> str:
    """The bash blocks of the everyday routine, in order, as one script."""
    section = README.split("### The everyday routine", 1)[1].split("\n### ", 1)[0]
    return "".join(re.findall(r"^```bash\n(.*?)^```$", section, re.M | re.S))


@pytest.fixture(scope="module")
def followed(tmp_path_factory):
    """The routine run as written in a scratch copy of this repository (its tracked files as they are now, the
    snapshot re-recorded at commit A of a local mirror, committed), the mirror standing in for NEMO_RL_REPO
    (git's url.insteadOf), no Docker engine reachable, and the project's venv as the copy's .venv (so the
    first step finds docgen there)."""
    import time

    from tests.reference import REASON, reference_present
    if not reference_present():
        pytest.skip(REASON)
    from tests.bump_scratch import docgen, scratch
    from tests.rl_checkout import FORK_URL, git

    s = scratch(tmp_path_factory.mktemp("routine"))
    git("config", "--global", f"url.{s['mirror']}.insteadOf", FORK_URL, env=s["env"])
    started = time.monotonic()
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", routine_script()], cwd=s["repo"], env=s["env"],
                         capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - started
    check = docgen("check", "--no-diff", cwd=s["repo"], env=s["env"], timeout=120)
    return {**s, "run": run, "check": check, "seconds": seconds}


def test_the_routine_installs_before_it_uses_docgen():
    script = routine_script()
    install = script.index("pip install")
    first_call = re.search(r"\.venv/bin/docgen \w+", script)
    assert first_call and install < first_call.start()
    commands = [c for c in script.splitlines() if c.strip() and not c.lstrip().startswith("#")]
    assert len(commands) == 3 and ".venv/bin/docgen bump" in commands[1]   # install, bump, commit


def test_the_routine_ends_green_committed_and_knowing_where_nemo_rl_came_from(followed):
    import json

    from tests.rl_checkout import git

    repo, run, check, env = followed["repo"], followed["run"], followed["check"], followed["env"]
    assert run.returncode == 0, run.stdout + run.stderr
    assert check.returncode == 0, check.stdout + check.stderr
    prov = json.loads((repo / "snapshot/nemo-rl.json").read_text())["provenance"]
    assert (prov["repo"], prov["ref"], prov["commit"]) == ("soluwalana/RL", "nmp/customizer", followed["b"])
    assert git("status", "--porcelain", env=env, cwd=repo) == ""
    assert git("log", "-1", "--format=%s", env=env, cwd=repo) == "Move to a newer NeMo-RL"
    assert "tqdm 4.69.0 -> 4.69.1" in (followed["tmp"] / "bump-pr.md").read_text()
    assert "snapshot/nemo-rl.json" in git("show", "--name-only", "--format=", "HEAD", env=env, cwd=repo)
