"""Wave 4 of the issue-27 generalisation corpus: the development half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet; the full wave-4 list was split by
`split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once. Run with bench/generalise.py --set wave4_dev.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted('w4-plant-glossary-build-user-uid', 'w4-p-001', 'docs/includes/glossary.md', 14,
            '*[refit]:',
            "*[build user]: The account that creates the uv cache and the venvs at build time: uid 1000, the same as the runtime user's.\n*[refit]:",
            "uid 1000, the same as the runtime user's",
            'BUILD_UID is 2000; the runtime user is RUNTIME_UID 1000, a different account'),
    Planted('w4-plant-range-compute-capabilities', 'w4-p-003', 'docs/building/hardware.md', 15,
            '## Running\n',
            "The image's kernels cover compute capabilities 8.0 through 10.0, Ampere to Blackwell.\n\n## Running\n",
            'compute capabilities 8.0 through 10.0, Ampere to Blackwell',
            'NVTE_CUDA_ARCHS is 90;100 and TORCH_CUDA_ARCH_LIST 9.0 10.0: the floor is 9.0 (Hopper); no Ampere kernels'),
    Planted('w4-plant-only-git-build-te', 'w4-p-005', 'docs/concepts/transformer-engine.md', 88,
            '## What mcore adds cheaply\n',
            'Among the warmed extras, Transformer-Engine is the only package built from a git checkout.\n\n## What mcore adds cheaply\n',
            'Transformer-Engine is the only package built from a git checkout',
            'deep-ep, deep-gemm, causal-conv1d, mamba-ssm, nv-grouped-gemm, nvidia-modelopt and others are git source builds of the warmed extras too'),
    Planted('w4-plant-negation-modelopt-not-synced', 'w4-p-007', 'docs/image/layering.md', 89,
            '- The prefetch step only **links** venvs',
            '- The warm-up does not sync `modelopt` on its own: its packages arrive with the `mcore` sync.\n- The prefetch step only **links** venvs',
            'The warm-up does not sync `modelopt` on its own',
            'the sixth warm-up step is `uv sync ${UV_SYNC_MODE} --no-install-project --extra modelopt`'),
    Planted('w4-plant-twice-as-many-uv-actors', 'w4-p-009', 'docs/concepts/workers.md', 77,
            'no venv of their own.\n',
            'no venv of their own.\nThe registry thus holds twice as many `uv run` actors as system-interpreter ones.\n',
            'twice as many `uv run` actors as system-interpreter ones',
            '20 registry actors run under uv and 9 on sys.executable: not twice as many (that would be 18)'),
    Planted('w4-plant-link-text-eight-venvs', 'w4-p-011', 'docs/index.md', 90,
            '- Looking inside a built image? [Inspecting the image](image/inspect.md).\n',
            '- Looking inside a built image? [Inspecting the image](image/inspect.md).\n- Comparing worker venvs? [The eight prefetched venvs side by side](image/venvs.md#the-venv-inventory).\n',
            '[The eight prefetched venvs side by side]',
            'the eight filters give nine prefetched worker venvs'),
    Planted('w4-plant-code-comment-cache-mode-min', 'w4-p-013', 'docs/building/options.md', 75,
            '  docker buildx bake --builder NAME production\n',
            '  docker buildx bake --builder NAME production   # cache-to exports with mode=min: the published layers only\n',
            '# cache-to exports with mode=min',
            "the production target's cache-to is type=registry,ref=${CACHE_TO_REF},mode=max"),
]
