"""Wave 7 of the issue-27 generalisation corpus: the held-out half of the planted false sentences.

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
bench/generalise.py --set wave7_heldout.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted('w7-plant-extras-six-warmed-four-left', 'p-702', 'README.md', 12,
            '## Quick inventory\n',
            'NeMo-RL defines nine extras; the image warms six of them and leaves the other four to be built on '
            'the\n'
            'node.\n'
            '\n'
            '## Quick inventory\n',
            'the image warms six of them and leaves the other four to be built on the',
            'the snapshot has nine extras and the Dockerfile syncs six (vllm, fsdp, automodel, mcore, modelopt, '
            'nemo_gym): three are left (nvrx, sglang, trtllm), not four; six and four make ten, not nine'),
    Planted('w7-plant-system-packages-omit-libibverbs', 'p-704', 'docs/building/options.md', 45,
            '- **Users.**',
            '- **System packages.** The default `SYSTEM_PACKAGES` are `ca-certificates`, `curl`, `git`, `jq`, '
            '`less`, `ninja-build`, `rsync` and `vim-tiny`.\n'
            '- **Users.**',
            'The default `SYSTEM_PACKAGES` are `ca-certificates`, `curl`, `git`, `jq`, `less`, `ninja-build`, '
            '`rsync` and `vim-tiny`.',
            'ARG SYSTEM_PACKAGES="ca-certificates curl git jq less libibverbs-dev ninja-build rsync vim-tiny": '
            'nine packages; the list leaves out libibverbs-dev'),
    Planted('w7-plant-make-local-images-writes-standin', 'p-706', 'docs/building/hermetic.md', 27,
            '```bash\n'
            'scripts/make-local-images\n'
            '```\n',
            '```bash\n'
            'scripts/make-local-images\n'
            '```\n'
            '\n'
            '`scripts/make-local-images` also writes the stand-in NeMo-RL workspace to `build/standin`, so run '
            'it again after the snapshot changes.\n',
            '`scripts/make-local-images` also writes the stand-in NeMo-RL workspace to `build/standin`',
            'make-local-images only makes the two images (make_uv, make_base); the stand-in is written by '
            'scripts/build-image (`.venv/bin/docgen standin --snapshot "$SNAPSHOT" --out "$STANDIN_DIR"`)'),
    Planted('w7-plant-default-sync-refuses-stale-lock', 'p-708', 'docs/building/options.md', 44,
            '  also checks the lock against `pyproject.toml`.\n',
            '  also checks the lock against `pyproject.toml`. By default it does both: a `uv.lock` that is stale '
            'against\n'
            '  `pyproject.toml` stops the build.\n',
            'By default it does both: a `uv.lock` that is stale against',
            'ARG UV_SYNC_MODE=--frozen: by default uv installs uv.lock as is without checking it against '
            'pyproject.toml; failing on a stale lock is --locked, the non-default'),
    Planted('w7-plant-publish-docs-any-tag', 'p-710', 'README.md', 165,
            'the default branch it publishes the site to GitHub Pages.\n',
            'the default branch it publishes the site to GitHub Pages. `scripts/publish-docs tag` publishes any '
            'tag it is given; one that is not a release tag just leaves `latest` where it is.\n',
            '`scripts/publish-docs tag` publishes any tag it is given',
            'scripts/publish-docs refuses a tag that is not v followed by a digit: `need` prints the reason and '
            'exits 2 before mike runs, so nothing is published'),
    Planted('w7-plant-venv-parents-mode-2775', 'p-712', 'docs/building/options.md', 49,
            '  is given; it may add venvs next to the prefetched ones. Keep the two uids different.\n',
            '  is given; it may add venvs next to the prefetched ones, whose parent directories are mode 2775 '
            '(no sticky bit). Keep the two uids different.\n',
            'whose parent directories are mode 2775 (no sticky bit)',
            'the base stage runs `install -d -o BUILD_UID -g RUNTIME_GID -m 3775 /opt/ray_venvs /opt/gym_venvs`: '
            'set-group-ID and the sticky bit (drwxrwsr-t)'),
    Planted('w7-plant-ssl-cert-file-at-run-time', 'p-714', 'docs/building/runtime.md', 25,
            '<!-- docgen:end runtime-env body=63ca5267 -->\n',
            '<!-- docgen:end runtime-env body=63ca5267 -->\n'
            '\n'
            '??? note "Certificates at run time"\n'
            '    A running container keeps `SSL_CERT_FILE` pointing at the CA bundle the build was given, so uv '
            'trusts the same package index on the node.\n',
            'A running container keeps `SSL_CERT_FILE` pointing at the CA bundle the build was given',
            'SSL_CERT_FILE is only exported inside RUN steps, from the BuildKit secret /run/secrets/cacert; no '
            'ENV sets it (the runtime-env table has no such row) and the secret is in no layer'),
    Planted('w7-plant-details-entrypoint-activates', 'p-716', 'docs/image/inspect.md', 15,
            '    docker run --rm -it nmp-rl-base:hermetic bash\n',
            '    docker run --rm -it nmp-rl-base:hermetic bash\n'
            '\n'
            '<details><summary>What runs first</summary>\n'
            '\n'
            "The image's `ENTRYPOINT` activates the driver venv and then runs the command you give it.\n"
            '\n'
            '</details>\n',
            "The image's `ENTRYPOINT` activates the driver venv",
            'Dockerfile.nmp-rl-base has no ENTRYPOINT (nor CMD) instruction; nothing activates a venv at start: '
            'the driver venv is in effect through ENV VIRTUAL_ENV=/opt/nemo_rl_venv and PATH '
            '(/opt/nemo_rl_venv/bin first) of the nmp-rl-base stage'),
    Planted('w7-plant-published-run-as-build-user', 'p-718', 'docs/image/layering.md', 101,
            '  The compilers of the base image stay, and what it removes still occupies the earlier layers.\n',
            '  The compilers of the base image stay, and what it removes still occupies the earlier layers.\n'
            "- The published stage's one `RUN` still runs as the build user (uid 2000), like the warm-up before "
            'it.\n',
            "The published stage's one `RUN` still runs as the build user",
            'the nmp-rl-base stage switches to `USER root` before its RUN (it must chgrp /usr/local/bin and '
            'chown the vllm copies); only the final `USER ${RUNTIME_UID}:${RUNTIME_GID}` follows it'),
    Planted('w7-plant-heading-two-thirds-cold', 'p-720', 'docs/image/venvs.md', 139,
            "## NeMo-Gym's second venv layer\n",
            '### Two of every three extras are left cold\n'
            '\n'
            'The image warms only part of what NeMo-RL defines; the rest builds on the node.\n'
            '\n'
            "## NeMo-Gym's second venv layer\n",
            '### Two of every three extras are left cold',
            'three of the nine extras (nvrx, sglang, trtllm) are not warmed: one in three; six of nine are warmed'),
    Planted('w7-plant-modelopt-conflicts-vllm', 'p-722', 'docs/concepts/workers.md', 144,
            'orchestrates; the heavy lifting happens in the actors, each in the venv of its extra.\n',
            'orchestrates; the heavy lifting happens in the actors, each in the venv of its extra. `modelopt` is '
            'among\n'
            'the conflicting extras too: it is declared against `vllm`, which is why the vLLM quantization '
            'workers are not prefetched.\n',
            'the conflicting extras too: it is declared against `vllm`',
            "no entry of NeMo-RL's [tool.uv] conflicts names modelopt (the seventeen pairs involve automodel, "
            'fsdp, mcore, sglang, trtllm and vllm), and the lock has a modelopt+vllm install set; the '
            'quantization workers are left out as "builds on first use"'),
    Planted('w7-plant-uv-copy-outweighs-base', 'p-724', 'docs/image/layering.md', 277,
            "The production image's figures, when the record holds them, were measured elsewhere on the real "
            'image\n',
            "In the hermetic test image the `COPY` of uv's two binaries weighs more than the base image under it.\n"
            '\n'
            "The production image's figures, when the record holds them, were measured elsewhere on the real "
            'image\n',
            "the `COPY` of uv's two binaries weighs more than the base image under it",
            'docs/data/image-size.json: layer "COPY /uv /uvx /usr/local/bin/" is 56,187,792 bytes, the base '
            'image layer 158,349,464 bytes: the uv copy is about a third of the base, not more'),
    Planted('w7-plant-table-hermetic-gym-tag', 'p-726', 'docs/building/options.md', 86,
            'cache: they build with the `docker` driver on the classic image store, which refuses cache export.\n',
            'cache: they build with the `docker` driver on the classic image store, which refuses cache export.\n'
            '\n'
            '| Target | Tag | Output |\n'
            '|---|---|---|\n'
            '| `production` | `nmp-rl-base:latest` | builder default |\n'
            '| `hermetic` | `nmp-rl-base:hermetic` | `type=docker` |\n'
            '| `hermetic-gym` | `nmp-rl-base:gym` | `type=docker` |\n',
            '| `hermetic-gym` | `nmp-rl-base:gym` |',
            'docker-bake.hcl target "hermetic-gym" has tags = ["nmp-rl-base:hermetic-gym"]'),
    Planted('w7-plant-link-title-cuda-archs', 'p-728', 'docs/building/hardware.md', 6,
            '(see [Build options](options.md))',
            '(see [Build options](options.md "NVTE_CUDA_ARCHS defaults to 90;100;120"))',
            'NVTE_CUDA_ARCHS defaults to 90;100;120',
            'ARG NVTE_CUDA_ARCHS="90;100": Hopper and Blackwell only; 120 is not in the default list'),
]
