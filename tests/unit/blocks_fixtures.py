"""A small image model from literals, shared by the render, checks and blocks tests.

Five actors, three filters -> four venvs, one shared Transformer-Engine build (automodel before mcore).
"""

from __future__ import annotations

import json

from docgen.model.build import build_model
from docgen.snapshot.load import FORMAT, load_snapshot
from docgen.inputs.dockerfile import parse_dockerfile

GIT = "{git_root}"


def uv(*extras: str) -> str:
    return "uv run --locked" + "".join(f" --extra {e}" for e in extras) + f" --directory {GIT}"


ACTORS = [  # (fqn, member, command)
    ("rl.models.generation.vllm.vllm_worker.VllmGenerationWorker", "VLLM", uv("vllm")),
    ("rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker", "VLLM", uv("vllm")),
    ("rl.environments.math_environment.MathEnvironment", "SYSTEM", "sys.executable"),
    ("rl.models.policy.workers.dtensor_policy_worker_v2.DTensorPolicyWorkerV2", "AUTOMODEL", uv("automodel")),
    ("rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker", "MCORE", uv("mcore")),
    ("rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2", "AUTOMODEL", uv("automodel")),
    ("rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker", "SGLANG", uv("sglang")),
]

DOCKERFILE = """\
ARG BASE_IMAGE=example/cuda:12
FROM scratch AS nemo-rl
FROM ${BASE_IMAGE} AS base
# uv release installed into the image.
ARG UV_VERSION=0.11.33
# Interpreter for every venv.
ARG PYTHON_VERSION=3.13.14
ENV NEMO_RL_VENV_DIR=/opt/ray_venvs UV_PROJECT_ENVIRONMENT=/opt/nemo_rl_venv
FROM base AS builder
ENV UV_CACHE_DIR=/opt/uv_cache
COPY --from=nemo-rl / /opt/nemo-rl/
RUN <<"EOF" bash -exu
uv sync --frozen --no-install-project                     # base
uv sync --frozen --no-install-project --extra vllm        # generation
uv sync --frozen --no-install-project --extra automodel   # DTensor V2; builds Transformer-Engine
uv sync --frozen --no-install-project --extra mcore       # Megatron; reuses the Transformer-Engine wheel
EOF
RUN <<"EOF" bash -exu
# Three filters -> four venvs.
uv run --locked python tools/prefetch_venvs.py \\
    vllm.vllm_worker \\
    dtensor_policy_worker_v2.DTensorPolicyWorkerV2 \\
    megatron_policy_worker.MegatronPolicyWorker
EOF
RUN <<"EOF" bash -exu
for actor in \\
    rl.models.generation.vllm.vllm_worker.VllmGenerationWorker \\
    rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker \\
    rl.models.policy.workers.dtensor_policy_worker_v2.DTensorPolicyWorkerV2 \\
    rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker; do
    "/opt/ray_venvs/${actor}/bin/python" -c pass
done
# Not prefetched:
#   rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2: critic-free value worker
#   rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker: sglang not built
EOF
FROM base AS nmp-rl-base
COPY --from=builder /opt/ray_venvs /opt/ray_venvs
ENV UV_LINK_MODE=symlink
"""


def pkg(name, version, kind="registry", built=False, editable=False, source=None) -> dict:
    """One lock package as the snapshot records it."""
    return {"name": name, "version": version, "source_kind": kind, "source": source or (f"{kind}+https://example.invalid/{name}" if kind in ("registry", "git", "url")
                                                            else f"{kind}+3rdparty/{name}"),
            "source_built": built, "editable": editable}


def snapshot_data(actors=ACTORS, *, te_version="2.15.0+42b8400", extras=None, packages=None, sets=None) -> dict:
    """The snapshot's JSON form; `extras`, `packages` and `sets` replace the defaults below when given."""
    te = f"transformer-engine=={te_version}"
    default_packages = {
        "torch==2.11.0": pkg("torch", "2.11.0"),
        "ray==2.55.0": pkg("ray", "2.55.0"),
        "vllm==0.25.1": pkg("vllm", "0.25.1", "url"),
        te: pkg("transformer-engine", te_version, "git", built=True, source="git+https://example.invalid/te#1"),
        "megatron-core": pkg("megatron-core", None, "editable", editable=True, source="editable+3rdparty/Megatron-LM"),
        "tiny-dep==1.0": pkg("tiny-dep", "1.0"),
        "sglang==0.5": pkg("sglang", "0.5"),
    }
    default_sets = {
        "": ["ray==2.55.0", "torch==2.11.0"],
        "vllm": ["ray==2.55.0", "torch==2.11.0", "vllm==0.25.1"],
        "automodel": ["ray==2.55.0", "torch==2.11.0", te],
        "mcore": ["megatron-core", "ray==2.55.0", "tiny-dep==1.0", "torch==2.11.0", te],
        "sglang": ["ray==2.55.0", "sglang==0.5", "torch==2.11.0"],
    }
    packages = packages if packages is not None else default_packages
    sets = sets if sets is not None else default_sets
    extras = extras if extras is not None else ("vllm", "automodel", "mcore", "sglang")
    return {
        "format": FORMAT,
        "provenance": {"repo": "r", "ref": "x", "commit": None, "docgen_version": "0", "platform": "p", "inputs": {}},
        "project": {"name": "nemo-rl", "extras": {e: [] for e in extras},
                    "conflicts": [], "default_groups": [], "groups": [], "overrides": [], "sources": [],
                    "workspace_members": []},
        "registry": {"executables": {"SYSTEM": "sys.executable"},
                     "actors": [{"actor": fqn, "member": member, "command": cmd,
                                 "command_system": "sys.executable" if "vllm" in cmd else cmd, "source": "upstream"}
                                for fqn, member, cmd in actors]},
        "lock": {"version": 1, "revision": 3, "packages": packages, "install_sets": sets,
                 "shared_builds": [{"package": te, "extras": ["automodel", "mcore"]}]},
    }


def write_inputs(root, dockerfile: str = DOCKERFILE, data: dict | None = None):
    """Dockerfile.nmp-rl-base and snapshot/nemo-rl.json under `root`, laid out like the repository."""
    (root / "snapshot").mkdir(parents=True, exist_ok=True)
    (root / "Dockerfile.nmp-rl-base").write_text(dockerfile)
    (root / "snapshot" / "nemo-rl.json").write_text(json.dumps(data or snapshot_data(), indent=1))
    return root / "Dockerfile.nmp-rl-base", root / "snapshot" / "nemo-rl.json"


def write_snapshot(tmp_path, data: dict | None = None):
    """The snapshot `data` (default: the small one above), loaded the way docgen loads the committed one."""
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data or snapshot_data()))
    return load_snapshot(path)


def small_model(tmp_path, dockerfile: str = DOCKERFILE, data: dict | None = None):
    """The one small-model builder every unit test uses: a Dockerfile (default above) over `data`."""
    return build_model(parse_dockerfile(dockerfile, "Dockerfile"), write_snapshot(tmp_path, data))
