"""The pull-request workflow (.github/workflows/docs.yml), checked without GitHub: actionlint and GitHub's
workflow schema (vendored by check-jsonschema) accept it and reject a broken copy, and it keeps the promises
the README makes: actions pinned by commit, a timeout on every job, the PR's changed files handed to
docgen check, the engine requirement checked, the site published from the default branch only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: it is pinned in requirements/dev.txt (bash scripts/bootstrap)")
    return found


def actionlint(path: Path) -> subprocess.CompletedProcess:
    # shellcheck (pinned too) on PATH: actionlint then checks every `run:` script, as on GitHub's runners
    tool("shellcheck")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([tool("actionlint"), "-no-color", str(path)], capture_output=True, text=True,
                          timeout=120, env=env)


def schema_check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def test_actionlint_accepts_the_workflow_and_rejects_a_broken_copy(tmp_path):
    ok = actionlint(WORKFLOW)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = tmp_path / ".github" / "workflows" / "docs.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text(WORKFLOW.read_text().replace("steps.engine.outputs.provision", "steps.engin.outputs.provision"))
    bad = actionlint(broken)
    assert bad.returncode == 1 and "engin" in bad.stdout
    # and the shell inside the steps: an unquoted expansion is caught through shellcheck
    broken.write_text(WORKFLOW.read_text().replace('git diff --name-only "$BASE_SHA"...HEAD',
                                                   "git diff --name-only $BASE_SHA...HEAD"))
    bad = actionlint(broken)
    assert bad.returncode == 1 and "SC2086" in bad.stdout


def test_schema_accepts_the_workflow_and_rejects_a_broken_copy(tmp_path):
    ok = schema_check(WORKFLOW)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = tmp_path / "docs.yml"
    broken.write_text(WORKFLOW.read_text().replace("timeout-minutes: 10", "timeout-minutes: [ten]", 1))
    assert schema_check(broken).returncode == 1


def test_every_action_is_pinned_by_a_full_commit_with_its_tag_beside_it():
    uses = re.findall(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$", WORKFLOW.read_text(), re.M)
    assert len(uses) >= 8
    for ref, rest in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{ref} is not pinned by commit"
        assert re.match(r"\s+# v\d+(\.\d+)*$", rest), f"{ref}: no `# vX.Y.Z` tag comment beside it"


def test_every_job_has_a_timeout(workflow):
    for name, job in workflow["jobs"].items():
        assert isinstance(job.get("timeout-minutes"), int) and 0 < job["timeout-minutes"] <= 60, name


def test_the_jobs_run_what_the_pull_request_check_promises(workflow):
    jobs = workflow["jobs"]
    runs = {name: "\n".join(s.get("run", "") for s in job["steps"]) for name, job in jobs.items()}
    assert "docgen check --format github" in runs["drift"] and "--changed-files-from" in runs["drift"]
    assert "git diff --name-only" in runs["drift"]
    assert "pytest" in runs["unit"]
    assert "scripts/build-image" in runs["image"] and "tests/docs" in runs["image"]
    assert "tests/image/test_lock_to_image.py" in runs["image"]
    assert "scripts/build-docs" in runs["site"] and "tests/site" in runs["site"]
    engine = [s for s in jobs["image"]["steps"] if s.get("id") == "engine"]
    assert engine and "-ge 28" in engine[0]["run"]
    provision = [s for s in jobs["image"]["steps"] if "docker/setup-docker-action@" in s.get("uses", "")]
    assert provision and provision[0]["if"] == "steps.engine.outputs.provision == 'true'"


def test_pages_publish_only_from_the_default_branch_with_the_image_jobs_size_record(workflow):
    jobs = workflow["jobs"]
    pages = jobs["pages"]
    condition = " ".join(pages["if"].split())
    assert "default_branch" in condition and "push" in condition
    # published when the docs' own jobs pass, whether or not the image job could run on the runner
    assert condition.startswith("always() ") and "needs.image.result" not in condition
    assert all(f"needs.{job}.result == 'success'" in condition for job in ("drift", "unit", "site"))
    assert pages["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    steps = pages["steps"]
    used = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert used[-3:] == ["actions/upload-pages-artifact", "actions/configure-pages", "actions/deploy-pages"]
    # the record the image job measured reaches the pages before the site is built from them
    measure = [s for s in jobs["image"]["steps"] if "bench/image_size.py --record" in s.get("run", "")]
    upload = [s for s in jobs["image"]["steps"] if "actions/upload-artifact@" in s.get("uses", "")]
    assert measure and upload and upload[0]["with"]["name"] == "image-size"
    assert jobs["image"]["steps"].index(measure[0]) < jobs["image"]["steps"].index(upload[0])
    order = [s.get("uses", "").split("@")[0] or s.get("run", "") for s in steps]
    download = order.index("actions/download-artifact")
    assert steps[download]["with"]["name"] == "image-size"
    assert steps[download]["if"] == "needs.image.result == 'success'"
    write = next(i for i, s in enumerate(steps) if "docgen write" in s.get("run", ""))
    build = next(i for i, s in enumerate(steps) if "scripts/build-docs" in s.get("run", ""))
    assert download < write < build < order.index("actions/upload-pages-artifact")
    assert not [s for s in jobs["site"]["steps"] if "upload-pages-artifact" in s.get("uses", "")]
