"""Wave 2 of the issue-27 generalisation corpus: the held-out half of the planted false sentences.

Written before the design, by someone who had read only the first wave's development cases; the full
wave-2 list was split by `split` in tests/mutations_corpus.py (sort by (date, id); odd positions are the
development set, even positions are held out) and written out here once. Run with
bench/generalise.py --set wave2_heldout.
"""

from __future__ import annotations

from tests.mutations_corpus import Planted

PLANTED = [
    Planted("w2-plant-dozen-not-prefetched", "w2-p-002", "docs/image/venvs.md", 100,
            "What happens when a job uses one of them:",
            "A dozen uv actors are left to build on first use.\n\nWhat happens when a job uses one of them:",
            "A dozen uv actors are left to build on first use.",
            "11 uv actors have no prebuilt venv"),
    Planted("w2-plant-engine-after-images", "w2-p-004", "docs/building/hermetic.md", 13,
            "## Steps\n",
            "## Steps\n\n`scripts/build-image` makes the local images first and only then starts the Docker engine.\n",
            "`scripts/build-image` makes the local images first and only then starts the Docker engine.",
            "scripts/build-image runs docker-engine start, then check-engine, then make-local-images"),
    Planted("w2-plant-list-vllm-version", "w2-p-006", "docs/index.md", 89,
            "- Looking inside a built image?",
            "- Pinned versions at a glance: Python 3.13.14, uv 0.11.33, vLLM 0.24.3.\n- Looking inside a built image?",
            "vLLM 0.24.3",
            "the lock's vllm is 0.25.1"),
    Planted("w2-plant-heading-wrappers-dir", "w2-p-008", "docs/image/inspect.md", 228,
            "## Per-actor interpreters on PATH",
            "## Per-actor interpreters in /usr/bin",
            "## Per-actor interpreters in /usr/bin",
            "the python-<Actor> wrappers are written to /usr/local/bin"),
    Planted("w2-plant-published-copies-from", "w2-p-010", "docs/image/layering.md", 102,
            "The warm-up, in the order the Dockerfile runs it:",
            "The published stage takes the venvs from `builder` with `COPY --from=builder`.\n\n"
            "The warm-up, in the order the Dockerfile runs it:",
            "with `COPY --from=builder`",
            "the published stage is FROM builder; there is no COPY --from=builder"),
    Planted("w2-plant-engine-table-cell", "w2-p-012", "docs/building/hardware.md", 6,
            "## Building\n",
            "## Building\n\n| Requirement | Minimum |\n|---|---|\n| Docker Engine | 27.0 |\n| GPU | none |\n",
            "| Docker Engine | 27.0 |",
            "scripts/check-engine's MIN_ENGINE is 28.5.0"),
    Planted("w2-plant-readme-code-comment-tag", "w2-p-014", "README.md", 153,
            "```bash\nbash scripts/bootstrap\n```",
            "```bash\n# the hermetic image it builds is tagged nmp-rl-base:test\nbash scripts/bootstrap\n```",
            "tagged nmp-rl-base:test",
            "the hermetic bake target tags nmp-rl-base:hermetic"),
]
