"""Wave 6 of the issue-27 generalisation corpus: the development half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name shapes of false sentence nobody had named yet: ordinals and positions
("the third of five stages", "the last `RUN`"), quantifiers ("both", "all but one", "none of", "each of the
three", "most", "the only", "just over half"), negations, comparisons ("more threads than jobs", "the same
release as"), durations and sizes, facts in table cells, headings, admonitions, definition lists and
footnotes, and relations between inputs (which stage copies from which, which bake target sets what, which
package is a wheel and which a source build). The full wave-6 list was split by `split` in
tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even positions are
held out) and written out here once. Run with bench/generalise.py --set wave6_dev.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted('w6-plant-builder-third-stage', 'p-601', 'docs/image/layering.md', 95,
            '- The published stage is the build stage itself (`FROM builder`)',
            "- The warm-up, the prefetch and the Gym step all run in `builder`, the third of the Dockerfile's "
            'five stages.\n'
            '- The published stage is the build stage itself (`FROM builder`)',
            "`builder`, the third of the Dockerfile's five stages",
            'the stages are nemo-rl, uv, base, builder, nmp-rl-base: builder is the fourth of five, not the third'),
    Planted('w6-plant-both-hermetic-targets-same-args', 'p-603', 'docs/building/hermetic.md', 57,
            '- The CA bundle for the package index reaches the build as a BuildKit secret',
            '- Both hermetic targets, `hermetic` and `hermetic-gym`, set the same build arguments; only the tag '
            'differs.\n'
            '- The CA bundle for the package index reaches the build as a BuildKit secret',
            'Both hermetic targets, `hermetic` and `hermetic-gym`, set the same build arguments',
            "hermetic-gym inherits hermetic's args and adds "
            'NEMO_GYM_PREFETCH_CONFIGS="resources_servers/standin_echo/configs/standin_echo.yaml" (hermetic '
            'leaves it at its empty default)'),
    Planted('w6-plant-none-not-prefetched-warmed', 'p-605', 'docs/image/venvs.md', 100,
            'What happens when a job uses one of them:',
            'None of them runs with an extra the image warms, so each would compile its backend on the node.\n'
            '\n'
            'What happens when a job uses one of them:',
            'None of them runs with an extra the image warms',
            'of the 11 uv actors without a prebuilt venv only SGLangGenerationWorker (sglang) and '
            'TrtllmAsyncGenerationWorker (trtllm) lack a warmed extra; the value workers run with '
            'automodel/mcore, the async helpers with vllm, the quantization workers with modelopt plus '
            'vllm/automodel/mcore, all warmed'),
    Planted('w6-plant-most-actors-driver-interpreter', 'p-607', 'docs/concepts/workers.md', 7,
            'from the driver. That one fact shapes the whole image.\n',
            'from the driver. That one fact shapes the whole image,\n'
            "even though most of the registry's actors simply reuse the driver's own interpreter.\n",
            "most of the registry's actors simply reuse the driver's own interpreter",
            "nine of the registry's 29 actors map to SYSTEM (sys.executable); twenty run under uv run: a "
            'minority, not most'),
    Planted('w6-plant-bake-no-default-target', 'p-609', 'docs/building/options.md', 82,
            'The tests check the resolved configuration',
            'Name the target every time: the bake file defines no default, so a bare `docker buildx bake` builds '
            'nothing.\n'
            '\n'
            'The tests check the resolved configuration',
            'the bake file defines no default, so a bare `docker buildx bake` builds nothing',
            'docker-bake.hcl has group "default" { targets = ["production"] }: a bare bake builds the production '
            'target'),
    Planted('w6-plant-automodel-mcore-same-transformers', 'p-611', 'docs/concepts/workflows.md', 82,
            '## DPO\n',
            '`automodel` and `mcore` install the same `transformers` release, so a checkpoint saved by one loads '
            'in the other.\n'
            '\n'
            '## DPO\n',
            '`automodel` and `mcore` install the same `transformers` release',
            'the lock gives automodel transformers 5.5.0 (the extra pins >=5.5.0,<5.6.0) and mcore transformers '
            '5.8.1'),
    Planted('w6-plant-engine-start-waits-minute', 'p-613', 'docs/building/hermetic.md', 20,
            'scripts/docker-engine start\n'
            '```\n',
            'scripts/docker-engine start\n'
            '```\n'
            '\n'
            'A first start installs the engine; after launching `dockerd` the script waits up to a minute for it '
            'to answer.\n',
            'the script waits up to a minute for it to answer',
            'scripts/docker-engine polls 120 times every 0.25 s and then says "dockerd did not answer within 30 '
            's": thirty seconds, not a minute'),
    Planted('w6-plant-table-deepep-mcore-only', 'p-615', 'docs/concepts/mcore.md', 12,
            '| Speculative decoding with draft models or EAGLE3 |',
            "| Expert-parallel MoE dispatch | DeepEP's all-to-all kernels move tokens between experts on "
            'different GPUs. | DeepEP is built only for the `mcore` extra. |\n'
            '| Speculative decoding with draft models or EAGLE3 |',
            'DeepEP is built only for the `mcore` extra.',
            'deep-ep 1.2.1+29d31c0 is a git source build of the vllm extra (built there first), reused by '
            'automodel and mcore: three warmed extras install it'),
    Planted('w6-plant-deflist-ray-usage-stats', 'p-617', 'docs/building/runtime.md', 40,
            '`NEMO_RL_PY_EXECUTABLES_SYSTEM`\n',
            '`RAY_USAGE_STATS_ENABLED`\n'
            ":   Left at Ray's default: the cluster sends usage statistics unless the deployment switches them "
            'off.\n'
            '\n'
            '`NEMO_RL_PY_EXECUTABLES_SYSTEM`\n',
            "Left at Ray's default: the cluster sends usage statistics",
            'the base stage sets ENV RAY_USAGE_STATS_ENABLED=0 and the published image inherits it: usage stats '
            'are off'),
    Planted('w6-plant-flash-attn-compiled', 'p-619', 'docs/concepts/workflows.md', 42,
            '<!-- docgen:end extra-packages body=aca92def -->\n',
            '<!-- docgen:end extra-packages body=aca92def -->\n'
            '\n'
            'The slow part of the `fsdp` sync is `flash-attn`, which uv compiles from source.\n',
            '`flash-attn`, which uv compiles from source',
            'the lock installs flash-attn 2.8.1+cu13torch2.10cxx11abitrue from a prebuilt wheel URL (GitHub '
            "release); fsdp's source builds are causal-conv1d and mamba-ssm"),
]
