"""Wave 7 of the issue-27 generalisation corpus: the development half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read the pages, the inputs
and all earlier waves (development and held-out) only to name shapes of false sentence none of them used:
arithmetic that does not add up ("nine and eleven make twenty-one", "six warmed and four left of nine"), a range
whose end is wrong, lists that leave out or add one member, facts of one script or stage said of another, a
sequence given with paraphrased and re-capitalised names, conditionals ("only when ... is passed"), defaults
stated as behaviour rather than by name, what a script does on failure (its exit code, refusing a tag), file
locations, octal modes and who owns a directory after the published stage, which user runs a step, build-time
exports claimed at run time, ports, entrypoint and labels the Dockerfile never declares, a timing that belongs
to another process, a fraction, a size comparison from the image-size record, a comparison between two inputs
(a script's pin and the Dockerfile's), a count in words, and Markdown contexts earlier waves had not used
(blockquote, collapsible admonition, HTML <details>, task list, numbered list item, hand-written table, a link's
title attribute). The full wave-7 list was split by `split` in tests/mutations_corpus.py (sort by (date, id);
odd positions are the development set, even positions are held out) and written out here once. Run with
bench/generalise.py --set wave7_dev.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted('w7-plant-sum-prefetched-plus-first-use', 'p-701', 'docs/concepts/workers.md', 77,
            'no venv of their own.\n'
            '\n'
            '### `NEMO_RL_PY_EXECUTABLES_SYSTEM=1`\n',
            'no venv of their own. The nine prefetched venvs and the eleven actors left to first use add up to '
            'the\n'
            "registry's twenty-one `uv run` actors.\n"
            '\n'
            '### `NEMO_RL_PY_EXECUTABLES_SYSTEM=1`\n',
            "registry's twenty-one `uv run` actors",
            '9 prefetched + 11 not prefetched = 20: the registry has 29 actors, 9 on SYSTEM (sys.executable) and '
            '20 under uv (quick inventory "29 (20 under uv, 9 on the system interpreter)"), not twenty-one'),
    Planted('w7-plant-transformers-range-across-warmed', 'p-703', 'docs/concepts/workflows.md', 28,
            'The key packages each of these extras adds over the base venv:\n',
            'Across the warmed extras the locked `transformers` runs from 5.5.0 (`automodel`) up to 5.6.0 '
            '(`mcore`).\n'
            '\n'
            'The key packages each of these extras adds over the base venv:\n',
            'runs from 5.5.0 (`automodel`) up to 5.6.0 (`mcore`)',
            "the lock's install sets give mcore (and vllm) transformers 5.8.1, the top of the range; 5.6.0 is "
            "the unwarmed sglang extra's pin (transformers==5.6.0); automodel 5.5.0 is right"),
    Planted('w7-plant-hermetic-args-plus-uv-version', 'p-705', 'docs/building/hermetic.md', 57,
            '- The CA bundle for the package index reaches the build as a BuildKit secret',
            "- The `hermetic` target's `args` are `BASE_IMAGE`, `PYTHON_SOURCE`, `PYTHON_VERSION`, "
            '`CMAKE_SOURCE`, `SYSTEM_PACKAGES` and `UV_VERSION`.\n'
            '- The CA bundle for the package index reaches the build as a BuildKit secret',
            '`SYSTEM_PACKAGES` and `UV_VERSION`',
            'docker-bake.hcl target "hermetic" args are BASE_IMAGE, PYTHON_SOURCE, PYTHON_VERSION, CMAKE_SOURCE '
            'and SYSTEM_PACKAGES (five); UV_VERSION is not among them (the Dockerfile default 0.11.33 applies)'),
    Planted('w7-plant-gym-growth-check-only-if-set', 'p-707', 'docs/image/venvs.md', 152,
            'in the Gym source tree, the sign of a second package cache or venv written there instead.\n',
            'in the Gym source tree, the sign of a second package cache or venv written there instead. That '
            'check runs only when `NEMO_GYM_INTREE_MAX_MIB` is passed as a build argument; left unset, the step '
            'is unbounded.\n',
            'That check runs only when `NEMO_GYM_INTREE_MAX_MIB` is passed as a build argument',
            'ARG NEMO_GYM_INTREE_MAX_MIB=64 has a default, and the step compares the growth with it (`[ "$grown" '
            '-gt "${NEMO_GYM_INTREE_MAX_MIB}" ]`) whenever NEMO_GYM_PREFETCH_CONFIGS names configs: unset means '
            '64 MiB, not unbounded'),
    Planted('w7-plant-check-engine-exits-1', 'p-709', 'docs/building/hermetic.md', 20,
            '```bash\n'
            'scripts/docker-engine start\n'
            '```\n',
            '```bash\n'
            'scripts/docker-engine start\n'
            '```\n'
            '\n'
            'On an older engine `scripts/check-engine` exits 1, and `scripts/build-image` stops before it builds '
            'anything.\n',
            '`scripts/check-engine` exits 1',
            'scripts/check-engine exits 2 when the engine is older than MIN_ENGINE=28.5.0 (or does not answer, '
            'or its version cannot be read); it never exits 1'),
    Planted('w7-plant-fingerprint-in-checkout', 'p-711', 'docs/image/inspect.md', 53,
            '## What each venv adds\n',
            "The build also records NeMo-RL's container fingerprint, in `/opt/nemo-rl/.container_fingerprint` "
            'inside the checkout.\n'
            '\n'
            '## What each venv adds\n',
            'in `/opt/nemo-rl/.container_fingerprint` inside the checkout',
            'the prefetch RUN writes `tools/generate_fingerprint.py > /opt/nemo_rl_container_fingerprint`, a '
            'file created by the base stage directly under /opt, outside the /opt/nemo-rl checkout'),
    Planted('w7-plant-usr-local-bin-stays-group-writable', 'p-713', 'docs/image/inspect.md', 252,
            '<!-- docgen:end console-wrappers body=e9a7ee03 -->\n',
            '<!-- docgen:end console-wrappers body=e9a7ee03 -->\n'
            '\n'
            'In the published image `/usr/local/bin` still belongs to the build group and is group-writable, so '
            'the build user could add more wrappers there.\n',
            '`/usr/local/bin` still belongs to the build group and is group-writable',
            'the base stage makes it group-writable for BUILD_UID (`chgrp ... && chmod g+w`), but the published '
            "stage's RUN takes it back: `chgrp root /usr/local/bin && chmod 0755 /usr/local/bin`"),
    Planted('w7-plant-blockquote-expose-dashboard', 'p-715', 'docs/index.md', 82,
            '## Where to go next\n',
            '> The image exposes the Ray dashboard on port 8265 (`EXPOSE 8265`), so `docker run -P` publishes it.\n'
            '\n'
            '## Where to go next\n',
            'The image exposes the Ray dashboard on port 8265 (`EXPOSE 8265`)',
            'Dockerfile.nmp-rl-base has no EXPOSE instruction in any stage: the image declares no port'),
    Planted('w7-plant-tasklist-revision-label', 'p-717', 'docs/maintain/review-bump.md', 51,
            '- **Packages per venv** and **key versions**: torch, vllm, Transformer-Engine, ray, Python.\n',
            '- **Packages per venv** and **key versions**: torch, vllm, Transformer-Engine, ray, Python.\n'
            '\n'
            'Before approving:\n'
            '\n'
            "- [ ] The image's `org.opencontainers.image.revision` label, which the Dockerfile sets from "
            '`NEMO_RL_REF`, names the new commit.\n',
            "The image's `org.opencontainers.image.revision` label, which the Dockerfile sets from `NEMO_RL_REF`",
            'Dockerfile.nmp-rl-base has no LABEL instruction, and docker-bake.hcl sets no labels: the image '
            'carries no revision label'),
    Planted('w7-plant-engine-stop-ten-seconds', 'p-719', 'docs/building/hermetic.md', 64,
            'see [Inspecting the image](../image/inspect.md).\n',
            'see [Inspecting the image](../image/inspect.md).\n'
            '\n'
            'When you are done, `scripts/docker-engine stop` sends dockerd `TERM` and, after ten seconds, `KILL`.\n',
            'after ten seconds, `KILL`',
            'stop() calls `stop_pid "$pid" 20` for dockerd: it waits up to 20 s after TERM before KILL; ten '
            'seconds is the wait for dockerd\'s containerd (`stop_pid "$ctd" 10`)'),
    Planted('w7-plant-paraphrase-gym-before-modelopt', 'p-721', 'docs/concepts/transformer-engine.md', 70,
            'Source builds the warmed extras share this way:\n',
            "The Nemo-Gym sync comes right after Megatron-Core's and before the Model-Optimizer one.\n"
            '\n'
            'Source builds the warmed extras share this way:\n',
            "The Nemo-Gym sync comes right after Megatron-Core's and before the Model-Optimizer one.",
            'the warm-up runs --extra mcore (5th), then --extra modelopt (6th), then --extra nemo_gym (7th): the '
            'nemo_gym sync follows the modelopt one'),
    Planted('w7-plant-numbered-verify-every-uv-actor', 'p-723', 'docs/concepts/workers.md', 135,
            '   so their venvs exist in `$NEMO_RL_VENV_DIR` before any job starts.\n',
            '   so their venvs exist in `$NEMO_RL_VENV_DIR` before any job starts.\n'
            '3. **Verification** then checks that every actor the registry runs under `uv run` has a venv '
            'interpreter,\n'
            '   and fails the build otherwise.\n',
            'checks that every actor the registry runs under `uv run` has a venv interpreter',
            "the prefetch RUN's loop checks the nine prefetched actors' bin/python only; eleven of the twenty uv "
            'actors have no venv in the image and the build passes'),
    Planted('w7-plant-local-uv-older-than-dockerfile', 'p-725', 'docs/index.md', 81,
            'Transformer-Engine is <!-- docgen:value te.version -->2.15.0+42b8400<!-- docgen:end-value -->.\n',
            'Transformer-Engine is <!-- docgen:value te.version -->2.15.0+42b8400<!-- docgen:end-value -->.\n'
            "The uv that `scripts/make-local-images` packs for the hermetic build is older than the Dockerfile's "
            '`UV_VERSION`.\n',
            "is older than the Dockerfile's `UV_VERSION`",
            'scripts/make-local-images has UV_VERSION=${UV_VERSION:-0.11.33} and tags '
            "ghcr.io/astral-sh/uv:0.11.33, the same release as the Dockerfile's ARG UV_VERSION=0.11.33 (the "
            'hermetic FROM resolves to that very tag)'),
    Planted('w7-plant-twenty-one-args', 'p-727', 'docs/building/options.md', 3,
            'Every `ARG` of `Dockerfile.nmp-rl-base`, with its default',
            'Every `ARG` of `Dockerfile.nmp-rl-base` (twenty-one in all), with its default',
            '(twenty-one in all)',
            'the Dockerfile declares twenty distinct ARGs (seven global, five more in base, eight more in '
            'builder; the generated build-options table has twenty rows)'),
]
