"""Wave 5 of the issue-27 generalisation corpus: the held-out half of the planted false sentences.

Written before the design, by someone who did not read the checker (docgen/) and had read only the earlier
waves' development cases, to name kinds of change nobody had named yet: coordinated multi-file pull requests,
removals and additions, facts that follow from two inputs together, and subtle wrong claims; the full wave-5
list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the development
set, even positions are held out) and written out here once. Run with bench/generalise.py --set wave5_heldout.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted('w5-plant-seven-warm-syncs', 'w5-p-002', 'docs/image/layering.md', 102,
            'The warm-up, in the order the Dockerfile runs it:\n',
            'The warm-up is seven `uv sync` commands, one per warmed extra and one for the base dependencies, in the\norder the Dockerfile runs them:\n',
            'The warm-up is seven `uv sync` commands',
            'the warm-up RUN has eight `uv sync` lines: base, the six warmed extras and `--all-groups`'),
    Planted('w5-plant-mamba-built-by-automodel', 'w5-p-004', 'docs/image/layering.md', 154,
            'Source builds (compiled once during the warm-up, then linked):\n',
            '`mamba-ssm` and `causal-conv1d` are compiled by the `automodel` sync and reused by `fsdp` and `mcore`.\n\nSource builds (compiled once during the warm-up, then linked):\n',
            'compiled by the `automodel` sync and reused by `fsdp` and `mcore`',
            "the fsdp sync (step 3) runs before automodel's (step 4) and builds both; automodel and mcore reuse them"),
    Planted('w5-plant-cmake-apt-by-default', 'w5-p-006', 'docs/building/options.md', 43,
            '- **Lock strictness.**',
            "- **CMake.** By default CMake comes from the base image's apt sources (`CMAKE_SOURCE=apt`); `download`\n  fetches Kitware's release instead.\n- **Lock strictness.**",
            "By default CMake comes from the base image's apt sources",
            "ARG CMAKE_SOURCE=download: the default installs Kitware's release CMAKE_VERSION 3.31.6; apt is the alternative"),
    Planted('w5-plant-make-local-images-rebuilds', 'w5-p-008', 'docs/building/hermetic.md', 21,
            "debootstrap, and the uv image made from uv's wheel):\n",
            "debootstrap, and the uv image made from uv's wheel); it rebuilds both on every run, so a stale image never\nsurvives:\n",
            'it rebuilds both on every run',
            "scripts/make-local-images skips each image that already exists ('exists, skipping'): it is idempotent"),
    Planted('w5-plant-cmake-stays-published', 'w5-p-010', 'docs/image/layering.md', 101,
            '  The compilers of the base image stay, and what it removes still occupies the earlier layers.\n',
            '  The compilers of the base image stay, and what it removes still occupies the earlier layers.\n  CMake stays in the published image as well, so a job can build an extension at run time.\n',
            'CMake stays in the published image as well',
            "the published stage's first RUN removes /usr/local/bin/cmake, ctest, cpack and /usr/local/share/cmake-*"),
    Planted('w5-plant-hermetic-target-builder', 'w5-p-012', 'docs/building/options.md', 56,
            '## Engine\n',
            'The `hermetic` bake target builds the `builder` stage, one step short of the published image, so its\nimage keeps CMake.\n\n## Engine\n',
            'The `hermetic` bake target builds the `builder` stage',
            'hermetic inherits `_image`, whose target is nmp-rl-base: it builds the published stage, like production'),
    Planted('w5-plant-runtime-home-nmpbuild', 'w5-p-014', 'docs/building/options.md', 47,
            "  passwd entry and a writable home directory (an existing entry with that uid, such as Ubuntu's\n",
            "  passwd entry and a writable home directory, `/home/nmpbuild` when the Dockerfile creates the entry (an\n  existing entry with that uid, such as Ubuntu's\n",
            '`/home/nmpbuild` when the Dockerfile creates the entry',
            "a new runtime user gets --home-dir /home/nmp; /home/nmpbuild is the build user's home"),
]
