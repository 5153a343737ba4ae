"""BuildKit's own Dockerfile checks (`--call=check`) report no warning for either bake target.

The production target's base image is on a registry this machine cannot reach, and the check resolves
it, so here it points at the local base image; every other input is the production target's own.
Outputs go to the build cache only (no image is written or retagged).
"""

from __future__ import annotations

import pytest

from tests.image.bake import ROOT, bake, probe_tag

pytestmark = [pytest.mark.docker, pytest.mark.image]

CLEAN = "Check complete, no warnings found."
LOCAL_BASE = "local/python:3.13-trixie"


def check(target: str, *extra: str):
    return bake(target, "--call=check", "--set", f"{target}.output=type=cacheonly",
                "--set", f"{target}.tags={probe_tag('check')}", *extra, timeout=120)


@pytest.mark.parametrize("target, extra", [
    ("hermetic", ()),
    ("production", ("--set", f"production.args.BASE_IMAGE={LOCAL_BASE}")),
])
def test_no_check_warnings(hermetic_image, target, extra):
    proc = check(target, *extra)
    assert proc.returncode == 0 and CLEAN in proc.stdout, proc.stdout[-3000:]


def test_the_check_reports_a_warning_when_there_is_one(hermetic_image, tmp_path):
    # the same Dockerfile with one stage's `AS` spelled in lower case: BuildKit's FromAsCasing rule
    text = (ROOT / "Dockerfile.nmp-rl-base").read_text()
    assert "FROM base AS builder" in text
    bad = tmp_path / "Dockerfile.casing"
    bad.write_text(text.replace("FROM base AS builder", "FROM base as builder"))
    proc = check("hermetic", "--set", f"hermetic.dockerfile={bad}", f"--allow=fs.read={tmp_path}")
    assert CLEAN not in proc.stdout and "FromAsCasing" in proc.stdout, proc.stdout[-3000:]
