"""Every kind of finding docgen reports, declared once: its id, what it catches, why that matters, how to fix it,
and an input that fires it. The reference page "Rules" is generated from this table, a finding whose rule is
not declared here is a programming error, and `<!-- docgen:allow RULE reason -->` silences exactly the rule it
names on its line. `write` marks the rules `docgen write` fixes by itself (the rest need a person).
"""

from __future__ import annotations

from typing import NamedTuple

DF, PAGE = "Dockerfile.nmp-rl-base", "docs/index.md"   # the files of this repository the examples edit


class Rule(NamedTuple):
    id: str
    summary: str          # what it catches, in one line
    why: str              # why a reader is misled when it fires
    fix: str              # what the person who sees it does
    example: tuple[tuple[str, str, str], ...]   # edits (file, old text, new; old "" appends) of this repository
    #                                             that make `docgen lint` fire the rule (tests/test_rules.py)
    write: bool = False   # `docgen write` fixes it


RULES: dict[str, Rule] = {r.id: r for r in (
    # --- hand-written sentences, held to the fact base (docgen/check/mentions.py)
    Rule("stated-value", "a sentence states a value that the fact it names does not have",
         "a version, a user id, a state (warmed, default), an actor's extra or a package's builds written by hand "
         "stays behind when the input moves",
         "render the value (`docgen:value`), correct the sentence, or allow it with a reason",
         ((PAGE, "", "vLLM 0.0.1 generates the rollouts."),)),
    Rule("review", "a fact a sentence names changed since the sentence was written or confirmed",
         "the sentence may still be true, or may not: only a person can tell",
         "edit the sentence, or confirm it with `docgen review FILE:LINE`; `docgen write` never clears it",
         ((DF, "ARG RUNTIME_UID=1000", "ARG RUNTIME_UID=1001"),)),
    Rule("unrecorded-sentence", "a sentence names facts that the facts record has not seen yet",
         "without a record of the values it was written against, a later change would pass unnoticed",
         "run `docgen write` and commit the facts record with the page",
         ((PAGE, "", "The `sglang` extra is not warmed in the image."),), write=True),
    # --- generated text (docgen/blocks, docgen/render): what `docgen write` renders again
    Rule("stale-block", "a generated block differs from what the model renders (an input moved, or a hand edit)",
         "the block states yesterday's facts, or a hand edit the next `docgen write` will silently undo",
         "run `docgen write` and commit the pages; move a hand edit out of the block first",
         (("README.md", "| Prefetch filters | 8 |", "| Prefetch filters | 7 |"),), write=True),
    Rule("stale-value", "an inline value differs from what the model renders",
         "the sentence around it states yesterday's value", "run `docgen write` and commit the pages",
         ((PAGE, "-->soluwalana/RL<!--", "-->someone/RL<!--"),), write=True),
    # --- the prose lint (docgen/check/prose.py)
    Rule("prose", "a count, version, path or uid written by hand, or a name the model does not know",
         "a fact typed by hand is not updated when the inputs change",
         "use an inline value or a block, fix the name, or allow the line with a reason",
         ((PAGE, "", "The image prefetches nine venvs."),)),
    Rule("value-line-start", "an inline value opens a line of a page",
         "Markdown may read a line that starts with a comment as an HTML block and drop the value's text",
         "move the value marker off the start of the line",
         ((PAGE, "", "<!-- docgen:value venvs.count -->9<!-- docgen:end-value --> venvs."),)),
    Rule("coverage", "no page renders a generator the configuration requires",
         "a required table or diagram is missing from the documentation",
         "add the block to a page, or drop the generator from `required`",
         (("pyproject.toml", 'pages = ["README.md", "docs/**/*.md"]', 'pages = ["README.md"]'),)),
    # --- the Dockerfile's conventions and its agreement with the registry (docgen/check/lint.py)
    Rule("prefetch-call", "the Dockerfile has no actor prefetch call docgen can read",
         "no venv inventory can be derived", "write the prefetch step as `prefetch_venvs.py` with its filters",
         ((DF, "python nemo_rl/utils/prefetch_venvs.py", "python nemo_rl/utils/other_tool.py"),)),
    Rule("filter-unmatched", "a prefetch filter selects no uv actor of the registry",
         "the build prefetches nothing for it while the docs may promise a venv",
         "fix or drop the filter",
         ((DF, "  vllm.vllm_worker \\\n", "  vllm.vllm_worker \\\n  no_such_worker.NoSuchWorker \\\n"),)),
    Rule("verify-list", "the verification loop names actors the filters do not prefetch (or misses some)",
         "the image build checks for venvs that do not exist", "edit the verification list in the Dockerfile",
         ((DF, "  megatron_policy_worker.MegatronPolicyWorker \\\n", ""),)),
    Rule("mixed-extras", "a mixed-extras declaration names no prefetch filter, or a filter mixes extras undeclared",
         "one venv would hold two backends' packages unannounced", "declare or fix the mixed-extras comment",
         ((DF, "# Eight filters -> nine venvs.", "# Eight filters -> nine venvs.\n# docgen: mixed-extras no_such.Filter"),)),
    Rule("count-statement", "a count comment in the Dockerfile disagrees with the model",
         "the Dockerfile's own comment misleads its next editor", "edit the comment's number",
         ((DF, "# Eight filters -> nine venvs.", "# Seven filters -> nine venvs."),)),
    Rule("not-prefetched-list", "the `# Not prefetched` comment list disagrees with the actors that get no venv",
         "the Dockerfile's own list of exceptions is stale", "edit the list",
         ((DF, "#   nemo_rl.algorithms.async_utils.ReplayBuffer: async bookkeeping actor\n", ""),)),
    Rule("not-prefetched-reason", "a `# Not prefetched` reason contradicts why the model skips the actor",
         "the stated reason is not the real one", "edit the reason",
         ((DF, "ReplayBuffer: async bookkeeping actor", "ReplayBuffer: sglang backend not built"),)),
    Rule("mapping-comment", "a `filter -> extra` comment row disagrees with the registry",
         "the Dockerfile's mapping table misleads", "edit the row",
         ((DF, "# Eight filters -> nine venvs.", "# Eight filters -> nine venvs.\n#   vllm.vllm_worker   -> sglang   (rollouts)"),)),
    Rule("gym-prefetch", "a NeMo-Gym prefetch call docgen cannot read", "the Gym venv inventory would be guessed",
         "write the call with its configs in a build argument",
         ((DF, 'ARG NEMO_GYM_PREFETCH_CONFIGS=""\n', ""), (DF, "FROM scratch AS nemo-rl", 'ARG NEMO_GYM_PREFETCH_CONFIGS=""\nFROM scratch AS nemo-rl'))),
    Rule("warm-steps", "a warm-up step docgen cannot read (an extra held in a variable, an unreadable comment)",
         "a warmed extra would be missing from the docs", "write the extra literally",
         ((DF, "--extra nemo_gym   #", "--extra ${GYM_EXTRA}   #"),)),
    Rule("warm-order", "a warm comment's built/reuses claim disagrees with the lock's shared builds, or the "
         "prefetch runs before a warm step", "the build-once promise is false", "edit the comment or the order",
         ((DF, "# builds Transformer-Engine once into the cache", "# reuses fsdp's TE wheel"),)),
    Rule("unresolved-variable", "a directory the pages state holds a variable only the base image could set",
         "every page would show a placeholder, or docgen would have to guess",
         "spell the directory out, or set the variable in the Dockerfile",
         ((DF, "    NEMO_RL_VENV_DIR=/opt/ray_venvs", "    NEMO_RL_VENV_DIR=${CONDA_PREFIX}/ray_venvs"),)),
    Rule("provenance", "the snapshot does not record where NeMo-RL came from, or the Dockerfile points elsewhere",
         "the documented NeMo-RL is not the one the image builds", "run the `docgen snapshot` command it names",
         ((DF, "ARG NEMO_RL_REF=nmp/customizer", "ARG NEMO_RL_REF=v9.9.9"),)),
    # --- one fact stated by two inputs (docgen/model/cross.py)
    Rule("python-vs-requires", "PYTHON_VERSION is outside NeMo-RL's requires-python",
         "uv refuses the sync at build time", "set PYTHON_VERSION inside the range",
         ((DF, "ARG PYTHON_VERSION=3.13.14", "ARG PYTHON_VERSION=3.12.3"),)),
    Rule("python-vs-snapshot", "PYTHON_VERSION differs from the interpreter the lock was resolved for",
         "the docs' package versions are for another Python", "align the two",
         ((DF, "ARG PYTHON_VERSION=3.13.14", "ARG PYTHON_VERSION=3.12.3"),)),
    Rule("uv-vs-required", "UV_VERSION is outside NeMo-RL's [tool.uv] required-version",
         "uv refuses to run the project", "set UV_VERSION inside the range",
         (("snapshot/nemo-rl.json", '"requires_python": ">=3.13.14,<3.14",',
           '"requires_python": ">=3.13.14,<3.14",\n  "uv_required_version": ">=0.12",'),)),
    Rule("cuda-vs-wheels", "the base image's CUDA major differs from the CUDA builds of torch and vLLM in the lock",
         "the wheels cannot load on the image's CUDA", "align the base image and the lock",
         ((DF, "26.07-cuda13.3-devel", "26.07-cuda12.8-devel"),)),
    Rule("arch-floor", "the architecture lists disagree about the oldest GPU the image runs on",
         "the hardware floor the docs state is wrong for some kernels", "align the lists",
         ((DF, 'ARG NVTE_CUDA_ARCHS="90;100"', 'ARG NVTE_CUDA_ARCHS="80;100"'),)),
    Rule("arch-comment", "the comment above an architecture list names an architecture the list lacks",
         "the comment promises a GPU the build does not compile for", "edit the comment or the list",
         ((DF, "(Hopper; Blackwell)", "(Ampere; Hopper; Blackwell)"),)),
    Rule("bake-names", "a bake target hands the build a secret or a named context the Dockerfile never reads",
         "the build goes on without it (no CA bundle, the stage's own sources), silently", "align the names",
         (("docker-bake.hcl", 'secret = ["id=cacert,', 'secret = ["id=ca-bundle,'),)),
    Rule("hard-coded-path", "a RUN step spells out a path a build argument holds",
         "changing the argument leaves the step behind", "use the argument",
         ((DF, "ARG NEMO_GYM_INTREE_MAX_MIB=64", "ARG NEMO_GYM_INTREE_MAX_MIB=64\nARG FINGERPRINT=/opt/nemo_rl_container_fingerprint"),)),
)}


def rule(rule_id: str) -> Rule:
    """The declared rule; an undeclared id is a programming error, never a silent finding."""
    try:
        return RULES[rule_id]
    except KeyError:
        raise KeyError(f"finding of undeclared rule {rule_id!r}: declare it in docgen/rules.py") from None
