"""Wave 2 of the issue-27 generalisation corpus: the development half of the planted false sentences.

Written before the design, by someone who had read only the first wave's development cases; the full
wave-2 list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the
development set, even positions are held out) and written out here once. Run with
bench/generalise.py --set wave2_dev.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted("w2-plant-cache-path", "w2-p-001", "docs/building/options.md", 49,
            "- **Gym environment venvs.**",
            "- **Cache location.** The warm-up fills the uv cache at `/root/.cache/uv`, and the published stage keeps it.\n"
            "- **Gym environment venvs.**",
            "The warm-up fills the uv cache at `/root/.cache/uv`",
            "UV_CACHE_DIR is /opt/uv_cache (builder ENV); /root/.cache is removed in the published stage"),
    Planted("w2-plant-hermetic-gym-default", "w2-p-003", "docs/building/hermetic.md", 41,
            "The `hermetic-gym` target builds the same image",
            "A plain `hermetic` build already prefetches the stand-in echo server's Gym venv.\n\n"
            "The `hermetic-gym` target builds the same image",
            "A plain `hermetic` build already prefetches the stand-in echo server's Gym venv.",
            "only hermetic-gym sets NEMO_GYM_PREFETCH_CONFIGS; its default is empty, so hermetic builds no Gym venv"),
    Planted("w2-plant-te-jobs-option-name", "w2-p-005", "docs/building/options.md", 44,
            "- **Lock strictness.**",
            "- **Job count.** The Transformer-Engine job count is the build argument `NVTE_MAX_JOBS`.\n- **Lock strictness.**",
            "the build argument `NVTE_MAX_JOBS`",
            "the ARG is NVTE_BUILD_MAX_JOBS; no NVTE_MAX_JOBS is declared"),
    Planted("w2-plant-table-te-version", "w2-p-007", "docs/concepts/mcore.md", 13,
            "| Megatron-native generation |",
            "| FP4 GEMMs | Transformer-Engine 2.14.0 kernels for NVFP4 matmuls. | Only the Megatron path calls them. |\n"
            "| Megatron-native generation |",
            "Transformer-Engine 2.14.0 kernels",
            "the lock's transformer-engine is 2.15.0+42b8400"),
    Planted("w2-plant-venv-dir-group", "w2-p-009", "docs/image/inspect.md", 204,
            "Nothing in the cache, and nothing in a prefetched venv outside",
            "The venv directory's group is gid 2000, the build user's.\n\n"
            "Nothing in the cache, and nothing in a prefetched venv outside",
            "The venv directory's group is gid 2000",
            "/opt/ray_venvs is installed with group RUNTIME_GID 1000"),
    Planted("w2-plant-megatron-extra", "w2-p-011", "docs/concepts/workers.md", 145,
            "This is also why a bug report",
            "`MegatronPolicyWorker` runs in the `automodel` venv.\n\nThis is also why a bug report",
            "`MegatronPolicyWorker` runs in the `automodel` venv.",
            "MegatronPolicyWorker's member is MCORE (extra mcore)"),
    Planted("w2-plant-admonition-hardlink", "w2-p-013", "docs/image/layering.md", 128,
            '!!! danger "Never delete the uv cache"',
            '!!! note "Link mode"\n    The warm-up syncs use `UV_LINK_MODE=hardlink`.\n\n!!! danger "Never delete the uv cache"',
            "The warm-up syncs use `UV_LINK_MODE=hardlink`.",
            "every install step exports UV_LINK_MODE=symlink"),
]
