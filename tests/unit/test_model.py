"""The image model on small literals: prefetch semantics, venvs, reasons, shared builds, counts."""

from __future__ import annotations


import pytest

from docgen.errors import InputError
from docgen.model import REASON_NOT_SELECTED, Actor, reason_backend_not_built
from docgen.model.build import build_model, run_prefetch
from docgen.model.claims import build_claims
from tests.unit.blocks_fixtures import pkg, snapshot_data
from tests.unit.blocks_fixtures import write_snapshot as shared_write_snapshot
from docgen.inputs.dockerfile import parse_dockerfile

GIT = "{git_root}"


def uv(*extras: str) -> str:
    flags = "".join(f" --extra {e}" for e in extras)
    return f"uv run --locked{flags} --directory {GIT}"


def actor(fqn: str, command: str) -> Actor:
    from docgen.snapshot.registry import extras_of
    return Actor(fqn=fqn, member=None, command=command, extras=extras_of(command), source="upstream")


ACTORS = [
    actor("pkg.gen.vllm.vllm_worker.VllmGenerationWorker", uv("vllm")),
    actor("pkg.gen.vllm.vllm_worker_async.VllmAsyncGenerationWorker", uv("vllm")),
    actor("pkg.env.math.MathEnvironment", "sys.executable"),
    actor("pkg.policy.dtensor_policy_worker.DTensorPolicyWorker", uv("fsdp")),
    actor("pkg.policy.dtensor_policy_worker_v2.DTensorPolicyWorkerV2", uv("automodel")),
    actor("pkg.value.dtensor_value_worker_v2.DTensorValueWorkerV2", uv("automodel")),
]


def test_filters_are_case_sensitive_substrings_ored_one_venv_per_actor():
    out = run_prefetch(ACTORS, ["vllm.vllm_worker", "dtensor_policy_worker.DTensorPolicyWorker"], [], "/opt/ray_venvs")
    assert [v.actor for v in out.venvs] == [
        "pkg.gen.vllm.vllm_worker.VllmGenerationWorker",
        "pkg.gen.vllm.vllm_worker_async.VllmAsyncGenerationWorker",
        "pkg.policy.dtensor_policy_worker.DTensorPolicyWorker",
    ]
    # two actors sharing the vllm extra still get a venv each, at <venv dir>/<FQN>
    assert out.venvs[1].path == "/opt/ray_venvs/pkg.gen.vllm.vllm_worker_async.VllmAsyncGenerationWorker"
    assert out.venvs[0].filters == ("vllm.vllm_worker",)
    assert run_prefetch(ACTORS, ["VLLM.vllm_worker"], [], "/v").venvs == ()


def test_negative_filters_apply_after_and_system_actors_are_skipped():
    out = run_prefetch(ACTORS, ["pkg."], ["_async", "value"], "/v")
    assert [v.actor.rsplit(".", 1)[1] for v in out.venvs] == [
        "VllmGenerationWorker", "DTensorPolicyWorker", "DTensorPolicyWorkerV2"]
    assert [a.class_name for a in out.system] == ["MathEnvironment"]
    assert [a.class_name for a in out.unselected] == ["VllmAsyncGenerationWorker", "DTensorValueWorkerV2"]


def test_no_filters_means_every_uv_actor():
    out = run_prefetch(ACTORS, [], [], "/v")
    assert len(out.venvs) == 5 and len(out.system) == 1


DOCKERFILE = """\
ARG UV_VERSION=0.11.33
FROM scratch AS nemo-rl
FROM debian AS base
ENV NEMO_RL_VENV_DIR=/opt/ray_venvs
FROM base AS builder
RUN <<"EOF" bash -exu
uv sync --frozen --no-install-project  # base
uv sync --frozen --no-install-project --extra vllm  # generation
uv sync --frozen --no-install-project --extra automodel  # builds TE
uv sync --frozen --no-install-project --extra fsdp  # V1
EOF
# Not prefetched:
#   pkg.value.dtensor_value_worker_v2.DTensorValueWorkerV2: critic-free value worker
# Three filters -> four venvs.
RUN <<"EOF" bash -exu
uv run --locked python nemo_rl/utils/prefetch_venvs.py \\
    vllm.vllm_worker \\
    dtensor_policy_worker.DTensorPolicyWorker \\
    dtensor_policy_worker_v2.DTensorPolicyWorkerV2
EOF
FROM builder AS nmp-rl-base
"""


def write_snapshot(tmp_path, actors, *, extras=("vllm", "fsdp", "automodel", "mcore", "sglang")):
    """The shared small snapshot over these actors, with an fsdp extra (flash-attn) beside the others."""
    te = "transformer-engine==2.15.0+42b8400"
    packages = {
        "torch==2.11.0": pkg("torch", "2.11.0"),
        "vllm==0.25.1": pkg("vllm", "0.25.1", "url"),
        te: pkg("transformer-engine", "2.15.0+42b8400", "git", built=True),
        "flash-attn==2.8.1": pkg("flash-attn", "2.8.1", "url"),
    }
    sets = {
        "": ["torch==2.11.0"],
        "vllm": ["torch==2.11.0", "vllm==0.25.1"],
        "fsdp": ["flash-attn==2.8.1", "torch==2.11.0"],
        "automodel": ["flash-attn==2.8.1", "torch==2.11.0", te],
        "mcore": ["torch==2.11.0", te],
        "sglang": ["torch==2.11.0"],
    }
    data = snapshot_data([(a.fqn, None, a.command) for a in actors], extras=extras, packages=packages, sets=sets)
    return shared_write_snapshot(tmp_path, data)


def test_model_from_dockerfile_and_snapshot(tmp_path):
    actors = ACTORS + [actor("pkg.gen.sglang.SGLangWorker", uv("sglang")),
                       actor("pkg.policy.megatron_policy_worker.MegatronPolicyWorker", uv("mcore"))]
    model = build_model(parse_dockerfile(DOCKERFILE, "Dockerfile"), write_snapshot(tmp_path, actors))
    assert model.warm_extras == ("vllm", "automodel", "fsdp")
    assert [s.label for s in model.warm_steps] == ["base", "vllm", "automodel", "fsdp"]
    assert model.counts["filters"] == 3 and model.counts["venvs"] == 4
    assert model.extras_not_warmed == ("mcore", "sglang")
    reasons = {s.actor.rsplit(".", 1)[1]: s.reason for s in model.not_prefetched}
    assert reasons == {
        "DTensorValueWorkerV2": "critic-free value worker",
        "SGLangWorker": reason_backend_not_built(["sglang"]),
        "MegatronPolicyWorker": reason_backend_not_built(["mcore"]),
    }
    # TE is reached by automodel and mcore, but only automodel is warmed: nothing is shared in this image
    assert model.shared_builds == ()
    # with NEMO_RL_PY_EXECUTABLES_SYSTEM=1 the vllm workers run on the system interpreter
    assert [v.class_name for v in model.venvs_system] == ["DTensorPolicyWorker", "DTensorPolicyWorkerV2"]
    inv = model.inventory()
    assert inv["filters"][0] == {"filter": "vllm.vllm_worker", "extras": ["vllm"], "actors": [
        "pkg.gen.vllm.vllm_worker.VllmGenerationWorker", "pkg.gen.vllm.vllm_worker_async.VllmAsyncGenerationWorker"]}
    assert inv["venvs"][3] == {"actor": "pkg.policy.dtensor_policy_worker_v2.DTensorPolicyWorkerV2",
                               "extras": ["automodel"],
                               "path": "/opt/ray_venvs/pkg.policy.dtensor_policy_worker_v2.DTensorPolicyWorkerV2"}


def test_shared_build_needs_two_warmed_extras(tmp_path):
    text = DOCKERFILE.replace("--extra fsdp  # V1", "--extra mcore  # reuses TE")
    model = build_model(parse_dockerfile(text, "Dockerfile"), write_snapshot(tmp_path, ACTORS))
    assert [(s.package, s.version, s.extras) for s in model.shared_builds] == [
        ("transformer-engine", "2.15.0+42b8400", ("automodel", "mcore"))]


def test_unlisted_unselected_actor_gets_the_derived_reason(tmp_path):
    from docgen.model.claims import REASON_TEXT, VALUE

    text = DOCKERFILE.replace("# Not prefetched:\n#   pkg.value.dtensor_value_worker_v2.DTensorValueWorkerV2: critic-free value worker\n", "")
    model = build_model(parse_dockerfile(text, "Dockerfile"), write_snapshot(tmp_path, ACTORS))
    assert [s.reason for s in model.not_prefetched] == [REASON_TEXT[VALUE]]
    # neither its package nor its name says value worker (role_of reads both)
    def plain_name(fqn: str) -> str:
        return fqn.replace(".value.", ".misc.").replace("_value_", "_helper_").replace("ValueWorker", "HelperWorker")

    plain = [a._replace(fqn=plain_name(a.fqn)) if "Value" in a.fqn else a for a in ACTORS]
    model = build_model(parse_dockerfile(plain_name(text), "Dockerfile"), write_snapshot(tmp_path, plain))
    assert [s.reason for s in model.not_prefetched] == [REASON_NOT_SELECTED]


def test_a_comment_that_contradicts_the_derived_reason_is_not_shown(tmp_path):
    text = DOCKERFILE.replace("critic-free value worker", "sglang backend not built")
    model = build_model(parse_dockerfile(text, "Dockerfile"), write_snapshot(tmp_path, ACTORS))
    assert "sglang" not in model.not_prefetched[0].reason and "value worker" in model.not_prefetched[0].reason


def test_warming_an_undefined_extra_is_bad_input(tmp_path):
    text = DOCKERFILE.replace("--extra fsdp", "--extra nope")
    with pytest.raises(InputError) as err:
        build_model(parse_dockerfile(text, "Dockerfile"), write_snapshot(tmp_path, ACTORS))
    assert err.value.line == 10 and "nope" in err.value.message


# ---- the second venv layer, the driver venv's extra installs, several prefetch calls -------------------

GYM_AND_DRIVER = """\
ARG CONFIGS=""
FROM debian AS builder
ARG CONFIGS
ARG ON_BY_DEFAULT="a.yaml, b.yaml c.yaml"
ENV UV_PROJECT_ENVIRONMENT=/opt/driver NEMO_GYM_VENV_DIR=/opt/gym NEMO_RL_VENV_DIR=/opt/ray_venvs
WORKDIR /opt/nemo-rl
RUN <<"EOF" bash -eu
uv sync --frozen --extra vllm --extra fsdp --extra automodel
uv run python nemo_rl/utils/prefetch_venvs.py vllm.vllm_worker
uv run python nemo_rl/utils/prefetch_venvs.py dtensor_policy_worker.DTensorPolicyWorker vllm_worker_async
if [ -n "${CONFIGS:-}" ]; then
  uv run python examples/nemo_gym/prefetch_venvs.py ${CONFIGS}
fi
uv run python examples/nemo_gym/prefetch_venvs.py "${ON_BY_DEFAULT}"
uv run python examples/nemo_gym/prefetch_venvs.py literal/one.yaml
# Client SDK the sandbox actors import.
uv pip install --python "${UV_PROJECT_ENVIRONMENT}/bin/python" sdk-client==1.2 "tracker>=2,<3"
uv pip install -p /opt/driver --no-deps --editable=. -e 3rdparty/Gym  # after the exact sync pruned them
uv pip install --python /opt/ray_venvs/x/bin/python not-the-driver==1
uv pip install --system also-not==1
EOF
FROM builder AS nmp-rl-base
"""


def test_gym_layer_arg_default_and_count(tmp_path):
    data = _snapshot_data_with_gym()
    model = build_model(parse_dockerfile(GYM_AND_DRIVER, "Dockerfile"), _load(tmp_path, data))
    assert [(g.venv_dir, g.arg, g.default, g.configs, g.venvs_by_default, g.guard) for g in model.gym] == [
        ("/opt/gym", "CONFIGS", "", (), 0, '[ -n "${CONFIGS:-}" ]'),
        ("/opt/gym", "ON_BY_DEFAULT", "a.yaml, b.yaml c.yaml", ("a.yaml", "b.yaml", "c.yaml"), None, None),
        ("/opt/gym", None, None, ("literal/one.yaml",), None, None),
    ]
    assert model.gym_venvs_by_default is None and model.counts["gym_venvs_by_default"] is None
    only_the_guarded_one = GYM_AND_DRIVER.split('uv run python examples/nemo_gym/prefetch_venvs.py "')[0] + "EOF\n"
    off = build_model(parse_dockerfile(only_the_guarded_one, "Dockerfile"), _load(tmp_path, data))
    assert [g.venvs_by_default for g in off.gym] == [0] and off.gym_venvs_by_default == 0


def test_driver_installs_only_those_into_the_driver_venv(tmp_path):
    model = build_model(parse_dockerfile(GYM_AND_DRIVER, "Dockerfile"), _load(tmp_path, _snapshot_data_with_gym()))
    assert [(d.package, d.pin, d.editable, d.no_deps, d.reason) for d in model.driver_installs] == [
        ("sdk-client", "==1.2", False, False, "Client SDK the sandbox actors import."),
        ("tracker", ">=2,<3", False, False, "Client SDK the sandbox actors import."),
        ("nemo-rl", None, True, True, "after the exact sync pruned them"),
        ("nemo-gym", None, True, True, "after the exact sync pruned them"),
    ]


def test_several_prefetch_calls_build_the_union(tmp_path):
    model = build_model(parse_dockerfile(GYM_AND_DRIVER, "Dockerfile"), _load(tmp_path, _snapshot_data_with_gym()))
    assert [v.actor.rsplit(".", 1)[1] for v in model.venvs] == [
        "VllmGenerationWorker", "VllmAsyncGenerationWorker", "DTensorPolicyWorker"]
    assert [v.filters for v in model.venvs] == [("vllm.vllm_worker",), ("vllm.vllm_worker", "vllm_worker_async"),
                                               ("dtensor_policy_worker.DTensorPolicyWorker",)]
    assert [(f.text, len(f.actors)) for f in model.filters] == [
        ("vllm.vllm_worker", 2), ("dtensor_policy_worker.DTensorPolicyWorker", 1), ("vllm_worker_async", 1)]


def _snapshot_data_with_gym() -> dict:
    from tests.unit.blocks_fixtures import snapshot_data
    data = snapshot_data(actors=[(a.fqn, None, a.command) for a in ACTORS])
    data["project"]["extras"] = {e: [] for e in ("vllm", "fsdp", "automodel", "mcore", "sglang")}
    data["lock"]["install_sets"]["fsdp"] = ["torch==2.11.0"]
    data["lock"]["packages"]["nemo-gym"] = {"name": "nemo-gym", "version": None, "source_kind": "editable",
                                            "source": "editable+3rdparty/Gym", "source_built": True, "editable": True}
    return data


def _load(tmp_path, data: dict):
    return shared_write_snapshot(tmp_path, data)


# A reuse comment names the warm step it reuses by its label, as a word (`vllm's`, `vllms`, `vllm'` name the
# vllm step; `myvllm` and `vllm_x` do not); a named step that does not install the package is a problem.
@pytest.mark.parametrize("comment, blamed", [
    ("reuses automodel's TE", None),
    ("reuses vllm's TE", "vllm"),
    ("reuses vllms TE", "vllm"),
    ("reuses vllm' TE", "vllm"),
    ("reuses myvllm TE", None),
    ("reuses vllm_x TE", None),
    ("reuses base's TE", "base"),
    ("reuses base's and automodel's TE", None),   # one of the named steps built it
])
def test_a_reuse_comment_names_warm_steps_by_their_label_as_a_word(tmp_path, comment, blamed):
    text = DOCKERFILE.replace("--extra fsdp  # V1", f"--extra mcore  # {comment}")
    model = build_model(parse_dockerfile(text, "Dockerfile"), write_snapshot(tmp_path, ACTORS))
    [claim] = [c for c in build_claims(model) if c.step_label == "mcore"]
    assert (claim.package, claim.claim) == ("transformer-engine", "reuses")
    if blamed is None:
        assert claim.problem is None
    else:
        assert claim.problem.startswith(f"`uv sync mcore` says it reuses {blamed}'s transformer-engine, but {blamed} "
                                        "does not install it"), claim.problem


@pytest.mark.parametrize("kind, comment, agrees", [
    ("value", "critic-free VALUE worker", True), ("value", "Values only", False),
    ("value", "critic-free, async too", False),                       # names another reason as well
    ("async", "ASYNC bookkeeping", True), ("async", "a\u017fync helper", True),   # the long s is an s, in any case
    ("async", "boo\u212a\u212aeeping", True),                           # and the Kelvin sign a k
    ("quantization", "Quantized on first use", True), ("quantization", "xquantize", False),
    ("not-warmed", "backend NOT  built", False), ("not-warmed", "not warmed yet", True),
    ("not-selected", "left out on purpose", True), ("not-selected", "a value worker", False),
])
def test_a_reason_comment_agrees_when_it_names_that_reason_alone(kind, comment, agrees):
    from docgen.model.claims import comment_agrees

    assert comment_agrees(kind, comment) is agrees


def test_package_mentions_read_names_and_aliases_as_words():
    from docgen.model.claims import package_mentions

    text = "reuses TE's build, deep_ep and vllm.; Transformer Engine"
    assert package_mentions(text, {"transformer-engine", "deep-ep", "vllm"}) == {"transformer-engine", "deep-ep", "vllm"}
    assert package_mentions("myvllm te1 x.vllm+ caf\u00e9-vllm", {"vllm", "transformer-engine"}) == set()
