"""Wave 3 of the issue-27 generalisation corpus: the held-out half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet; the full wave-3 list was split by
`split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once. Run with bench/generalise.py --set wave3_heldout.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted("w3-plant-hermetic-pair-of-args", "w3-p-002", "docs/building/hermetic.md", 57,
            "- The CA bundle for the package index reaches the build",
            "- The `hermetic` target overrides only a pair of build arguments, `BASE_IMAGE` and `PYTHON_SOURCE`; every "
            "other argument keeps its production default.\n- The CA bundle for the package index reaches the build",
            "overrides only a pair of build arguments",
            "the hermetic bake target sets five args: BASE_IMAGE, PYTHON_SOURCE, PYTHON_VERSION, CMAKE_SOURCE, "
            "SYSTEM_PACKAGES"),
    Planted("w3-plant-deflist-uv-python-312", "w3-p-004", "docs/building/runtime.md", 27,
            "`NEMO_RL_VENV_DIR`\n:   Where NeMo-RL looks for",
            "`UV_PYTHON`\n:   Pins every uv call in the image to Python 3.12, the interpreter every venv uses.\n\n"
            "`NEMO_RL_VENV_DIR`\n:   Where NeMo-RL looks for",
            "Pins every uv call in the image to Python 3.12",
            "UV_PYTHON is PYTHON_VERSION, 3.13.14"),
    Planted("w3-plant-table-deep-ep-mcore-only", "w3-p-006", "docs/concepts/mcore.md", 13,
            "| Megatron-native generation |",
            "| Expert-parallel MoE | DeepEP all-to-all kernels, compiled for the `mcore` extra alone. | Only the "
            "Megatron worker dispatches experts with DeepEP. |\n| Megatron-native generation |",
            "DeepEP all-to-all kernels, compiled for the `mcore` extra alone.",
            "deep-ep is built first by the vllm warm step and shared by vllm, automodel and mcore"),
    Planted("w3-plant-editable-before-warm", "w3-p-008", "docs/image/layering.md", 95,
            "- The published stage is the build stage itself",
            "- The editable install of the RL root comes first, before the warm-up syncs, so every sync sees "
            "NeMo-RL's own metadata.\n- The published stage is the build stage itself",
            "The editable install of the RL root comes first, before the warm-up syncs",
            "the `uv pip install -e .` RUN follows the warm-up RUN (after the full-source COPY)"),
    Planted("w3-plant-readme-release-target", "w3-p-010", "README.md", 156,
            "Tests:\n",
            "The production image is the bake target `release` (`docker buildx bake release`), also bake's default "
            "group.\n\nTests:\n",
            "The production image is the bake target `release`",
            "the target is `production` (the default group's only target); no `release` target exists"),
    Planted("w3-plant-check-engine-min-flag", "w3-p-012", "docs/building/options.md", 65,
            "## Builds on a shared BuildKit\n",
            "`scripts/check-engine --min` prints that minimum, the one place the number lives.\n\n"
            "## Builds on a shared BuildKit\n",
            "`scripts/check-engine --min` prints that minimum",
            "the flag is --minimum; any other argument runs the check instead"),
    Planted("w3-plant-glossary-nvrx-warmed", "w3-p-014", "docs/includes/glossary.md", 25,
            "*[DTensor]: PyTorch's distributed tensor",
            "*[nvrx]: NVIDIA Resiliency Extension (nvidia-resiliency-ext), the extra the image warms for "
            "fault-tolerant Megatron jobs.\n*[DTensor]: PyTorch's distributed tensor",
            "the extra the image warms for fault-tolerant Megatron jobs",
            "nvrx is not warmed (no --extra nvrx sync); only mcore's install set carries nvidia-resiliency-ext"),
]
