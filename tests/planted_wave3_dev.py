"""Wave 3 of the issue-27 generalisation corpus: the development half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet; the full wave-3 list was split by
`split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once. Run with bench/generalise.py --set wave3_dev.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted("w3-plant-te-threads-four", "w3-p-001", "docs/building/options.md", 43,
            "- **Lock strictness.**",
            "- **Threads per job.** Each Transformer-Engine compile job runs four nvcc threads unless "
            "`NVTE_BUILD_THREADS_PER_JOB` says otherwise.\n- **Lock strictness.**",
            "Each Transformer-Engine compile job runs four nvcc threads",
            "NVTE_BUILD_THREADS_PER_JOB defaults to 2"),
    Planted("w3-plant-heading-half-dozen-system", "w3-p-003", "docs/concepts/workers.md", 78,
            "### `NEMO_RL_PY_EXECUTABLES_SYSTEM=1`\n",
            "### Half a dozen actors share the driver's interpreter\n\n"
            "They run on `sys.executable` and have no venv of their own.\n\n"
            "### `NEMO_RL_PY_EXECUTABLES_SYSTEM=1`\n",
            "### Half a dozen actors share the driver's interpreter",
            "nine registry actors (the SYSTEM member) run on sys.executable"),
    Planted("w3-plant-code-comment-base-tag", "w3-p-005", "docs/building/hermetic.md", 24,
            "```bash\nscripts/make-local-images\n```",
            "```bash\n# tags local/python:3.12-bookworm and ghcr.io/astral-sh/uv:0.11.33\nscripts/make-local-images\n```",
            "# tags local/python:3.12-bookworm and ghcr.io/astral-sh/uv:0.11.33",
            "make-local-images tags local/python:3.13-trixie (BASE_TAG), which the hermetic target's BASE_IMAGE names"),
    Planted("w3-plant-admonition-async-system", "w3-p-007", "docs/image/venvs.md", 112,
            "out deliberately rather than by accident.\n",
            "out deliberately rather than by accident.\n\n!!! note \"Async helpers\"\n"
            "    `AsyncTrajectoryCollector` and `ReplayBuffer` run on `sys.executable`, in the driver venv, so they "
            "never need a venv.\n",
            "`AsyncTrajectoryCollector` and `ReplayBuffer` run on `sys.executable`",
            "both map to the VLLM member (uv run --extra vllm); they are built on the node at first use"),
    Planted("w3-plant-managed-python-path", "w3-p-009", "docs/building/options.md", 45,
            "- **Users.**",
            "- **Python.** With the default `PYTHON_SOURCE=managed`, uv downloads the interpreter into "
            "`/opt/python`; `system` uses the base image's own.\n- **Users.**",
            "uv downloads the interpreter into `/opt/python`",
            "UV_PYTHON_INSTALL_DIR is /opt/uv/python"),
    Planted("w3-plant-hermetic-bookworm-base", "w3-p-011", "docs/building/hermetic.md", 27,
            "Build the hermetic image (this writes",
            "The base image is Debian bookworm minbase with python3 and ca-certificates.\n\n"
            "Build the hermetic image (this writes",
            "The base image is Debian bookworm minbase",
            "make-local-images debootstraps SUITE=trixie (local/python:3.13-trixie)"),
    Planted("w3-plant-te-release-tag", "w3-p-013", "docs/concepts/transformer-engine.md", 46,
            "An override replaces every requirement on `transformer-engine`",
            "The override pins TE to the release tag `v2.15.0` of NVIDIA's repository.\n\n"
            "An override replaces every requirement on `transformer-engine`",
            "The override pins TE to the release tag `v2.15.0`",
            "the override names the branch release_v2.15 (locked at commit 42b8400); the automodel extra's tag is v2.14.1"),
]
