"""Wave 5 of the issue-27 generalisation corpus: the development half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet: coordinated multi-file pull requests,
removals and additions, facts that follow from two inputs together, and subtle wrong claims; the full wave-5
list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development
set, even positions are held out) and written out here once. Run with bench/generalise.py --set wave5_dev.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted('w5-plant-wrappers-eight-per-filter', 'w5-p-001', 'docs/image/inspect.md', 232,
            "that actor's venv interpreter, so you can reach a worker's environment without typing its FQN:\n",
            "that actor's venv interpreter, so you can reach a worker's environment without typing its FQN. There are\neight of them, one per prefetch filter:\n",
            'eight of them, one per prefetch filter',
            'one wrapper per prefetched venv: nine (the console block lists nine); eight is the number of filters, and `vllm.vllm_worker` selects two actors'),
    Planted('w5-plant-managed-python-in-cache', 'w5-p-003', 'docs/image/layering.md', 126,
            'stored once. `UV_LINK_MODE` is exported per `RUN` step, not set as an `ENV`, so it is not in effect at\nrun time.\n',
            "stored once. `UV_LINK_MODE` is exported per `RUN` step, not set as an `ENV`, so it is not in effect at\nrun time. The uv-managed Python every venv's `bin/python` points to is kept there too, under `/opt/uv_cache`.\n",
            'is kept there too, under `/opt/uv_cache`',
            'UV_PYTHON_INSTALL_DIR=/opt/uv/python: the managed interpreter is installed there, not in the uv cache'),
    Planted('w5-plant-uv-cache-group-1000', 'w5-p-005', 'docs/image/venvs.md', 104,
            'read-only to the runtime user on purpose (the prefetched venvs link into it, see\n',
            'read-only to the runtime user on purpose (it belongs to uid 2000 and group 1000, mode 0755; the prefetched\nvenvs link into it, see\n',
            'it belongs to uid 2000 and group 1000, mode 0755',
            "/opt/uv_cache is created with `install -d -o BUILD_UID -g BUILD_UID -m 0755`: owner and group 2000:2000; group 1000 owns only the venv parents' group and the private vllm/ copies"),
    Planted('w5-plant-uv-stage-after-base', 'w5-p-007', 'docs/index.md', 20,
            'The Dockerfile is a multi-stage build. Each stage below is a `FROM`; the published image is the last one.\n',
            "The Dockerfile is a multi-stage build. Each stage below is a `FROM`; the published image is the last one.\nThe `uv` stage is declared after `base`, the stage that copies uv's binaries from it.\n",
            'The `uv` stage is declared after `base`',
            'the Dockerfile declares nemo-rl, then uv, then base, builder and nmp-rl-base: uv comes before base'),
    Planted('w5-plant-bootstrap-five-steps', 'w5-p-009', 'README.md', 156,
            'Tests:\n',
            'The set-up runs in five steps, and a second run redoes only what changed.\n\nTests:\n',
            'The set-up runs in five steps',
            'scripts/bootstrap has STEPS=6: system packages, the Python venv, the Docker engine, the local images, the hermetic image, the docs site'),
    Planted('w5-plant-path-usr-local-bin-first', 'w5-p-011', 'docs/building/runtime.md', 36,
            '`NEMO_GYM_VENV_DIR`\n:   Where NeMo-Gym',
            "`PATH`\n:   Puts `/usr/local/bin` first, so the `python-<ClassName>` wrappers come before the driver venv's\n    `bin/`.\n\n`NEMO_GYM_VENV_DIR`\n:   Where NeMo-Gym",
            'Puts `/usr/local/bin` first',
            "PATH=/opt/nemo_rl_venv/bin:/usr/local/sbin:/usr/local/bin:...: the driver venv's bin/ comes first"),
    Planted('w5-plant-glossary-warm-up-per-extra', 'w5-p-013', 'docs/includes/glossary.md', 31,
            '*[sdist]:',
            '*[warm-up]: The eight `uv sync` steps of the builder stage, one for each extra NeMo-RL defines.\n*[sdist]:',
            'one for each extra NeMo-RL defines',
            'NeMo-RL defines nine extras and six are warmed (nvrx, sglang, trtllm are not); the eight syncs are base, six extras and --all-groups'),
]
