"""The prose lint and the model claims behind the prose blocks, on the repository's own inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgen.blocks import parse_document
from docgen.check.prose import _sort_lines, lint_document
from docgen.errors import InputError
from docgen.fact import stated_ids
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
            "Two vLLM actors get two venvs. <!-- docgen:allow prose an example of the rule -->\n"
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


def test_a_count_of_them_counts_what_its_paragraph_named_last(model):
    text = ("For each prefetched actor the image puts a wrapper in `/usr/local/bin`, so you reach its\n"
            "environment by name. There are eight of them, one per filter.\n")
    [finding] = lint(text, model)   # "them": the environments, the last count noun before it (a filter comes after)
    assert finding.startswith("2: ") and "'eight of them'" in finding and "venvs 9" in finding
    [finding] = lint("The image warms extras, and 6 of these get a step each.\n", model)
    assert "'6 of these'" in finding and "use <!-- docgen:value warm_extras.count -->" in finding
    assert lint("Run the commands below. Two of them print nothing.\n", model) == []   # no count noun before
    assert lint("The image has venvs.\n\nEight of them are prefetched.\n", model) == []   # not across a paragraph
    assert lint("The image has venvs; one of them is the driver's.\n", model) == []   # "one of": a member, no count


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


# ------------------------------------------------------------------------------ names, comments and fences

def names_found(text: str, model) -> list[str]:
    return [f.split("'")[1] for f in lint(text, model)]


@pytest.mark.parametrize("span, found", [
    ("FooWorkerV2", "FooWorkerV2"), ("FooWorkerV\u0663", "FooWorkerV\u0663"), ("FooBarActor", "FooBarActor"),
    ("Worker", None), ("Fo_oWorker", None),                          # a class ending needs a head; no "_"
    ("nemo_rl.nope", "nemo_rl.nope"), ("nemo_rl.models", None),      # modules of known actors are known
    ("a.Bc", "a.Bc"), ("A.Bc", None), ("worker.MegatronPolicyWorker", "worker.MegatronPolicyWorker"),
    ("NEMO_RL_FOO", "NEMO_RL_FOO"), ("${NEMO_RL_FOO}", "NEMO_RL_FOO"), ("$NEMO_RL_FOO/x", "NEMO_RL_FOO"),
    ("NEMO_RL_FOO=1 2", "NEMO_RL_FOO"), ("FOOBAR", "FOOBAR"), ("FOO", None), ("AB__C", None), ("AB_C}}", None),
    ("NEMO_RL_VENV_DIR", None), ("${UV_VERSION}", None),
])
def test_a_code_span_is_judged_by_its_shape(model, span, found):
    assert names_found(f"See `{span}` here.\n", model) == ([found] if found else [])


@pytest.mark.parametrize("text, unknown", [
    ("The `nope` extra.", True), ("The extra `nope`.", True), ("EXTRAS: `nope`.", True),
    ("Extras (`vllm`, `nope`).", True), ("The extras we warm (`vllm`, `nope`).", True),
    ("The `nope` setting.", False), ("An extra. Then `nope`.", False), ("The `nope` extraordinary.", False),
    ("The `nope` extra\u017f.", False),   # \u017f (long s) is a letter: no word boundary after "extra"
])
def test_a_lower_case_span_is_an_extra_when_the_words_beside_it_say_so(model, text, unknown):
    assert names_found(text + "\n", model) == (["nope"] if unknown else [])


def test_extra_flags_in_plain_fences_and_spans(model):
    text = "```bash\nuv sync --extra=nope --extra vllm --extra X_Y\nuv sync --extra\n```\nRun `uv sync --extra nah`.\n"
    assert names_found(text, model) == ["--extra nope", "--extra nah"]


def test_comments_values_and_allow_markers(model):
    assert names_found("Nine <!-- a comment --> venvs.\n", model) == ["Nine venvs"]       # a comment is a blank
    assert lint("<!-- docgen:value venvs.count.word -->nine<!-- docgen:end-value --> venvs.\n", model) == []
    assert lint("Nine venvs. <!-- docgen:allow prose an example -->\n", model) == []
    assert len(lint("Nine venvs. <!-- see docgen:allow x -->\n", model)) == 1             # not an allow marker


def test_version_words_may_be_any_letters(model):
    [finding] = lint("Caf\u00e9 ships vLLM 0.25.2.\n", model)
    assert "'0.25.2' next to 'vLLM'" in finding


@pytest.mark.parametrize("fence, linted", [
    ("```bash", True), ("~~~", True), ("    ```", True), ("> ```", True),
    ("```console", False), ("``` console", False),
    ("```console\tlinenums", False),   # the info string's first word, split at any blank (the lint read "console\tlinenums")
])
def test_plain_fences_are_linted_and_console_transcripts_are_not(model, fence, linted):
    prefix = fence[: len(fence) - len(fence.lstrip(" >"))]
    text = f"{fence}\n{prefix}uv sync --extra nope\n{prefix}{fence.lstrip(' >')[:3]}\nvLLM 0.25.1\n"
    found = names_found(text, model)
    assert found == (["--extra nope", "0.25.1"] if linted else ["0.25.1"])


def test_the_fence_rule_is_the_block_engines(model):
    # a backtick fence whose info string holds a backtick is no fence: its lines stay prose (CommonMark)
    assert names_found("``` a `b`\nnine venvs\n", model) == ["nine venvs"]
    # a closing run indented four more than the opening fence is the block's content (the lint closed the fence)
    assert names_found("```\n    ```\nnine venvs\n```\nvLLM 0.25.1\n", model) == ["0.25.1"]


def test_counts_behind_backticks_hyphens_and_capitals_are_found(model):
    found = lint("Nine `a b c` venvs; x-two big new\nworkers; `x`three actors, (4 builds and 5,stages.\n", model)
    assert [f.split("'")[1] for f in found] == ["Nine venvs", "two big new workers", "three actors", "4 builds"]


@pytest.mark.parametrize("text, ids", [
    ("The build user (uid 2000) owns them.", [("2000", "uid", "uid 2000")]),
    ("user id: 1000, group id=1000", [("1000", "user id", "user id: 1000"), ("1000", "group id", "group id=1000")]),
    ("It runs as 1000:1000.", [("1000", "runs as", "runs as 1000")]),
    ("It runs as root, and the root user owns /opt.", [("root", "runs as", "runs as root"), ("root", "", "root")]),
    ("The build user is root.", [("root", "", "is root")]),
    ("with umask 022 for the user 022", []),          # a leading zero: a mode, not an id
    ("uid2000, a user of 12 groups", []),
])
def test_a_stated_user_id_is_read_one_way(text, ids):
    """fact.stated_ids: what the prose lint (a uid typed by hand) and the mentions (a uid the facts lack) read."""
    assert [(said, word, written) for _, said, word, written in stated_ids(text)] == ids
    assert all(text[at:].startswith(said) for at, said, _, _ in stated_ids(text))


def test_a_uid_typed_by_hand_is_found_in_any_of_the_words_that_name_one(model):
    found = lint("The build user runs as 2000.\n\nThe runtime user id: 1000.\n\nIt runs as root.\n", model)
    assert found == ["1: uid 'runs as 2000' is written by hand; use <!-- docgen:value build.uid -->",
                     "3: uid 'user id: 1000' is written by hand; use <!-- docgen:value runtime.uid -->"]


def test_a_comment_or_value_is_read_where_the_block_engine_reads_one(model):
    # a value (markers and text) is one NUL, a comment a blank, and `<!--` inside a code span is text, as the
    # block engine reads it (it is no marker there either)
    doc = parse_document("Nine <!-- a --> venvs, `<!-- b -->` and <!-- docgen:value venvs.count -->9<!-- docgen:end-value"
                         " --> venvs.\n", "page.md", {n: g.params for n, g in GENERATORS.items()}, frozenset(VALUES))
    assert _sort_lines(doc)[0] == ["Nine   venvs, `<!-- b -->` and \x00 venvs."]
