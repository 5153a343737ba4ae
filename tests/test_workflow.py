"""The pull-request workflow (.github/workflows/docs.yml), checked without GitHub: actionlint and GitHub's
workflow schema (vendored by check-jsonschema) accept it and reject a broken copy, and it keeps the promises
the README makes: actions pinned by commit, a timeout on every job, the PR's changed files handed to
docgen check, the engine requirement checked by scripts/check-engine (the one place its minimum lives), apt
indexes updated before installs, no credentials left in checkouts, the site published from the default
branch only and without waiting for the image job."""

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
    assert engine and "scripts/check-engine" in engine[0]["run"]
    provision = [s for s in jobs["image"]["steps"] if "docker/setup-docker-action@" in s.get("uses", "")]
    assert provision and provision[0]["if"] == "steps.engine.outputs.provision == 'true'"
    # one source for the minimum: the provisioned version is what scripts/check-engine prints
    assert provision[0]["with"]["version"] == "v${{ steps.engine.outputs.minimum }}"
    assert not re.search(r"\b2[0-9]\.[0-9]", engine[0]["run"] + str(provision[0]["with"]))


def _run_engine_gate(tmp_path: Path, workflow: dict, server_version: str | None) -> dict[str, str]:
    """The image job's engine step, run as the runner runs it, against a docker that reports
    `server_version` (None: no engine answers); returns what the step wrote to $GITHUB_OUTPUT."""
    [step] = [s for s in workflow["jobs"]["image"]["steps"] if s.get("id") == "engine"]
    fake = tmp_path / "bin" / "docker"
    fake.parent.mkdir(exist_ok=True)
    answer = f"echo {server_version}" if server_version else "exit 1"
    fake.write_text(f"#!/bin/sh\n{answer}\n")
    fake.chmod(0o755)
    out = tmp_path / "github-output"
    out.write_text("")
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}", "GITHUB_OUTPUT": str(out)}
    env.pop("DOCKER", None)
    run = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=30)
    assert run.returncode == 0, run.stderr
    return dict(line.split("=", 1) for line in out.read_text().splitlines())


@pytest.mark.parametrize("server, provision", [
    ("28.0.4", "true"),          # the stock ubuntu-24.04 runner's engine: major 28, still too old
    ("27.5.1", "true"), (None, "true"),
    ("28.5.0", "false"), ("28.5.2+dfsg4", "false"), ("29.0.1", "false")])
def test_the_engine_gate_compares_the_full_version_against_check_engines_minimum(tmp_path, workflow, server,
                                                                                  provision):
    minimum = subprocess.run([str(REPO / "scripts/check-engine"), "--minimum"], capture_output=True, text=True,
                             check=True).stdout.strip()
    assert _run_engine_gate(tmp_path, workflow, server) == {"minimum": minimum, "provision": provision}


def test_apt_indexes_are_updated_before_any_install(workflow):
    for name, job in workflow["jobs"].items():
        script = "\n".join(s.get("run", "") for s in job.get("steps", []))
        installs = [m.start() for m in re.finditer(r"apt-get install", script)]
        if installs:
            update = script.find("apt-get update")
            assert 0 <= update < installs[0], name


def test_checkouts_keep_no_credentials(workflow):
    checkouts = [s for job in workflow["jobs"].values() for s in job.get("steps", [])
                 if s.get("uses", "").startswith("actions/checkout@")]
    assert len(checkouts) == len([j for j in workflow["jobs"].values()
                                  if any("checkout@" in s.get("uses", "") for s in j.get("steps", []))])
    assert checkouts and all(s.get("with", {}).get("persist-credentials") is False for s in checkouts)


def test_pages_publish_the_default_branch_as_dev_and_release_tags_with_mike(workflow):
    jobs = workflow["jobs"]
    pages = jobs["pages"]
    condition = " ".join(pages["if"].split())
    assert "default_branch" in condition and "push" in condition and "github.ref_type == 'tag'" in condition
    assert workflow[True]["push"]["tags"] == ["v*"]   # only a release tag moves latest (yaml reads `on` as True)
    # published when the docs' own jobs pass, whether or not the image job could run on the runner
    assert condition.startswith("always() ") and "needs.image.result" not in condition
    assert all(f"needs.{job}.result == 'success'" in condition for job in ("drift", "unit", "site"))
    assert pages["permissions"] == {"contents": "write"}
    steps = pages["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0   # the changelog page reads the snapshot's history
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
    publish = next(i for i, s in enumerate(steps) if "scripts/publish-docs" in s.get("run", ""))
    assert download < write < build < publish
    script = steps[publish]["run"]
    # scripts/publish-docs runs mike (tests/site/test_versions.py runs it as this step does)
    assert 'scripts/publish-docs tag "$REF_NAME"' in script and "scripts/publish-docs branch" in script
    assert "git push" in script and "gh-pages" in script
    assert not [s for s in jobs["site"]["steps"] if "upload-pages-artifact" in s.get("uses", "")]
