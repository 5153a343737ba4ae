"""Semantic checks on the small model: each check finds its mistake, names the line, and is quiet otherwise."""

from __future__ import annotations

from tests.unit.blocks_fixtures import DOCKERFILE, small_model
from docgen.blocks import parse_document
from docgen.check.lint import check_coverage, lint


def findings(tmp_path, dockerfile: str = DOCKERFILE):
    model = small_model(tmp_path, dockerfile)
    return [(f.check, f.line, f.message) for f in lint(model)]


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_fixture_is_clean(tmp_path):
    assert findings(tmp_path) == []


def test_filter_that_matches_nothing(tmp_path):
    text = DOCKERFILE.replace("    vllm.vllm_worker \\", "    vllm.vllm_worker \\\n    VLLM.typo \\")
    found = findings(tmp_path, text)
    assert ("filter-unmatched", line_of(text, "VLLM.typo"),
            "prefetch filter 'VLLM.typo' matches no actor that runs under uv") in found


def test_dropping_a_filter_breaks_verify_list_count_and_not_prefetched_list(tmp_path):
    text = DOCKERFILE.replace("    dtensor_policy_worker_v2.DTensorPolicyWorkerV2 \\\n", "")
    found = {check: (line, msg) for check, line, msg in findings(tmp_path, text)}
    assert set(found) == {"verify-list", "count-statement", "not-prefetched-list"}
    assert found["verify-list"][0] == line_of(text, "for actor in")
    assert "do not prefetch: rl.models.policy.workers.dtensor_policy_worker_v2.DTensorPolicyWorkerV2" in found["verify-list"][1]
    assert found["count-statement"] == (line_of(text, "Three filters"),
                                        "comment 'Three filters -> four venvs.' says 3 filters, 4 venvs; "
                                        "the registry gives two (2) filters, three (3) venvs")
    assert found["not-prefetched-list"][0] == line_of(text, "# Not prefetched")
    assert "omits actors that get no venv: rl.models.policy.workers.dtensor_policy_worker_v2" in found["not-prefetched-list"][1]


def test_verify_list_missing_a_venv(tmp_path):
    text = DOCKERFILE.replace(
        "    rl.models.policy.workers.dtensor_policy_worker_v2.DTensorPolicyWorkerV2 \\\n", "", 1)
    [(check, _, msg)] = findings(tmp_path, text)
    assert check == "verify-list" and msg.startswith("verification list misses prefetched venvs: rl.models.policy")


def test_not_prefetched_list_naming_a_prefetched_actor(tmp_path):
    text = DOCKERFILE.replace(
        "#   rl.models.value.workers", "#   rl.models.generation.vllm.vllm_worker.VllmGenerationWorker: no\n"
                                     "#   rl.models.value.workers")
    [(check, _, msg)] = findings(tmp_path, text)
    assert check == "not-prefetched-list" and msg.endswith("VllmGenerationWorker, but it is prefetched")


def test_mixed_extras_needs_a_declaration(tmp_path):
    text = DOCKERFILE.replace("    vllm.vllm_worker \\", "    vllm.vllm_worker \\\n    policy.workers. \\")
    text = text.replace("# Three filters -> four venvs.", "# Four filters -> four venvs.")
    found = findings(tmp_path, text)
    assert [c for c, _, _ in found] == ["mixed-extras"]
    assert "filter 'policy.workers.' matches actors of different extras" in found[0][2]
    declared = text.replace("# Four filters", "# docgen: mixed-extras policy.workers.\n# Four filters")
    assert findings(tmp_path, declared) == []
    stray = DOCKERFILE.replace("# Three filters", "# docgen: mixed-extras nothing.\n# Three filters")
    assert [(c, m) for c, _, m in findings(tmp_path, stray)] == [
        ("mixed-extras", "`# docgen: mixed-extras nothing.` names no prefetch filter")]


def test_shared_build_order_must_match_the_comments(tmp_path):
    automodel = "uv sync --frozen --no-install-project --extra automodel   # DTensor V2; builds Transformer-Engine\n"
    mcore = "uv sync --frozen --no-install-project --extra mcore       # Megatron; reuses the Transformer-Engine wheel\n"
    swapped = DOCKERFILE.replace(automodel + mcore, mcore + automodel)
    found = [(c, line, m) for c, line, m in findings(tmp_path, swapped) if c == "warm-order"]
    assert [line for _, line, _ in found] == [line_of(swapped, "--extra mcore"), line_of(swapped, "--extra automodel")]
    assert "says it reuses transformer-engine, but it is the first warm step" in found[0][2]
    assert "says it builds transformer-engine, but `uv sync mcore`" in found[1][2]


def test_prefetched_extra_must_be_warmed_before_the_prefetch(tmp_path):
    mcore = "uv sync --frozen --no-install-project --extra mcore       # Megatron; reuses the Transformer-Engine wheel\n"
    text = DOCKERFILE.replace(mcore, "").replace('"/opt/ray_venvs/${actor}/bin/python" -c pass\n',
                                                 '"/opt/ray_venvs/${actor}/bin/python" -c pass\n    uv sync --extra mcore\n')
    found = [m for c, _, m in findings(tmp_path, text) if c == "warm-order"]
    assert found == [f"MegatronPolicyWorker runs with extra 'mcore', which no `uv sync --extra` warms before the "
                     f"prefetch (only after it, line {line_of(text, '    uv sync --extra mcore')})"]


def test_coverage_names_missing_generators():
    doc = parse_document("<!-- docgen:begin a -->\n<!-- docgen:end a -->\n", "README.md", {"a": {}, "b": {}}, frozenset())
    assert [f.message for f in check_coverage([doc], ["a", "b"], "docs")] == [
        "no page renders the required generator `b`"]


# ---- conventions that are optional: findings with lines, never errors --------------------------------

from tests.unit.blocks_fixtures import snapshot_data  # noqa: E402

NOT_PREFETCHED_BLOCK = ("# Not prefetched:\n"
                        "#   rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2: critic-free value worker\n"
                        "#   rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker: sglang not built\n")


def test_not_prefetched_prose_that_mentions_every_skipped_actor_is_clean(tmp_path):
    text = DOCKERFILE.replace(NOT_PREFETCHED_BLOCK, "# NOT prefetched: sglang, and the value workers\n#   (critic-free).\n")
    assert text != DOCKERFILE
    assert findings(tmp_path, text) == []


def test_not_prefetched_prose_that_omits_an_actor_or_names_a_prefetched_one(tmp_path):
    text = DOCKERFILE.replace(NOT_PREFETCHED_BLOCK, "# NOT prefetched: sglang and VllmGenerationWorker\n")
    line = line_of(text, "# NOT prefetched")
    assert findings(tmp_path, text) == [
        ("not-prefetched-list", line, "the `# Not prefetched` list omits actors that get no venv: "
                                      "rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2"),
        ("not-prefetched-list", line, "the `# Not prefetched` list names "
                                      "rl.models.generation.vllm.vllm_worker.VllmGenerationWorker, but it is prefetched"),
    ]


def test_reader_notes_become_findings_at_their_line(tmp_path):
    text = DOCKERFILE.replace("#   rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker: sglang not built",
                              "#   rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker (sglang not built)")
    line = line_of(text, "SGLangGenerationWorker (sglang")
    assert [(c, n) for c, n, _ in findings(tmp_path, text)] == [("not-prefetched-list", line)]


def test_no_prefetch_call_is_one_finding_and_no_venvs(tmp_path):
    text = DOCKERFILE.replace("tools/prefetch_venvs.py", "tools/warm.py")
    model = small_model(tmp_path, text)
    assert model.venvs == () and model.filters == () and model.dockerfile.prefetch is None
    found = findings(tmp_path, text)
    assert ("prefetch-call", len(text.splitlines()),
            "no RUN calls NeMo-RL's prefetch_venvs.py: the image prefetches no worker venvs") in found
    assert all(line is not None for _, line, _ in found)


def test_mapping_comment_rows_are_checked_against_the_filters(tmp_path):
    rows = ("#   filter                          -> extra   (why)\n"
            "#   vllm.vllm_worker                -> vllm    (generation)\n"
            "#   megatron_policy_worker.MegatronPolicyWorker -> automodel (wrong on purpose)\n")
    text = DOCKERFILE.replace("# Three filters -> four venvs.\n", "# Three filters -> four venvs:\n" + rows)
    assert findings(tmp_path, text) == [
        ("mapping-comment", line_of(text, "-> automodel"),
         "comment maps filter 'megatron_policy_worker.MegatronPolicyWorker' to 'automodel'; its venvs run with mcore")]


def _with_source_args(repo: str, ref: str) -> str:
    return f"ARG NEMO_RL_REPO={repo}\nARG NEMO_RL_REF={ref}\n" + DOCKERFILE


def _provenance(tmp_path, repo: str, ref: str, recorded_repo: str, recorded_ref: str):
    data = snapshot_data()
    data["provenance"].update(repo=recorded_repo, ref=recorded_ref)
    return [f for f in lint(small_model(tmp_path, _with_source_args(repo, ref), data)) if f.check == "provenance"]


def test_provenance_matches_across_url_spellings(tmp_path):
    for repo in ("https://github.com/Owner/RL.git", "git@github.com:owner/RL", "https://github.com/owner/rl/",
                 "owner/RL"):
        assert _provenance(tmp_path, repo, "main", "owner/RL", "main") == [], repo


def test_provenance_differs_names_both_and_the_line(tmp_path):
    found = _provenance(tmp_path, "https://github.com/fork/RL.git", "v0.6.0", "owner/RL", "main")
    assert [(f.line, f.message) for f in found] == [
        (1, "the Dockerfile builds NEMO_RL_REPO=https://github.com/fork/RL.git but the docs describe repo owner/RL "
            "(the snapshot's provenance); run `docgen bump v0.6.0`"),
        (2, "the Dockerfile builds NEMO_RL_REF=v0.6.0 but the docs describe ref main (the snapshot's provenance); "
            "run `docgen bump v0.6.0`")]


def test_gym_prefetch_driven_by_an_arg_its_stage_does_not_declare(tmp_path):
    call = 'RUN if [ -n "${GYM_CONFIGS}" ]; then uv run python examples/nemo_gym/prefetch_venvs.py ${GYM_CONFIGS}; fi\n'
    global_only = 'ARG GYM_CONFIGS="a.yaml"\n' + DOCKERFILE.replace("FROM base AS builder\n", "FROM base AS builder\n" + call)
    found = [f for f in lint(small_model(tmp_path, global_only)) if f.check == "gym-prefetch"]
    assert [(f.line, f.message) for f in found] == [(
        line_of(global_only, "examples/nemo_gym"),
        "NeMo-Gym's prefetch expands GYM_CONFIGS, but stage 'builder' declares no `ARG GYM_CONFIGS`: it is always "
        "empty there, so --build-arg GYM_CONFIGS=... builds nothing; add `ARG GYM_CONFIGS` to the stage")]
    assert small_model(tmp_path, global_only).gym[0].venvs_by_default == 0
    redeclared = global_only.replace("FROM base AS builder\n", "FROM base AS builder\nARG GYM_CONFIGS\n")
    model = small_model(tmp_path, redeclared)
    assert [f for f in lint(model) if f.check == "gym-prefetch"] == []
    assert model.gym[0].default == "a.yaml" and model.gym[0].configs == ("a.yaml",)   # the global's default
    # declared in the stage the call's stage is built FROM: BuildKit passes the value (and a --build-arg) on
    in_parent = DOCKERFILE.replace("FROM base AS builder\n", 'ARG GYM_CONFIGS="a.yaml"\nFROM base AS builder\n' + call)
    model = small_model(tmp_path, in_parent)
    assert [f for f in lint(model) if f.check == "gym-prefetch"] == []
    assert model.gym[0].default == "a.yaml"


# ---- inline values never start a line: GitHub and the site would end the paragraph there -------------

def _value_doc(text: str):
    from docgen.check.lint import check_value_line_start
    doc = parse_document(text, "docs/page.md", {}, frozenset({"k"}))
    return [(f.check, f.line) for f in check_value_line_start([doc])]


def test_a_value_that_starts_a_line_is_a_finding_wherever_the_line_opens_a_block():
    value = "<!-- docgen:value k -->9<!-- docgen:end-value -->"
    text = (f"A sentence that runs on\n{value} and ends.\n\n"      # mid-paragraph: line 2
            f"{value} opens a paragraph.\n\n"                      # line 4
            f"- a list item\n  {value} continues it\n\n"           # line 7
            f"> quoted\n> {value} too\n\n"                         # line 10
            f"1. {value} first in an item\n")                      # line 12
    assert _value_doc(text) == [("value-line-start", n) for n in (2, 4, 7, 10, 12)]


def test_a_value_after_a_word_or_in_a_table_cell_is_clean():
    value = "<!-- docgen:value k -->9<!-- docgen:end-value -->"
    text = (f"A sentence that runs\non {value} and ends.\n\n- item with {value}\n\n| a | b |\n|---|---|\n"
            f"| {value} | x |\n\nSecond on a line: x {value} {value}.\n")
    assert _value_doc(text) == []
