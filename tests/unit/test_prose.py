"""The prose lint and the model claims behind the prose blocks, on the repository's own inputs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docgen.blocks import parse_document
from docgen.check.prose import lint_document
from docgen.errors import InputError
from docgen.inputs.dockerfile import parse_dockerfile
from docgen.model.build import build_model
from docgen.model.claims import ALIASES, build_claims, py_executables, runtime_user, skip_reason, vllm_copies
from docgen.model.digests import input_digest
from docgen.render.generators import GENERATORS
from docgen.render.values import VALUES
from docgen.snapshot.load import load_snapshot

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE_TEXT = (REPO / "Dockerfile.nmp-rl-base").read_text()
SNAPSHOT = load_snapshot(REPO / "snapshot" / "nemo-rl.json")


def model_of(text: str = DOCKERFILE_TEXT):
    return build_model(parse_dockerfile(text, "Dockerfile"), SNAPSHOT)


@pytest.fixture(scope="module")
def model():
    return model_of()


def lint(text: str, model) -> list[str]:
    doc = parse_document(text, "page.md", {n: g.params for n, g in GENERATORS.items()}, frozenset(VALUES))
    return [f"{f.line}: {f.message}" for f in lint_document(doc, model)]


# ------------------------------------------------------------------------------------------ the lint

def test_counts_next_to_image_nouns_are_found_with_the_value_to_use(model):
    found = lint("The image has nine venvs.\nIt uses 8 prefetch filters.\n", model)
    assert len(found) == 2
    assert found[0].startswith("1: ") and "venvs.count.word" in found[0]
    assert found[1].startswith("2: ") and "filters.count" in found[1] and "filters.count.word" not in found[1]


def test_a_count_that_matches_no_model_count_still_names_the_noun_and_its_count(model):
    [finding] = lint("There are four worker venvs.\n", model)
    assert "'four worker venvs'" in finding and "venvs 9" in finding


def test_rules_and_owned_text_are_not_findings(model):
    text = ("One venv per actor, its own interpreter.\n"
            "The image prefetches <!-- docgen:value venvs.count.word -->nine<!-- docgen:end-value --> venvs.\n"
            "<!-- docgen:begin venv-inventory -->\nnine venvs in /opt/ray_venvs\n<!-- docgen:end venv-inventory -->\n"
            "```console\n$ ls /opt/ray_venvs | wc -l\n9\n```\n"
            "Two vLLM actors get two venvs. <!-- docgen:allow an example of the rule -->\n"
            "`DTensorPolicyWorkerV2` runs on the `automodel` extra; see `NEMO_RL_VENV_DIR` and `PY_EXECUTABLES`.\n"
            "`nemo_rl.models.policy.workers` holds `megatron_policy_worker.MegatronPolicyWorker`.\n")
    assert lint(text, model) == []


def test_versions_next_to_package_names_in_prose_and_in_plain_fences(model):
    found = lint("vLLM 0.25.1 and TE 2.15.0+42b8400 ship.\n```toml\nvllm = \"0.25.1\"\n```\nSee RFC 1.2 only.\n", model)
    assert len(found) == 3
    assert "vllm.version" in found[0] and "te.version" in found[1] and found[2].startswith("3: ")


def test_paths_under_the_image_roots_suggest_their_value(model):
    [a, b] = lint("The cache at `/opt/uv_cache` and /opt/somewhere/else.\n", model)
    assert "paths.uv_cache.code" in a
    assert "knows no such path" in b


def test_unknown_names_in_code_spans(model):
    found = lint("The `FooPolicyWorker`, `nemo_rl.models.nope.Thing`, the `sglangx` extra, `NEMO_RL_FOO_DIR`,\n"
                 "and `uv sync --extra nope`.\n", model)
    assert [f.split("'")[1] for f in found] == ["FooPolicyWorker", "nemo_rl.models.nope.Thing", "sglangx",
                                                "NEMO_RL_FOO_DIR", "--extra nope"]


def test_allow_marker_needs_a_reason():
    with pytest.raises(InputError) as err:
        parse_document("nine venvs <!-- docgen:allow -->\n", "page.md", {}, frozenset())
    assert err.value.line == 1 and "reason" in err.value.message


# ------------------------------------------------------------------------------------------ the claims

def test_vllm_copies_follow_the_published_stage(model):
    copies = vllm_copies(model)
    assert copies is not None and len(copies.venvs) == 3 and all("vllm" in p.lower() or "Rollout" in p
                                                                   for p in copies.venvs)
    without = DOCKERFILE_TEXT.replace('cp -a --dereference "$pkg" "$pkg.real"', 'true')
    assert vllm_copies(model_of(without)) is None


def test_py_executables_resolve_the_checkout(model):
    executables = {e.member: e for e in py_executables(model)}
    assert executables["MCORE"].command == "uv run --locked --extra mcore --directory /opt/nemo-rl"
    assert executables["MCORE"].extras == ("mcore",)
    assert executables["SYSTEM"].command == "sys.executable"


def test_skip_reasons_are_derived_and_comments_only_colour():
    value = "nemo_rl.models.value.workers.megatron_value_worker.MegatronValueWorker"
    assert skip_reason(value, (), "critic-free value worker") == "critic-free value worker"
    assert "value worker" in skip_reason(value, (), "sglang backend not built")
    assert skip_reason(value, ("mcore",), "critic-free value worker").startswith("backend not built: `mcore`")
    assert "quantization" in skip_reason("nemo_rl.modelopt.x.MegatronQuantPolicyWorker", (), None)
    assert "async" in skip_reason("nemo_rl.algorithms.async_utils.ReplayBuffer", (), None)


def test_build_claims_know_aliases_and_the_lock(model):
    claims = {(c.step_label, c.package): c for c in build_claims(model)}
    assert ALIASES["te"] == "transformer-engine"
    assert claims[("mcore", "transformer-engine")].claim == "reuses" and claims[("mcore", "transformer-engine")].problem is None
    assert claims[("automodel", "transformer-engine")].claim == "builds"
    wrong = model_of(DOCKERFILE_TEXT.replace("# flash-attn, mamba-ssm, causal-conv1d", "# builds TE"))
    [bad] = [c for c in build_claims(wrong) if c.problem]
    assert bad.step_label == "fsdp" and "does not install transformer-engine" in bad.problem


def test_runtime_user_expands_arg_defaults(model):
    assert runtime_user(model) == ("1000", "1000")
    # the published stage switches to root for its fix-ups; without the last USER the image runs as root
    assert runtime_user(model_of(DOCKERFILE_TEXT.replace("USER ${RUNTIME_UID}:${RUNTIME_GID}\n", ""))) == ("0", "0")


def test_input_digest_ignores_comments_not_instructions(model):
    before = input_digest(model)
    assert input_digest(model_of(DOCKERFILE_TEXT.replace("# Numeric user the platform", "# The user the platform"))) == before
    assert input_digest(model_of(DOCKERFILE_TEXT.replace("RUNTIME_UID=1000", "RUNTIME_UID=1001")))["dockerfile"] != before["dockerfile"]


def test_warm_steps_table_takes_builds_from_the_lock_not_the_comment(model):
    from docgen.render.tables import warm_steps

    rows = {r.split(" | ")[2]: r for r in warm_steps(model).splitlines() if r.startswith("| ")}
    assert "`transformer-engine`" in rows["`automodel`"] and "`transformer-engine`" not in rows["`mcore`"]
    wrong = model_of(DOCKERFILE_TEXT.replace("# flash-attn, mamba-ssm, causal-conv1d", "# builds TE"))
    fsdp = next(r for r in warm_steps(wrong).splitlines() if "| `fsdp` |" in r)
    assert "builds TE" not in fsdp and "contradicts the lock" in fsdp


def test_venv_dir_access_follows_chgrp_and_chmod(model):
    from docgen.model.claims import venv_dir_access

    made = 'install -d -o "${BUILD_UID}" -g "${RUNTIME_GID}" -m 3775 /opt/ray_venvs /opt/gym_venvs\n'
    assert made in DOCKERFILE_TEXT
    assert venv_dir_access(model) == ("2000", "1000", "drwxrwsr-t")
    plain = DOCKERFILE_TEXT.replace(made, "install -d /opt/ray_venvs\n")
    assert venv_dir_access(model_of(plain)) == ("0", "0", "drwxr-xr-x")
    other = DOCKERFILE_TEXT.replace(made, made.replace("-m 3775", "-m 2770").replace('"${RUNTIME_GID}"', "7"))
    assert venv_dir_access(model_of(other)) == ("2000", "7", "drwxrws---")
    later = DOCKERFILE_TEXT.replace(made, made + "chmod 0755 /opt/ray_venvs\n")
    assert venv_dir_access(model_of(later))[2] == "drwxr-xr-x"


def test_the_build_user_is_the_user_at_the_prefetch(model):
    from docgen.model.claims import build_user

    assert build_user(model) == ("2000", "2000")   # USER ${BUILD_UID}:${BUILD_UID} before the warm-up
    other = DOCKERFILE_TEXT.replace("ARG BUILD_UID=2000", "ARG BUILD_UID=3000")
    assert other != DOCKERFILE_TEXT and build_user(model_of(other)) == ("3000", "3000")
    as_root = DOCKERFILE_TEXT.replace("USER ${BUILD_UID}:${BUILD_UID}\n", "")
    assert build_user(model_of(as_root)) == ("0", "0")


# ------------------------------------------------------------------------------- what the lint reads where
# The lint finds its candidates cheaply before the exact tests run; these pin what the exact tests decide.

def test_a_count_is_found_only_on_a_line_with_a_digit_or_a_number_word_standing_alone(model):
    assert len(lint("The image has nine\nprefetched venvs.\n", model)) == 1      # wraps onto the next line
    assert lint("The image has nine\n\nprefetched venvs.\n", model) == []         # not across a paragraph
    assert lint("All -nine venvs.\n", model) == []   # a word glued to a hyphen is not one of the line's words
    found = lint("Then `x`nine venvs and `y` (three actors.\n", model)   # a code span's blank is a space
    assert [f.split("'")[1] for f in found] == ["nine venvs", "three actors"]
    [finding] = lint("Build ٣ venvs.\n", model)        # any decimal digit, on a page that is not ASCII
    assert finding.startswith("1: ") and "'٣ venvs'" in finding
    assert len(lint("Nine venvs, `9` venvs, 9 venvs.\n", model)) == 2
    assert lint("The v1 worker, a12 venvs, two big new prefetched venvs.\n", model) == []   # glued, or 3 words
    assert [f.split("'")[1] for f in lint("Build x-12 venvs and\tseventeen\nbig workers.\n", model)] == [
        "12 venvs", "seventeen big workers"]


def test_versions_are_read_within_their_line(model):
    found = lint("vLLM\n0.25.1 is not next to a name.\nuv 0.11.0\nand 1.2 alone\n", model)
    assert [f.split(":")[0] for f in found] == ["3"]


def test_a_span_is_judged_by_its_own_line_each_time_it_appears(model):
    text = "`sglangx` alone.\nThe `sglangx` extra.\n`sglangx`, again alone.\nExtras (`sglangx`, `vllm`).\n"
    found = lint(text, model)
    assert [f.split(":")[0] for f in found] == ["2", "4"]


def test_generated_regions_and_console_transcripts_are_not_read(model):
    text = ("<!-- docgen:begin venv-inventory -->\nnine venvs\n<!-- docgen:end venv-inventory -->\n"
            "nine venvs\n```console\n$ echo nine venvs\n```\nvLLM 0.25.1\n")
    assert [f.split(":")[0] for f in lint(text, model)] == ["4", "8"]


# ------------------------------------------------------------------- patterns the lint reads with str methods
# Each str reader must do exactly what the pattern it replaces does: edge cases, then generated strings.

from docgen.check import prose  # noqa: E402

_ODD = ["\n", "\r", "\t", " ", "\x0b", "\x1c", "\x85", "\xa0", "\u2028", "é", "ß", "İ", "K", "ſ", "٣", "²", "½", "Ⅻ",
        "_", "-", ".", ",", "(", ")", "`", "$", "{", "}", "=", "/", ":", "<", ">", "!", "\x00"]


def _generated(seed: int, tokens: list[str], count: int = 3000, length: int = 10) -> list[str]:
    import random

    rng = random.Random(seed)
    return ["".join(rng.choice(tokens) for _ in range(rng.randrange(length))) for _ in range(count)]


def test_span_kind_reads_spans_as_the_pattern_does():
    edge = ["", "X", "XWorker", "Worker", "Env", "XEnv", "FooWorkerV2", "FooWorkerV٣", "FooWorkerV²", "FooWorkerV",
            "Fo_oWorker", "FooBarActor ", "nemo_rl", "nemo_rl.", "nemo_rl.a", "nemo_rl.a..b", "nemo_rl.é_1", "nemo_rlx.a",
            "a.B", "a.Bc", "_x.Yz", "a..Bc", "A.Bc", "a.b.Cd", "a.bc", "NEMO_RL_X", "$NEMO_RL_X", "${NEMO_RL_X}",
            "${NEMO_RL_X", "NEMO_RL_X}", "AB_C=1 2", "AB_C/x", "AB_C:", "AB_C}=", "AB_C}}", "AB__C", "AB_", "_AB",
            "ABCD", "ABC", "AB1D", "$$AB_C", "{AB_C}", "{$AB_C}", "a-b_c9", "a-b.c", "9a", "é", "a\nb", "AB_C\n"]
    tokens = ["a", "Z", "9", "Foo", "nemo_rl", "Worker", "WorkerV", "Actor", "Env", "Environment", "Collector",
              "Buffer", "NEMO", "_X", "AB_C", "ABCD", "a_b", "a-b", "x.y", ".Z", ".Zz", ".."] * 2 + _ODD
    for span in edge + _generated(1, tokens, length=7):
        m = prose._SPAN_KIND.match(span)
        assert prose._span_kind(span) == ((m.lastgroup, m.group("variable")) if m else (None, None)), span


def test_extra_readers_read_as_their_patterns_do():
    edge = ["--extra x", "--extra=x-y_z", "--extra", "--extra ", "--extra --extra x", "---extra a", "--extra\tx",
            "--extra é٣", "extra", "extras", "EXTRAS", "Extra_", "xextra", "extra(", "extras (`", "extra.(",
            "extra\n(", "extra (\n", "(`a`, `b`", "--extra,", "-- extra", "ſ extraſ", "the extraſ"]
    tokens = ["--extra", "--extra ", "--extra=", "extra", "extras", "EXTRA", "x", "vllm", "a-b", "s", " ", "="] * 2 + _ODD
    for text in edge + _generated(2, tokens):
        assert list(prose._extra_flags(text)) == [(m.start(), m.group(1)) for m in prose._EXTRA_FLAG.finditer(text)], text
        assert prose._has_extra_word(text) == bool(re.search(prose._EXTRA_WORD, text, re.I)), text
        assert prose._extra_before(text) == bool(prose._EXTRA_BEFORE.search(text)), text
        assert prose._extra_after(text) == bool(prose._EXTRA_AFTER.match(text)), text
        assert prose._extra_list(text) == bool(prose._EXTRA_LIST.search(text)), text


def test_words_digits_and_dotted_lines_read_as_their_patterns_do():
    tokens = ["a", "Z", "9", "_", "-", "ab", "a1", "1a", "vLLM", "x-y", "1.2", "2.", ".3", "..", "v1.2", "\n\n"] + _ODD
    for text in _generated(3, tokens, length=14):
        assert prose._words(text) == prose._WORDS.findall(text), text
        assert prose._has_digit(text) == bool(prose._DIGIT.search(text)), text
        assert list(prose._dotted_lines(text)) == list(prose._lines_with(prose._DOTTED_DIGITS, text)), text


def test_comment_readers_read_as_their_patterns_do():
    edge = ["<!-- docgen:allow why -->", "<!-- docgen:allow -->", "<!-- docgen:allow --->", "<!--docgen:allow x-->",
            "<!-- docgen:allow x\n-->", "<!-- docgen:allow\nx -->", "<!-->", "<!-- a --> b <!-- c",
            "a <!-- docgen:value k -->nine<!-- docgen:end-value --> b <!-- docgen:value k2 -->9<!-- docgen:end-value -->",
            "<!-- docgen:value x--><!--docgen:end-value-->", "<!-- docgen:value x-->y-->z<!-- docgen:end-value -->",
            "<!-- docgen:value k -->a\nb<!-- docgen:end-value -->", "<!-- docgen:value k -->"]
    tokens = ["<!--", "-->", "<!-- ", " -->", "docgen:allow", "docgen:value", "docgen:end-value", " ", "\n", "\xa0",
              "x", "key", "-", "->", ">", "a b"]
    for text in edge + _generated(4, tokens, count=6000, length=14):
        assert prose._allowed(text) == bool(prose._ALLOW.search(text)), text
        assert prose._strip_comments(text) == prose._COMMENT.sub(" ", text), text
        assert prose._strip_values(text) == prose._VALUE.sub("\x00", text), text


def test_counts_behind_backticks_hyphens_and_capitals_are_found(model):
    found = lint("Nine `a b c` venvs; x-two big new\nworkers; `x`three actors, (4 builds and 5,stages.\n", model)
    assert [f.split("'")[1] for f in found] == ["Nine venvs", "two big new workers", "three actors", "4 builds"]
