"""Wave 4 of the issue-27 generalisation corpus: the held-out half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet; the full wave-4 list was split by
`split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even
positions are held out) and written out here once. Run with bench/generalise.py --set wave4_heldout.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted('w4-plant-ordinal-te-second-sync', 'w4-p-002', 'docs/concepts/transformer-engine.md', 52,
            '## One build for every sync that needs it\n\n',
            '## One build for every sync that needs it\n\nTransformer-Engine is compiled by the second warm-up sync, the one for `automodel`.\n\n',
            'Transformer-Engine is compiled by the second warm-up sync',
            "automodel's is the fourth warm-up sync (base, vllm, fsdp, automodel); the second is vllm's, which does not reach TE"),
    Planted('w4-plant-every-filter-two-actors', 'w4-p-004', 'docs/image/venvs.md', 38,
            '## The venv inventory\n',
            'Every filter of the image matches at least two registry actors.\n\n## The venv inventory\n',
            'Every filter of the image matches at least two registry actors.',
            'only `vllm.vllm_worker` matches two actors; the other seven filters match one each'),
    Planted('w4-plant-admonition-no-unused-member', 'w4-p-006', 'docs/concepts/workers.md', 36,
            "The registry of the NeMo-RL ref this image pins, as the image's default sees it:\n",
            '!!! tip "Every member is in use"\n    None of the `PY_EXECUTABLES` members above is unused: each one starts at least one registry actor.\n\nThe registry of the NeMo-RL ref this image pins, as the image\'s default sees it:\n',
            'None of the `PY_EXECUTABLES` members above is unused',
            'BASE (uv run --locked --directory {git_root}) is the member of no registry actor'),
    Planted('w4-plant-table-te-newer-than', 'w4-p-008', 'docs/concepts/mcore.md', 12,
            '| Speculative decoding with draft models or EAGLE3 |',
            "| FP8 attention | Faster long-context attention in FP8. | The locked Transformer-Engine is newer than 2.16, the first release with Megatron's FP8 attention path. |\n| Speculative decoding with draft models or EAGLE3 |",
            'The locked Transformer-Engine is newer than 2.16',
            'the lock holds Transformer-Engine 2.15.0+42b8400 (branch release_v2.15), older than 2.16'),
    Planted('w4-plant-heading-two-stages', 'w4-p-010', 'docs/index.md', 54,
            '## Quick inventory\n',
            '## Two stages, one image\n\nThe builder stage does the work and the published stage keeps it.\n\n## Quick inventory\n',
            '## Two stages, one image',
            'the Dockerfile has five stages: nemo-rl, uv, base, builder and nmp-rl-base'),
    Planted('w4-plant-image-alt-four-stages', 'w4-p-012', 'docs/image/layering.md', 34,
            'How the build runs, from the first stage to the published image:\n',
            '![The build in four stages: uv, base, builder and nmp-rl-base](../assets/img/build-stages.svg)\n\nHow the build runs, from the first stage to the published image:\n',
            'The build in four stages: uv, base, builder and nmp-rl-base',
            'there are five stages: the nemo-rl source stage is the first'),
    Planted('w4-plant-deflist-ray-usage-stats', 'w4-p-014', 'docs/building/runtime.md', 40,
            '`NEMO_RL_PY_EXECUTABLES_SYSTEM`\n',
            "`RAY_USAGE_STATS_ENABLED`\n:   Left at Ray's default: the cluster reports usage statistics unless the deployment turns them off.\n\n`NEMO_RL_PY_EXECUTABLES_SYSTEM`\n",
            "Left at Ray's default: the cluster reports usage statistics",
            'the base stage sets RAY_USAGE_STATS_ENABLED=0'),
]
