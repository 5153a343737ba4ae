"""Wave 6 of the issue-27 generalisation corpus: the held-out half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name shapes of false sentence nobody had named yet: ordinals and positions
("the third of five stages", "the last `RUN`"), quantifiers ("both", "all but one", "none of", "each of the
three", "most", "the only", "just over half"), negations, comparisons ("more threads than jobs", "the same
release as"), durations and sizes, facts in table cells, headings, admonitions, definition lists and
footnotes, and relations between inputs (which stage copies from which, which bake target sets what, which
package is a wheel and which a source build). The full wave-6 list was split by `split` in
tests/mutations_corpus.py (sort by (date, id); odd positions are the development set, even positions are
held out) and written out here once. Run with bench/generalise.py --set wave6_heldout.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted('w6-plant-gym-step-last-run', 'p-602', 'docs/image/venvs.md', 153,
            'in the Gym source tree, the sign of a second package cache or venv written there instead.\n',
            'in the Gym source tree, the sign of a second package cache or venv written there instead.\n'
            "It is the Dockerfile's last `RUN`: the published stage only sets the environment and the user.\n",
            "It is the Dockerfile's last `RUN`",
            'the published stage nmp-rl-base has a RUN of its own after the Gym step (it removes CMake and the '
            'stray caches, hands /usr/local/bin back to root and makes the private vllm/ copies): that is the '
            'last RUN'),
    Planted('w6-plant-all-but-one-extra-warmed', 'p-604', 'README.md', 32,
            '## Quick start\n',
            "All but one of NeMo-RL's extras are warmed into the uv cache; `trtllm` alone builds on the node.\n"
            '\n'
            '## Quick start\n',
            "All but one of NeMo-RL's extras are warmed",
            'NeMo-RL defines nine extras and the Dockerfile warms six (vllm, fsdp, automodel, mcore, modelopt, '
            'nemo_gym): three (nvrx, sglang, trtllm) are not warmed, not one'),
    Planted('w6-plant-each-prefetched-vllm-one-filter', 'p-606', 'docs/image/venvs.md', 38,
            '## The venv inventory\n',
            'Each of the three prefetched `vllm` venvs comes from the one `vllm.vllm_worker` filter.\n'
            '\n'
            '## The venv inventory\n',
            'Each of the three prefetched `vllm` venvs comes from the one `vllm.vllm_worker` filter.',
            'the three prefetched vllm-extra venvs are VllmGenerationWorker and VllmAsyncGenerationWorker '
            '(filter vllm.vllm_worker) and SyncRolloutActor, which the filter '
            'sync_rollout_actor.SyncRolloutActor selects'),
    Planted('w6-plant-megatron-only-mcore-actor', 'p-608', 'docs/concepts/mcore.md', 40,
            '## Where its venv is\n'
            '\n',
            '## Where its venv is\n'
            '\n'
            '`MegatronPolicyWorker` is the only actor that runs with `mcore`, and its venv is prefetched.\n'
            '\n',
            '`MegatronPolicyWorker` is the only actor that runs with `mcore`',
            'three registry actors run with mcore: MegatronPolicyWorker, MegatronValueWorker (member MCORE) and '
            'MegatronQuantPolicyWorker (modelopt + mcore)'),
    Planted('w6-plant-admonition-te-threads-exceed-jobs', 'p-610', 'docs/building/options.md', 57,
            '## Engine\n',
            '!!! note "Peak compile load"\n'
            '    By default each Transformer-Engine compile job runs more nvcc threads than there are jobs, '
            'sixteen threads in all.\n'
            '\n'
            '## Engine\n',
            'each Transformer-Engine compile job runs more nvcc threads than there are jobs',
            'NVTE_BUILD_THREADS_PER_JOB defaults to 2 and NVTE_BUILD_MAX_JOBS to 8: two threads per job against '
            'eight jobs (16 threads in all is right, the comparison is the wrong way round)'),
    Planted('w6-plant-uv-actors-just-over-half', 'p-612', 'docs/concepts/workers.md', 136,
            '   so their venvs exist in `$NEMO_RL_VENV_DIR` before any job starts.\n',
            '   so their venvs exist in `$NEMO_RL_VENV_DIR` before any job starts.\n'
            '\n'
            'Just over half of the twenty `uv run` actors get a venv this way; the others build theirs on first '
            'use.\n',
            'Just over half of the twenty `uv run` actors get a venv this way',
            'nine of the twenty uv actors are prefetched (45%) and eleven are not: fewer than half'),
    Planted('w6-plant-gym-intree-128-mib', 'p-614', 'docs/image/venvs.md', 151,
            'fails the build if it left more than `NEMO_GYM_INTREE_MAX_MIB`\n',
            'fails the build if it left more than `NEMO_GYM_INTREE_MAX_MIB` (128 MiB unless set)\n',
            '`NEMO_GYM_INTREE_MAX_MIB` (128 MiB unless set)',
            'ARG NEMO_GYM_INTREE_MAX_MIB=64: the default limit is 64 MiB'),
    Planted('w6-plant-heading-vllm-copy-every-venv', 'p-616', 'docs/image/inspect.md', 148,
            '## Private vLLM copies\n',
            '## Private vLLM copies in every worker venv\n',
            '## Private vLLM copies in every worker venv',
            'only the venvs that hold vllm get a private copy: VllmGenerationWorker, VllmAsyncGenerationWorker '
            'and SyncRolloutActor, three of the nine prefetched venvs'),
    Planted('w6-plant-footnote-torch-arch-three', 'p-618', 'docs/building/hardware.md', 10,
            'memory and time for the compile jobs.\n',
            'memory and time for the compile jobs.[^archs]\n'
            '\n'
            '[^archs]: Two for Transformer-Engine (`NVTE_CUDA_ARCHS`) and three for the other CUDA extensions '
            '(`TORCH_CUDA_ARCH_LIST`).\n',
            'three for the other CUDA extensions (`TORCH_CUDA_ARCH_LIST`)',
            'TORCH_CUDA_ARCH_LIST defaults to "9.0 10.0": two architectures, the same two as NVTE_CUDA_ARCHS '
            '"90;100"'),
    Planted('w6-plant-uv-copied-into-builder', 'p-620', 'docs/index.md', 54,
            '<!-- docgen:end image-graph body=4c053051 -->\n',
            '<!-- docgen:end image-graph body=4c053051 -->\n'
            '\n'
            "`builder` gets uv's binaries straight from the `uv` stage; `base` has no uv of its own.\n",
            "`builder` gets uv's binaries straight from the `uv` stage",
            'the base stage runs COPY --from=uv /uv /uvx /usr/local/bin/ (and `uv python install`); builder '
            'inherits them FROM base and copies only from nemo-rl'),
]
