"""Production-style Dockerfiles (tests/fixtures/dockerfiles/corpus/, written for these tests) read through
the CLI: each one's inventory and lint findings are pinned in `<name>.expected.json`, and each one's
stages and ARGs are cross-checked against BuildKit's own parser (`--call=targets|outline`, all fixtures in one
`docker buildx bake` per call: tests/buildkit.py).

To refresh an expected file after an intended change: `DOCGEN_CORPUS_UPDATE=1 pytest tests/test_dockerfile_corpus.py`,
then read the diff: the expected files are the reviewed truth, not a recording.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from docgen.inputs.dockerfile import read_dockerfile
from tests.buildkit import Answers, Question, ask, field, first_line, offline, require_buildx, write_case
from tests.docgen_cli import docgen

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fixtures" / "dockerfiles" / "corpus"
SNAPSHOT = ROOT / "snapshot" / "nemo-rl.json"
CONSUMER = CORPUS / "consumer-repo"
CONSUMER_DOCKERFILE = CONSUMER / "docker" / "rl" / "Dockerfile.nmp-rl-base"

ISOLATED = CORPUS / "isolated"   # a root with no pages: a fixture is judged alone, not with this repo's prose

# name -> (Dockerfile, working directory, whether the CLI is given --dockerfile)
FIXTURES = {p.stem: (p, ISOLATED, True) for p in sorted(CORPUS.glob("*.Dockerfile"))}
FIXTURES["consumer-repo"] = (CONSUMER_DOCKERFILE, CONSUMER, False)  # found through [tool.docgen]


def _cli_args(name: str) -> list[str]:
    dockerfile, _, explicit = FIXTURES[name]
    return (["--dockerfile", str(dockerfile)] if explicit else []) + ["--snapshot", str(SNAPSHOT)]


def _observed(name: str) -> dict:
    _, cwd, _ = FIXTURES[name]
    inventory = docgen("inventory", "--json", *_cli_args(name), cwd=cwd)
    assert inventory.returncode == 0 and "Traceback" not in inventory.stderr, inventory.stderr
    lint = docgen("lint", "--format", "json", *_cli_args(name), cwd=cwd)
    assert lint.returncode in (0, 1) and "Traceback" not in lint.stderr, lint.stderr
    # a cross-input finding names the snapshot's side as given (an absolute path here): pinned relative
    findings = [[f["check"], f["line"], f["message"].replace(f"{ROOT}/", "")] for f in json.loads(lint.stdout)["findings"]]
    assert (lint.returncode == 1) == bool(findings)
    return {"inventory": json.loads(inventory.stdout), "lint": findings}


def test_corpus_is_large_enough():
    assert len(FIXTURES) >= 5
    assert all((CORPUS / f"{name}.expected.json").is_file() for name in FIXTURES), "every fixture has its expected file"


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_inventory_and_lint_through_the_cli(name):
    expected_path = CORPUS / f"{name}.expected.json"
    observed = _observed(name)
    if os.environ.get("DOCGEN_CORPUS_UPDATE"):
        expected_path.write_text(json.dumps(observed, indent=1) + "\n", encoding="utf-8")
    assert observed == json.loads(expected_path.read_text(encoding="utf-8"))


# ---- what each fixture is there for (the expected files hold the whole picture) -------------------------

def _expected(name: str) -> dict:
    return json.loads((CORPUS / f"{name}.expected.json").read_text(encoding="utf-8"))


def test_gym_layer_fixture_reads_every_production_construct():
    facts = read_dockerfile(FIXTURES["gym-layer"][0])
    assert facts.syntax_directive == 1
    assert len(facts.prefetch_calls) == 1 and len(facts.prefetch.filters) == 8
    assert [(g.script, g.arg_refs) for g in facts.gym_prefetch] == [
        ("examples/nemo_gym/prefetch_venvs.py", ("NEMO_GYM_PREFETCH_CONFIGS",))]
    assert facts.gym_prefetch[0].guards == ('[ -n "${NEMO_GYM_PREFETCH_CONFIGS:-}" ]',)
    assert facts.not_prefetched.actors == () and facts.not_prefetched.prose.startswith("sglang, trtllm, modelopt-quant")
    assert [(r.filter, r.extra) for r in facts.mapping][:2] == [
        ("dtensor_policy_worker.DTensorPolicyWorker", "fsdp"), ("dtensor_policy_worker_v2.DTensorPolicyWorkerV2", "automodel")]
    assert len(facts.mapping) == 8
    assert [c.counts for c in facts.counts] == [((8, "filters"), (9, "venvs"))]
    assert all(w.comment for w in facts.warm_syncs) and len(facts.warm_syncs) == 7
    assert facts.verify is not None and len(facts.verify.actors) == 9
    assert facts.notes == ()

    expected = _expected("gym-layer")
    assert expected["lint"] == [], "every convention in this fixture holds"
    inventory = expected["inventory"]
    assert inventory["counts"]["venvs"] == 9 and inventory["counts"]["gym_venvs_by_default"] == 0
    assert inventory["gym_venvs"] == [{"venv_dir": "/opt/gym_venvs", "script": "examples/nemo_gym/prefetch_venvs.py",
                                       "arg": "NEMO_GYM_PREFETCH_CONFIGS", "default": "", "configs": [],
                                       "venvs_by_default": 0}]
    assert [(d["package"], d["pin"], d["editable"], d["no_deps"]) for d in inventory["driver_installs"]] == [
        ("sandbox-client-sdk", "==0.9.2", False, False), ("wandb", "==0.19.11", False, False),
        ("nemo-gym", None, True, True)]
    assert inventory["driver_installs"][1]["reason"] == "pinned: newer releases break the logger"


def test_older_shape_without_automodel_and_mcore():
    inventory = _expected("older-three-filters")["inventory"]
    assert inventory["warm_extras"] == ["vllm", "fsdp"]
    assert [f["filter"] for f in inventory["filters"]] == [
        "dtensor_policy_worker.DTensorPolicyWorker", "vllm_worker.VllmGenerationWorker", "sync_rollout_actor.SyncRolloutActor"]
    assert inventory["counts"]["venvs"] == 3 and inventory["shared_builds"] == [] and inventory["gym_venvs"] == []
    # the `for fqn in` loop is read as the verification loop; the absent not-prefetched list is a finding,
    # and so is its CUDA 12 base image under this snapshot's cu130 torch (each side with its line)
    lint = _expected("older-three-filters")["lint"]
    assert [check for check, _, _ in lint] == ["cuda-vs-wheels", "not-prefetched-list"]
    assert lint[0][1] == 4 and "CUDA 12" in lint[0][2] and f"({SNAPSHOT.relative_to(ROOT)}:" in lint[0][2]


def test_split_calls_union_and_gym_on_by_default():
    inventory = _expected("split-calls-gym-on")["inventory"]
    assert inventory["venv_dir"] == "/opt/actors" and inventory["counts"]["venvs"] == 5
    assert [f["filter"] for f in inventory["negative_filters"]] == ["sandbox"]
    gym = inventory["gym_venvs"][0]
    assert (gym["venv_dir"], len(gym["configs"]), gym["venvs_by_default"]) == ("/opt/gym", 2, None)
    assert inventory["counts"]["gym_venvs_by_default"] is None
    assert [d["package"] for d in inventory["driver_installs"]] == [
        "sandbox-client-sdk", "git+https://github.com/example/trace-tools@v1.4.0"]


def test_bare_conventions_gives_findings_not_errors():
    expected = _expected("bare-conventions")
    assert expected["inventory"]["filters"] == [] and expected["inventory"]["counts"]["venvs"] == 13
    assert {check for check, _, _ in expected["lint"]} == {"verify-list", "warm-order", "not-prefetched-list"}
    assert all(line is not None for _, line, _ in expected["lint"])


def test_relocated_dockerfile_found_through_the_consumer_config():
    run = docgen("inventory", "-v", "--snapshot", str(SNAPSHOT), cwd=CONSUMER)
    assert run.returncode == 0, run.stderr
    assert "dockerfile docker/rl/Dockerfile.nmp-rl-base" in run.stderr
    lint = _expected("consumer-repo")["lint"]
    assert lint[0][:2] == ["provenance", 9]
    assert lint[0][2] == ("the Dockerfile builds NEMO_RL_REF=v0.6.0 but the docs describe ref nmp/customizer "
                          "(the snapshot's provenance); run `docgen bump v0.6.0`")


# ---- cross-check with BuildKit's parser ------------------------------------------------------------------

def _targets(facts) -> list[str | None]:
    """The stages each fixture's outline is asked for (`--target`): every named one, else the default."""
    return [s.name for s in facts.stages if s.name] or [None]


@pytest.fixture(scope="module")
def buildkit(tmp_path_factory) -> Answers:
    """Every fixture's offline copy put to BuildKit at once: its targets, and its outline per named stage."""
    require_buildx()
    folder = tmp_path_factory.mktemp("buildkit")
    questions = {}
    for name, (dockerfile, _, _) in sorted(FIXTURES.items()):
        copy = write_case(folder, name, offline(dockerfile.read_text(encoding="utf-8")))
        questions[f"targets[{name}]"] = Question("targets", copy)
        for target in _targets(read_dockerfile(dockerfile)):
            questions[f"outline[{name}]/{target}"] = Question("outline", copy, target, (("BASE_IMAGE", "scratch"),))
    return ask(questions, folder)


@pytest.mark.docker
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_stages_agree_with_buildkit_targets(buildkit, name):
    facts = read_dockerfile(FIXTURES[name][0])
    targets = field(buildkit[f"targets[{name}]"], "targets")
    assert [(field(t, "name") or None, field(t, "base"), first_line(t)) for t in targets] == [
        (s.name, s.base, s.line) for s in facts.stages]


@pytest.mark.docker
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_args_of_every_target_agree_with_buildkit_outline(buildkit, name):
    """For each stage BuildKit lists the ARGs it uses, with their defaults and lines; each must be an ARG
    docgen read at that line with that default (a bare stage ARG reports the global one it brings in)."""
    facts = read_dockerfile(FIXTURES[name][0])
    by_line = {(a.name, a.line): a for a in facts.args}
    seen = 0
    for target in _targets(facts):  # each asked with --build-arg BASE_IMAGE=scratch [--target <stage>]
        outline = buildkit[f"outline[{name}]/{target}"]
        for arg in field(outline, "args") or []:
            arg_name, value, line = field(arg, "name"), field(arg, "value") or "", first_line(arg)
            assert (arg_name, line) in by_line, f"BuildKit reports ARG {arg_name} at line {line}; docgen read none there"
            if arg_name != "BASE_IMAGE":
                assert (by_line[(arg_name, line)].default or "") == value, (arg_name, line)
            seen += 1
    assert seen, "outline reports no ARG"


def test_shell_variety_reads_the_same_facts_from_other_shell_shapes():
    facts = read_dockerfile(FIXTURES["shell-variety"][0])
    assert [w.extras for w in facts.warm_syncs] == [("vllm",), ("automodel",), ("nemo_gym",)]  # the loop, unrolled
    assert [c.script for c in facts.prefetch_calls] == ["nemo_rl.utils.prefetch_venvs"]  # python -m
    assert facts.verify is not None and len(facts.verify.actors) == 3  # `for a in <FQN>...`
    inventory = _expected("shell-variety")["inventory"]
    assert inventory["warm_extras"] == ["vllm", "automodel", "nemo_gym"] and inventory["counts"]["venvs"] == 3
    assert inventory["driver_installs"] == [{"package": "mlflow-skinny", "pin": "~=2.22", "editable": False,
                                             "no_deps": False, "reason": "Experiment tracking for the driver; the "
                                                                         "lock does not carry it."}]
    assert [check for check, _, _ in _expected("shell-variety")["lint"]] == ["not-prefetched-list"]
