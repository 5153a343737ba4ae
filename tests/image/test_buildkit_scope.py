"""`DockerfileFacts.value` / `expand` against BuildKit's own evaluation: each case of
tests/unit/test_dockerfile_scope.py (SCOPE_CASES) is built FROM scratch by the real engine, and every probe
`LABEL` and ENV of the image BuildKit writes must be what docgen says that line holds. Needs a Docker engine
with buildx; no registry (tests/buildkit.py `built_configs`)."""

from __future__ import annotations

import pytest

from docgen.inputs.dockerfile import read_dockerfile
from tests.buildkit import built_configs, require_buildx, write_case
from tests.unit.test_dockerfile_scope import SCOPE_CASES, _probes

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    require_buildx()
    folder = tmp_path_factory.mktemp("scope")
    builds = {case: (write_case(folder, case, text), target) for case, text, target, _, _ in SCOPE_CASES}
    return builds, built_configs(builds, folder)


@pytest.mark.parametrize(("case", "text", "target", "labels", "env"), SCOPE_CASES, ids=[c[0] for c in SCOPE_CASES])
def test_docgen_expands_every_probe_as_buildkit_does(configs, case, text, target, labels, env):
    builds, built = configs
    dockerfile = builds[case][0]
    assert dockerfile.read_text(encoding="utf-8") == text
    facts = read_dockerfile(dockerfile)
    config = built[case]
    buildkit = {k: v for k, v in (config.get("Labels") or {}).items() if k.startswith("p.")}
    # the image keeps a label's last value; docgen's probes in file order, the later ones win the same way
    docgen = {label: facts.expand(written, at=ins) for label, written, ins in _probes(facts)
              if ins.stage == facts.stage(target).name or _in_chain(facts, ins.stage, target)}
    assert docgen == buildkit == labels
    buildkit_env = dict(e.split("=", 1) for e in config.get("Env") or [])
    # the image's config: the ENV lines in force, and the PATH BuildKit gives a stage FROM scratch
    assert {e.key: e.value for e in facts.envs_of(target)} | {"PATH": facts.value("PATH", at=target)} == buildkit_env
    assert {e.key: e.value for e in facts.envs_of(target)} == env
    # the image's USER and working directory (BuildKit writes "" for root and for "/")
    assert facts.user(target)[0] == (config.get("User") or "root")
    assert facts.workdir(target)[0] == (config.get("WorkingDir") or "/")


def _in_chain(facts, label, target) -> bool:
    stage = facts.stage(target)
    while True:
        base, is_stage = facts.base(stage)
        if not is_stage:
            return False
        stage = facts.stage(base)
        if stage.name == label:
            return True
