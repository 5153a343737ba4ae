"""The resolved bake configuration (`docker buildx bake --print`): the production target imports and
exports a registry build cache named by variables; the local targets never do.

Exporting a cache needs a builder other than the docker driver with the classic image store (which
refuses it); this machine reaches no registry and has no such builder, so the cache itself is not
exercised here, only what bake would hand to BuildKit.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.image.bake import DOCKER, ROOT

pytestmark = [pytest.mark.docker]

REF = "registry.invalid/nmp/rl-base:buildcache"


def resolved(env: dict[str, str]) -> dict:
    if not shutil.which(DOCKER):
        pytest.skip(f"no docker CLI at {DOCKER}; set up with `bash scripts/bootstrap`")
    proc = subprocess.run([DOCKER, "buildx", "bake", "--print", "production", "hermetic", "hermetic-gym"],
                          cwd=ROOT, env={"PATH": "/usr/bin:/bin", **env}, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["target"]


def test_production_takes_registry_cache_refs():
    targets = resolved({"CACHE_FROM_REF": REF, "CACHE_TO_REF": REF})
    prod = targets["production"]
    assert prod["cache-from"] == [{"type": "registry", "ref": REF}]
    assert prod["cache-to"] == [{"type": "registry", "ref": REF, "mode": "max"}]
    for local in ("hermetic", "hermetic-gym"):
        assert "cache-from" not in targets[local] and "cache-to" not in targets[local], targets[local]


def test_no_cache_without_refs():
    prod = resolved({})["production"]
    assert "cache-from" not in prod and "cache-to" not in prod, prod


def test_gym_target_sets_the_gym_configs_and_nothing_else():
    targets = resolved({})
    gym, hermetic = targets["hermetic-gym"], targets["hermetic"]
    assert gym["args"].pop("NEMO_GYM_PREFETCH_CONFIGS").endswith(".yaml")
    assert gym["args"] == hermetic["args"]
    assert "NEMO_GYM_PREFETCH_CONFIGS" not in targets["production"].get("args", {})
