"""Wave 2 of the issue-27 generalisation corpus: the held-out half of the mutations.

Written before the design, by someone who had read only the first wave's development cases; the full
wave-2 list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the
development set, even positions are held out) and written out here once. Run with
bench/generalise.py --set wave2_heldout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from tests.mutations_corpus import (BAKE, DOCKERFILE, Case, edit, edits, project_key, replace_package, snap)


def move(old: str, new: str) -> Callable[[Path], None]:
    """A file moved in the repository (git mv)."""
    def apply(root: Path) -> None:
        target = root / new
        target.parent.mkdir(parents=True, exist_ok=True)
        (root / old).rename(target)
    return apply

CASES = [
Case("w2-up-requires-python-floor-raised", "2026-09-17", "upstream-style",
     snap(project_key("requires_python", ">=3.13.15,<3.14")),
     old=("Python is <!-- docgen:value python.version -->3.13.14",),
     expect="NeMo-RL now requires Python >=3.13.15 while the Dockerfile's PYTHON_VERSION is still 3.13.14: the inputs "
            "disagree, so check must fail (finding on PYTHON_VERSION against requires-python, or exit 2 naming the "
            "Dockerfile); no write makes the pages' 3.13.14 true for an image that cannot sync"),
Case("w2-up-te-release-2-16", "2026-10-21", "upstream-style",
     snap(replace_package("transformer-engine==2.15.0+42b8400", "transformer-engine==2.16.0+9a3c1d7",
                          version="2.16.0+9a3c1d7",
                          source="git+https://github.com/NVIDIA/TransformerEngine.git?rev=release_v2.16"
                                 "#9a3c1d7e5b2f4a6c8d0e1f2a3b4c5d6e7f8a9b0c"),
          lambda d: d["project"].__setitem__("overrides", [
              o.replace("TransformerEngine.git@release_v2.15", "TransformerEngine.git@release_v2.16")
              for o in d["project"]["overrides"]])),
     old=("2.15.0+42b8400", "TransformerEngine.git@release_v2.15", "42b840051647eef89761a16dfdff87e82bb253ab"),
     expect="the override block, the TE version values, the te-consumers, shared-build and per-extra tables and the "
            "TE version transcripts re-render 2.16.0+9a3c1d7 from release_v2.16"),
Case("w2-bake-standin-dir-moved", "w2-m-001", "maintainer",
     edits(edit(BAKE, 'default = "build/standin"', 'default = "build/rl-standin"'),
           edit(BAKE, "docgen standin --out build/standin", "docgen standin --out build/rl-standin"),
           edit("scripts/build-image", "STANDIN_DIR=${STANDIN_DIR:-build/standin}", "STANDIN_DIR=${STANDIN_DIR:-build/rl-standin}"),
           edit("scripts/build-image", "workspace from the committed snapshot into build/standin",
                "workspace from the committed snapshot into build/rl-standin")),
     old=("--allow=fs.read=build/standin hermetic", "docgen standin --out build/standin", "(`build/standin`,"),
     expect="hermetic.md's hand-written commands and prose name the old stand-in directory, a quoted bake/script value "
            "that changed: check fails at those lines (the bake command would be refused read access)"),
Case("w2-bake-cacert-path", "w2-m-003", "maintainer",
     edits(edit(BAKE, 'default = "/etc/ssl/certs/ca-certificates.crt"', 'default = "/etc/pki/tls/certs/ca-bundle.crt"'),
           edit("scripts/build-image", "CACERT=${CACERT:-/etc/ssl/certs/ca-certificates.crt}",
                "CACERT=${CACERT:-/etc/pki/tls/certs/ca-bundle.crt}")),
     old=("--allow=fs.read=/etc/ssl/certs/ca-certificates.crt",),
     expect="the two hand-written bake commands in hermetic.md allow reading a CA bundle the bake file no longer "
            "uses (bake would refuse the new default): check fails at those lines"),
Case("w2-bake-cache-mode-min", "w2-m-005", "maintainer",
     edits(edit(BAKE, "// mode=max also exports the builder stage's layers, which hold the expensive warm-up.",
                "// mode=min: only the published image's layers (the registry cache was growing past its quota)."),
           edit(BAKE, 'ref=${CACHE_TO_REF},mode=max"', 'ref=${CACHE_TO_REF},mode=min"')),
     old=("exports with `mode=max`", "in the cache, not only those of the published image"),
     expect="the allowed sentence in options.md quotes the bake target's cache mode, which changed: an allowed "
            "sentence whose fact changed still fails check (review on change)"),
Case("w2-script-build-docs-output-dir", "w2-m-007", "maintainer",
     edits(edit("scripts/build-docs", "SITE_DIR=${1:-$ROOT/site}", "SITE_DIR=${1:-$ROOT/build/site}"),
           edit("scripts/build-docs", "(default: site/)", "(default: build/site/)")),
     old=("(output in `site/`)", "mkdocs build --strict into site/"),
     expect="README and contributing.md say where scripts/build-docs writes the site; its default moved: check fails "
            "at those lines"),
Case("w2-script-docker-engine-29", "w2-m-009", "maintainer",
     edits(edit("scripts/docker-engine", "WANT_SERVER_MAJOR=28", "WANT_SERVER_MAJOR=29"),
           edit("scripts/docker-engine", "Manage a Docker Engine 28+", "Manage a Docker Engine 29+")),
     old=("Docker engine 28+",),
     expect="the README's set-up section says the image tests need engine 28+; scripts/docker-engine now wants 29: "
            "check fails at that line"),
Case("w2-df-cuda-arch-120-comment-stale", "w2-m-011", "maintainer",
     edits(edit(DOCKERFILE, 'ARG NVTE_CUDA_ARCHS="90;100"', 'ARG NVTE_CUDA_ARCHS="90;100;120"'),
           edit(DOCKERFILE, 'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0"', 'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0 12.0"')),
     old=("Transformer-Engine compiles kernels for (Hopper; Blackwell)", "| `NVTE_CUDA_ARCHS` | `90;100` |"),
     expect="the options table re-renders the values; the NVTE_CUDA_ARCHS comment it copies still names only "
            "(Hopper; Blackwell) while 120 (consumer Blackwell) was added: a finding on that Dockerfile comment"),
Case("w2-df-vllm-copies-dropped", "w2-m-013", "maintainer",
     edit(DOCKERFILE,
          '# NeMo-RL patches vLLM in place when a worker starts; a symlinked tree would patch the shared cache.\n'
          '# Give each venv its own real copy, writable by the runtime group.\n'
          'copied=0\n'
          'for pkg in /opt/nemo_rl_venv/lib/python3*/site-packages/vllm \\\n'
          '           /opt/ray_venvs/*/lib/python3*/site-packages/vllm \\\n'
          '           /opt/gym_venvs/*/lib/python3*/site-packages/vllm; do\n'
          '  [ -d "$pkg" ] || continue\n'
          '  cp -a --dereference "$pkg" "$pkg.real"\n'
          '  rm -rf "$pkg"\n'
          '  mv "$pkg.real" "$pkg"\n'
          '  chown -R "${BUILD_UID}:${RUNTIME_GID}" "$pkg"\n'
          '  chmod -R g+w "$pkg"\n'
          '  copied=$((copied + 1))\n'
          'done\n'
          'if [ "$copied" -eq 0 ]; then echo "ERROR: no venv contains a vllm/ package to copy" >&2; exit 1; fi\n'
          'echo "vllm copied into $copied venvs"\n',
          '# NeMo-RL no longer patches vLLM in place (it applies its patches at import): the vllm trees stay links.\n'),
     old=("copies the vLLM trees", "VllmGenerationWorker: directory, 0 symlinks"),
     expect="the vllm copy step is gone: the console-vllm-copies and writable-count transcripts re-render (or drop); "
            "layering.md's hand-written 'copies the vLLM trees' is false: check fails at that sentence"),
Case("w2-df-uv-bump-script-default-stale", "w2-m-015", "maintainer",
     edit(DOCKERFILE, "ARG UV_VERSION=0.11.33", "ARG UV_VERSION=0.11.40"),
     old=("ghcr.io/astral-sh/uv:0.11.33",),
     expect="the uv version re-renders everywhere; scripts/make-local-images still makes ghcr.io/astral-sh/uv:0.11.33 "
            "by default (a quoted value that now disagrees with the Dockerfile's UV_VERSION, so the hermetic build "
            "cannot find its uv image): a careful checker flags the disagreement"),
Case("w2-df-uv-cache-moved", "w2-m-017", "maintainer",
     edit(DOCKERFILE, "/opt/uv_cache", "/var/cache/uv", count=0),
     old=("/opt/uv_cache",),
     expect="every cache path (runtime table, values, transcripts, diagrams, the NEMO_GYM_INTREE_MAX_MIB comment the "
            "options table copies) re-renders /var/cache/uv; any copy left is a finding"),
Case("w2-cfg-bake-unquoted-then-target-renamed", "w2-m-019", "maintainer",
     edits(edit(BAKE, 'targets = ["production"]', 'targets = ["release"]'),
           edit(BAKE, 'target "production" {', 'target "release" {')),
     setup=edit("pyproject.toml", 'quoted = ["docker-bake.hcl", "scripts/bootstrap"', 'quoted = ["scripts/bootstrap"'),
     old=("docker buildx bake --builder NAME production", "The `production` target imports"),
     expect="with docker-bake.hcl dropped from `quoted`, the pages still name its targets and variables; after the "
            "production target is renamed, options.md names a target that does not exist. A careful checker either "
            "refuses to drop a file the pages quote (a finding naming the quoting lines) or still catches the rename"),
Case("w2-cfg-dockerfile-moved", "w2-m-021", "maintainer",
     edits(move(DOCKERFILE, "docker/nmp-rl-base.Dockerfile"),
           edit("pyproject.toml", 'dockerfile = "Dockerfile.nmp-rl-base"', 'dockerfile = "docker/nmp-rl-base.Dockerfile"'),
           edit(BAKE, 'dockerfile = "Dockerfile.nmp-rl-base"', 'dockerfile = "docker/nmp-rl-base.Dockerfile"')),
     old=("(`Dockerfile.nmp-rl-base`), and `docgen`", "(`Dockerfile.nmp-rl-base`), NeMo-RL's",
          "`Dockerfile.nmp-rl-base`: stages, build arguments"),
     expect="the Dockerfile moved to docker/nmp-rl-base.Dockerfile (config and bake follow): README, index.md and "
            "contributing.md name a file that no longer exists: check fails at those lines"),
]
