"""Hand-written sentences tied to the facts they name (docgen/check/mentions.py), through the command line on a
copy of this repository: a stated value is compared, a named fact that changes fails `check` at the sentence
until it is edited or confirmed (`docgen review`), `write` never confirms, and a fact no page shows or names
moves without a failure or a rewrite."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from docgen.check.mentions import _versions_in, sentence_digest
from docgen.text import sentences as _sentences
from tests.test_mutations import DOCKERFILE, FACTS_RECORD, SNAPSHOT, copy_repo, edit, run

PAGE = "docs/index.md"
FORK_SENTENCE = "By default `NEMO_RL_REPO` points at the soluwalana fork of NeMo-RL."


def _plant(root: Path, sentence: str) -> int:
    """Append a paragraph to the page; its line number."""
    page = root / PAGE
    text = page.read_text().rstrip("\n") + "\n\n"
    page.write_text(text + sentence + "\n")
    return text.count("\n") + 1


def _tree(root: Path) -> dict:
    return {p: (p.read_bytes(), os.stat(p).st_ino) for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return copy_repo(tmp_path / "repo")


def test_a_new_sentence_is_recorded_by_write(repo: Path):
    line = _plant(repo, FORK_SENTENCE)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [unrecorded-sentence]" in out and "arg:NEMO_RL_REPO" in out
    assert "docgen write" in out.splitlines()[-1]   # drift that write fixes, not a person's finding
    assert run("write", "--root", str(repo))[0] == 0
    assert run("check", "--root", str(repo)) == (0, "")
    record = json.loads((repo / FACTS_RECORD).read_text())["mentions"]
    assert "arg:NEMO_RL_REPO" in record["sentences"][PAGE][sentence_digest(FORK_SENTENCE)]


def test_a_named_fact_that_changes_fails_at_the_sentence_until_it_is_confirmed(repo: Path):
    line = _plant(repo, FORK_SENTENCE)
    assert run("write", "--root", str(repo))[0] == 0
    edit(DOCKERFILE, "ARG NEMO_RL_REPO=https://github.com/soluwalana/RL.git",
         "ARG NEMO_RL_REPO=https://github.com/NVIDIA-NeMo/RL.git")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1
    assert (f"{PAGE}:{line}: [review] mentions arg:NEMO_RL_REPO, which changed from "
            "'https://github.com/soluwalana/RL.git' to 'https://github.com/NVIDIA-NeMo/RL.git'") in out
    assert f"docgen review {PAGE}:{line}" in out
    # write renders what it can and keeps the review pending: it never confirms a sentence
    assert run("write", "--root", str(repo))[0] == 0
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [review]" in out
    before = (repo / PAGE).read_bytes()
    code, out = run("review", "--root", str(repo), f"{PAGE}:{line}")
    assert code == 0, out
    assert (repo / PAGE).read_bytes() == before   # review writes the facts record only
    code, out = run("check", "--root", str(repo))
    assert f"{PAGE}:{line}: [review]" not in out


def test_editing_the_sentence_clears_its_review(repo: Path):
    line = _plant(repo, FORK_SENTENCE)
    assert run("write", "--root", str(repo))[0] == 0
    edit(DOCKERFILE, "ARG NEMO_RL_REPO=https://github.com/soluwalana/RL.git",
         "ARG NEMO_RL_REPO=https://github.com/NVIDIA-NeMo/RL.git")(repo)
    assert run("write", "--root", str(repo))[0] == 0
    edit(PAGE, FORK_SENTENCE, "By default `NEMO_RL_REPO` points at NVIDIA-NeMo's own NeMo-RL.")(repo)
    code, out = run("check", "--root", str(repo))
    assert f"{PAGE}:{line}: [review]" not in out and f"{PAGE}:{line}: [unrecorded-sentence]" in out
    assert run("write", "--root", str(repo))[0] == 0
    code, out = run("check", "--root", str(repo))   # the snapshot's provenance still names the fork: a finding
    assert f"{PAGE}:{line}:" not in out and set(re.findall(r"\[([\w-]+)\]", out)) == {"provenance"}, out


def test_a_value_the_sentence_named_that_moves_away_still_reviews_it(repo: Path):
    """The sentence names the engine minimum of scripts/check-engine by its value alone; when the script's
    value changes, the sentence names nothing any more, and the record still knows what it named."""
    line = _plant(repo, "Docker Engine 28.5.0 is the oldest engine the image builds on.")
    assert run("write", "--root", str(repo))[0] == 0
    edit("scripts/check-engine", "MIN_ENGINE=28.5.0", "MIN_ENGINE=29.0.0")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1
    assert f"{PAGE}:{line}: [review] mentions quoted:scripts/check-engine:MIN_ENGINE, which changed from " \
           "'28.5.0' to '29.0.0'" in out


@pytest.mark.parametrize("sentence, change", [
    # a floor or a release series written shorter than the setting's version names that setting
    ("The image builds on a Docker engine 28+ only.", ("scripts/check-engine", "MIN_ENGINE=28.5.0", "MIN_ENGINE=29.0.0")),
    ("The image builds on a Docker engine 28.5+ only.", ("scripts/check-engine", "MIN_ENGINE=28.5.0", "MIN_ENGINE=28.6.0")),
    ("Docker 28+ is what the engine script installs.", ("scripts/docker-engine", "WANT_SERVER_MAJOR=28",
                                                         "WANT_SERVER_MAJOR=29")),
])
def test_a_floor_or_release_series_of_a_settings_version_is_reviewed_when_the_setting_moves(repo: Path, sentence, change):
    line = _plant(repo, sentence)
    assert run("write", "--root", str(repo))[0] == 0
    path, old, new = change
    edit(path, old, new)(repo)
    code, out = run("check", "--root", str(repo))
    name = f"quoted:{path}:{old.partition('=')[0]}"
    assert code == 1 and re.search(rf"{PAGE}:{line}: \[(review|stated-value)\] .*{name}", out), out


def test_a_sentence_that_no_longer_names_a_fact_is_reviewed_and_one_that_still_does_is_not(repo: Path):
    """"28.5+" named the engine minimum while it was 28.5.0; at 28.6.0 the unchanged sentence names it no more,
    which is reviewed (no silent untying), also after `write`; a sentence naming `MIN_ENGINE` by its name keeps
    its tie and asks nothing; `docgen review` confirms the first."""
    series = _plant(repo, "The image builds on a Docker engine 28.5+ only.")
    by_name = _plant(repo, "`scripts/check-engine` holds the minimum in `MIN_ENGINE`.")
    assert run("write", "--root", str(repo))[0] == 0
    edit("scripts/check-engine", "MIN_ENGINE=28.5.0", "MIN_ENGINE=28.6.0")(repo)
    for _ in range(2):   # before and after a write, which keeps the review
        code, out = run("check", "--root", str(repo))
        assert code == 1 and f"{PAGE}:{series}: [review] no longer names quoted:scripts/check-engine:MIN_ENGINE" in out, out
        assert f"{PAGE}:{by_name}:" not in out, out
        assert run("write", "--root", str(repo))[0] == 0
    assert run("review", "--root", str(repo), f"{PAGE}:{series}")[0] == 0
    code, out = run("check", "--root", str(repo))
    assert f"{PAGE}:{series}: [review]" not in out and f"{PAGE}:{by_name}:" not in out, out


# the bake file's `default` group builds another target: what a bare `docker buildx bake` builds changes
_DEFAULT_BUILDS_HERMETIC = edit("docker-bake.hcl", 'group "default" {\n  targets = ["production"]',
                                'group "default" {\n  targets = ["hermetic"]')


def test_a_sentence_about_the_bake_files_default_target_is_reviewed_when_the_group_builds_another(repo: Path):
    line = _plant(repo, "A bare `docker buildx bake` builds the `default` target, which is the production build.")
    assert run("write", "--root", str(repo))[0] == 0
    _DEFAULT_BUILDS_HERMETIC(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [review] mentions target:docker-bake.hcl:default, which changed from " \
                         "'builds production' to 'builds hermetic'" in out, out


@pytest.mark.parametrize("sentence", [
    "A bare `docker buildx bake` builds the `production` target.",
    "Run `docker buildx bake --print` to see what it builds: the production image.",
    "```sh\ndocker buildx bake\n```",
])
def test_bake_run_with_no_target_names_the_default_group(repo: Path, sentence: str):
    """`docker buildx bake` with no target (options only) builds the `default` group: a sentence or a line of
    code that runs it that way is reviewed when the group builds another target."""
    line = _plant(repo, sentence) + (1 if sentence.startswith("```") else 0)
    assert run("write", "--root", str(repo))[0] == 0
    _DEFAULT_BUILDS_HERMETIC(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [review] mentions target:docker-bake.hcl:default" in out, out


def test_bake_named_as_the_kind_of_its_targets_names_no_group(repo: Path):
    """"a `docker buildx bake` target's `args`" speaks of any target: the default group's change asks nothing."""
    line = _plant(repo, "Pass it in a `docker buildx bake` target's `args`.")
    assert run("write", "--root", str(repo))[0] == 0
    _DEFAULT_BUILDS_HERMETIC(repo)
    assert f"{PAGE}:{line}:" not in run("check", "--root", str(repo))[1]


def test_a_bare_number_without_a_floor_names_no_setting_by_its_version(repo: Path):
    """"28 pages" is no release of the engine: only a number with `+` (or with a dot) is read as one."""
    _plant(repo, "The site has 28 pages.")
    assert run("write", "--root", str(repo))[0] == 0
    edit("scripts/docker-engine", "WANT_SERVER_MAJOR=28", "WANT_SERVER_MAJOR=29")(repo)
    assert run("check", "--root", str(repo)) == (0, "")


@pytest.mark.parametrize("sentence, says", [
    ("The image runs as uid 1234.", "states user 1234"),
    ("The runtime user id: 1234.", "states user 1234"),      # fact.stated_ids, as the prose lint reads it
    ("The image runs as the root user.", "states user root"),
    ("vLLM 0.9.1 generates the rollouts.", "states 0.9.1 for `vllm`"),
    ("The `sglang` extra is warmed in the cache.", "says `sglang` is warmed"),
    ("The published stage is `runtime`.", "is `runtime`"),
    ("Transformer-Engine compiles with 3 parallel jobs.", "states 3 beside a word of `NVTE_BUILD_MAX_JOBS`"),
    ("| Python | 3.12 |", "states 3.12"),
    ("The warm-up syncs use `UV_LINK_MODE=hardlink`.", "states `UV_LINK_MODE=hardlink`, but `UV_LINK_MODE` is 'symlink'"),
    ("The warm-up fills the uv cache at `/root/.cache/uv`.", "states /root/.cache/uv for the uv cache, but it is "
                                                             "/opt/uv_cache"),
])
def test_a_stated_value_is_compared_with_the_fact(repo: Path, sentence: str, says: str):
    line = _plant(repo, sentence)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [stated-value]" in out and says in out, out


@pytest.mark.parametrize("sentence", [
    "The image runs as uid 1000.",
    "vLLM 0.25.1 generates the rollouts.",
    "The `sglang` extra is not warmed.",
    "The published stage is `nmp-rl-base`.",
    "Transformer-Engine compiles with 8 parallel jobs.",
    "The set-up installs them as root on the host.",        # root, but no user of the image spoken of
    "BuildKit v0.25 ships with Docker Engine 28.5.2.",       # versions of things the inputs do not state
    "Each job runs as the runtime user, never as root.",     # a denied user states none
    "The warm-up syncs use `UV_LINK_MODE=symlink`.",         # `X=Y` as the Dockerfile exports it
    "The hermetic build passes `CMAKE_SOURCE=skip`.",        # as a bake target's args set it
    "A job may set `UV_CACHE_DIR=/tmp/uv-cache` for a venv it builds.",   # an override the reader makes
    "The uv cache at `/opt/uv_cache/wheels-v5` holds the wheels.",          # a path inside the place named
    "A job may point the uv cache at `/tmp/uv-cache` instead.",             # an override
    "The uv cache is documented at https://docs.example/opt/cache here.",   # a URL's path is no stated path
    # an extra said across a semicolon is another part's: the vLLM workers are not said to run with automodel
    "The policy trains in the `automodel` venv; at refit the weights are streamed to the vLLM workers.",
])
def test_a_true_or_unrelated_sentence_is_no_finding_of_the_mentions(repo: Path, sentence: str):
    """(A version or uid typed by hand is still the prose lint's finding, true or not: render it.)"""
    _plant(repo, sentence)
    assert run("write", "--root", str(repo))[0] == 0
    code, out = run("check", "--root", str(repo))
    assert "[stated-value]" not in out and "[review]" not in out and "[unrecorded-sentence]" not in out, out


def test_a_fact_no_page_shows_or_names_moves_without_a_failure_or_a_rewrite(tmp_path: Path):
    """A consumer whose pages show the quick inventory only: a UV_VERSION bump is none of their pages'
    business, so check passes and changes no byte."""
    root = copy_repo(tmp_path / "repo")
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text().replace('pages = ["README.md", "docs/**/*.md"]', 'pages = ["README.md"]')
    pyproject.write_text(text.replace("[tool.docgen]\n", '[tool.docgen]\nrequired = ["quick-inventory"]\n', 1))
    assert run("write", "--root", str(root))[0] == 0
    assert run("check", "--root", str(root)) == (0, "")
    edit(DOCKERFILE, "ARG UV_VERSION=0.11.33", "ARG UV_VERSION=0.11.40")(root)
    before = _tree(root)
    assert run("check", "--root", str(root)) == (0, "")
    assert _tree(root) == before


@pytest.mark.parametrize("spec, says", [("docs/index.md", "FILE:LINE"), ("docs/index.md:2", "no hand-written")])
def test_review_of_no_sentence_is_bad_input_and_writes_nothing(repo: Path, spec: str, says: str):
    before = _tree(repo)
    code, out = run("review", "--root", str(repo), spec)
    assert code == 2 and says in out
    assert _tree(repo) == before


def test_sentences_are_units_of_paragraphs_list_items_headings_and_table_rows():
    lines = ["# A heading", "", "First sentence. Second", "sentence on two lines.", "- an item",
             "- another. With two", "", "| a | b |", "|---|---|", "| c | d |"]
    assert list(_sentences(lines)) == [
        (1, "# A heading"), (3, "First sentence."), (3, "Second sentence on two lines."), (5, "- an item"),
        (6, "- another."), (6, "With two"), (8, "a | b"), (10, "c | d")]


def test_versions_in_a_value():
    assert _versions_in("nvcr.io/nvidia/cuda-dl-base:26.07-cuda13.3-devel-ubuntu24.04") >= {"26.07", "13.3", "24.04"}
    assert _versions_in("90;100", "cuda-arch") >= {"9.0", "10.0"}
    assert "2.9" not in _versions_in("29")   # a count is no version


def test_a_sentence_repeating_a_scripts_comment_is_reviewed_when_the_comment_changes(repo: Path):
    """A page that copies six words or more in a row of a quoted file's comment block is tied to that block:
    the comment changing fails `check` at the sentence, `write` keeps the finding, `review` ends it."""
    line = _plant(repo, "Bootstrap the tools, idempotent: a second run only redoes what changed, step by step.")
    assert run("write", "--root", str(repo))[0] == 0
    assert run("check", "--root", str(repo))[0] == 0
    edit("scripts/bootstrap", "a second run only redoes what changed", "a second run only redoes what is stale")(repo)
    for command in ("check", "write", "check"):
        code, out = run(command, "--root", str(repo))
        if command == "check":
            assert code == 1 and f"{PAGE}:{line}: [review] mentions comment:scripts/bootstrap: " in out, out
    assert run("review", "--root", str(repo), f"{PAGE}:{line}")[0] == 0
    assert run("check", "--root", str(repo))[0] == 0


def test_a_sentence_sharing_fewer_words_with_a_comment_is_not_tied_to_it(repo: Path):
    _plant(repo, "A second run only redoes the steps whose inputs moved.")   # four words in a row, not six
    assert run("write", "--root", str(repo))[0] == 0
    edit("scripts/bootstrap", "a second run only redoes what changed", "a second run only redoes what is stale")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 0, out


def test_no_fact_key_holds_the_records_separator():
    """The facts record lists a sentence's facts joined by ", ": a key holding it would be read back as two."""
    from docgen.check.pipeline import prepare
    from docgen.model.facts import fact_base
    from docgen.project import find_project
    from tests.test_mutations import REPO
    keys = [f.key for f in fact_base(prepare(find_project(REPO)).model).facts]
    assert keys and [k for k in keys if ", " in k] == []


@pytest.mark.parametrize("sentence, false_line, named_line", [
    ("The image installs\nvLLM 0.9.1 for generation.", 2, 2),                      # the version on the second line
    ("`UV_CACHE_DIR` in a running container\n:   Unset: uv falls back to its home cache.", 2, 1),   # a definition
    ("The image runs as uid 1234, as its\nDockerfile sets it.", 1, 1),             # the value on the first line
])
def test_a_stated_value_is_reported_on_the_line_where_it_stands(repo: Path, sentence: str, false_line: int,
                                                                 named_line: int):
    line = _plant(repo, sentence)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line + false_line - 1}: [stated-value]" in out, out
    # the new sentence is reported where the words that name a fact stand (`vllm`, `UV_CACHE_DIR`, the user)
    assert f"{PAGE}:{line + named_line - 1}: [unrecorded-sentence]" in out, out


def test_a_sentence_running_on_is_reported_and_confirmed_at_the_line_that_names_the_fact(repo: Path):
    """A sentence that starts in an existing line and names a fact only on the next one (words added to a
    paragraph) is reported at that next line, new and after a change; `docgen review` takes that line."""
    line = _plant(repo, "Read this first, because the image\npoints `NEMO_RL_REPO` at the soluwalana fork.")
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line + 1}: [unrecorded-sentence] this sentence names arg:NEMO_RL_REPO" in out, out
    assert f"{PAGE}:{line}: [unrecorded-sentence]" not in out, out
    assert run("write", "--root", str(repo))[0] == 0
    edit(DOCKERFILE, "ARG NEMO_RL_REPO=https://github.com/soluwalana/RL.git",
         "ARG NEMO_RL_REPO=https://github.com/NVIDIA-NeMo/RL.git")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line + 1}: [review] mentions arg:NEMO_RL_REPO" in out, out
    assert f"docgen review {PAGE}:{line + 1}`" in out, out
    assert run("review", "--root", str(repo), f"{PAGE}:{line + 1}")[0] == 0
    code, out = run("check", "--root", str(repo))
    assert f"{PAGE}:{line + 1}: [review]" not in out, out


@pytest.mark.parametrize("denied", ["The image doesn't build vllm from source.", "vllm isn't built from source here.",
                                    "vllm is not built from source."])
def test_a_denied_build_claim_claims_nothing(repo: Path, denied: str):
    """A clause that denies a source build ("doesn't", "isn't", "not") states no build to judge; the same clause
    affirmed is judged (vllm comes as a wheel, so it is false)."""
    line = _plant(repo, "The image builds vllm from source.")
    code, out = run("lint", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [stated-value] the sentence about vllm is false" in out, out
    page = repo / PAGE
    page.write_text(page.read_text().replace("The image builds vllm from source.", denied))
    code, out = run("lint", "--root", str(repo))
    assert f"{PAGE}:{line}:" not in out, out


@pytest.mark.parametrize("sentence", ["Each venv belongs to the runtime user. 2 venvs are prefetched first.",
                                      "For each user, 3 extras are warmed."])
def test_a_number_after_a_user_word_across_punctuation_is_no_stated_id(repo: Path, sentence: str):
    line = _plant(repo, sentence)
    code, out = run("lint", "--root", str(repo))
    assert not re.search(rf"{PAGE}:{line}: .*(?:uid|user id)", out), out


# ------------------------------------------------------------- hand-written code and the comments the pages copy

def test_a_line_of_hand_written_code_is_reviewed_when_a_value_it_quotes_changes(repo: Path):
    """hermetic.md shows a bake command by hand, with the CA bundle's path the bake file defaults to: a new
    default fails check at that line of code, as it would at a sentence."""
    edit("docker-bake.hcl", 'default = "/etc/ssl/certs/ca-certificates.crt"', 'default = "/etc/pki/tls/cert.pem"')(repo)
    code, out = run("check", "--root", str(repo))
    lines = [n for n, text in enumerate((repo / "docs/building/hermetic.md").read_text().splitlines(), 1)
             if text.startswith("docker buildx bake") and "ca-certificates.crt" in text]
    assert code == 1 and lines
    for line in lines:
        assert (f"docs/building/hermetic.md:{line}: [review] mentions quoted:docker-bake.hcl:CACERT, which changed "
                "from '/etc/ssl/certs/ca-certificates.crt' to '/etc/pki/tls/cert.pem'") in out


def test_a_word_of_code_that_only_spells_a_package_ties_nothing(repo: Path):
    """`docker` in a shown command is the command, not the Python package of that name in NeMo-RL's lock: a
    code line is tied by code-like names and distinctive values only, never by a package's plain name."""
    record = json.loads((repo / FACTS_RECORD).read_text())["mentions"]["sentences"]
    line = "docker run --rm -it nmp-rl-base:hermetic bash"
    assert record["docs/image/inspect.md"][sentence_digest(line)] == "quoted:docker-bake.hcl:target hermetic.tags"
    bake = [text for text in (repo / "docs/building/hermetic.md").read_text().splitlines()
            if text.startswith("docker buildx bake")]
    assert bake and all("quoted:docker-bake.hcl:CACERT" in record["docs/building/hermetic.md"][sentence_digest(t)]
                        and "package:" not in record["docs/building/hermetic.md"][sentence_digest(t)] for t in bake)


def test_a_build_arguments_comment_is_reviewed_when_the_default_it_explains_changes(repo: Path):
    """The Dockerfile comment above `ARG PYTHON_SOURCE` (copied into the build-options page) explains the default
    `managed`: a new default fails check at the comment, whose words do not spell the argument's name."""
    edit(DOCKERFILE, "ARG PYTHON_SOURCE=managed", "ARG PYTHON_SOURCE=system")(repo)
    code, out = run("check", "--root", str(repo))
    comment = next(n for n, text in enumerate((repo / DOCKERFILE).read_text().splitlines(), 1)
                   if text.startswith("# Where the interpreter comes from"))
    assert code == 1
    assert (f"{DOCKERFILE}:{comment}: [review] mentions arg:PYTHON_SOURCE, which changed from 'managed' to "
            "'system'") in out


def test_a_comment_that_states_no_value_of_its_argument_is_not_reviewed_when_the_value_moves(repo: Path):
    """UV_VERSION's comment says what the argument is, not which release: a bump asks no review of it."""
    edit(DOCKERFILE, "ARG UV_VERSION=0.11.33", "ARG UV_VERSION=0.11.40")(repo)
    code, out = run("check", "--root", str(repo))
    comment = next(n for n, text in enumerate((repo / DOCKERFILE).read_text().splitlines(), 1)
                   if text.startswith("# uv release;"))
    assert code == 1 and "0.11.40" in out   # the pages show the old release: stale, which write fixes
    assert f"{DOCKERFILE}:{comment}: [review]" not in out


def test_a_sentence_repeating_a_dockerfile_comment_is_reviewed_when_the_comment_changes(repo: Path):
    """The Dockerfile's comments are what it says of itself, as a quoted file's are: a page sentence that repeats
    six words of one in a row is tied to it; a Dockerfile comment is never tied to itself."""
    line = _plant(repo, "Each job starts as the numeric user the platform runs the container as, never as root.")
    assert run("write", "--root", str(repo))[0] == 0
    assert run("check", "--root", str(repo))[0] == 0
    record = json.loads((repo / FACTS_RECORD).read_text())["mentions"]["sentences"]
    assert not any("comment:Dockerfile" in keys for keys in record[DOCKERFILE].values())
    edit(DOCKERFILE, "# Numeric user the platform runs the container as;", "# Numeric user the scheduler starts jobs as;")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [review] mentions comment:Dockerfile.nmp-rl-base: numeric user the platform" in out, out


def test_a_sentence_saying_a_stage_removes_something_is_reviewed_when_the_step_keeps_it(repo: Path):
    """layering.md says the published stage removes CMake: the `rm` of /usr/local/bin/cmake is a fact the
    sentence names ("removes" beside the path's last part), so dropping it from the cleanup step fails check at
    that sentence; the step's scratch files under /tmp are no facts."""
    page = repo / "docs/image/layering.md"
    line = next(n for n, text in enumerate(page.read_text().splitlines(), 1) if "only removes" in text)
    edit(DOCKERFILE, "rm -rf /usr/local/bin/cmake /usr/local/bin/ctest /usr/local/bin/cpack /usr/local/share/cmake-* \\\n  ",
         "rm -rf ")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1
    assert re.search(rf"docs/image/layering.md:{line}: \[review\] mentions removed:/usr/local/bin/cmake, which "
                     r"changed from 'nmp-rl-base: [^']*/usr/local/bin/cmake[^']*' to '\(gone\)'", out), out
    assert "removed:/tmp" not in (repo / FACTS_RECORD).read_text()


def test_a_settings_plain_value_names_it_only_as_code(repo: Path):
    """`download` in a code span is CMAKE_SOURCE's value shown as code: the sentence is tied to it and reviewed
    when the default moves. The same word in prose is a word, tied to nothing."""
    as_code = _plant(repo, "Builds take CMake the `download` way.")
    as_word = _plant(repo, "Builds download a toolchain from the vendor.")
    assert run("write", "--root", str(repo))[0] == 0
    edit(DOCKERFILE, "ARG CMAKE_SOURCE=download", "ARG CMAKE_SOURCE=apt")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and (f"{PAGE}:{as_code}: [review] mentions arg:CMAKE_SOURCE, which changed from 'download' "
                          "to 'apt'") in out, out
    assert f"{PAGE}:{as_word}: [review]" not in out


def test_a_settings_plain_value_shows_it_in_a_line_of_code_only_as_a_whole_shell_word(repo: Path):
    """In a line of code, `download` names CMAKE_SOURCE's value as a whole shell word (`--arg download`, `"download"`,
    `download/`, and in the line's `#` comment), not inside another word (`.[download]`, `--download`, `build/download`)."""
    block = ["cmake-fetch --mode download", 'echo "download"', "ls download/ build/download", "pip install '.[download]'",
             "fetch --download NAME", "make all   # a download would be slower"]
    first = _plant(repo, "```bash\n" + "\n".join(block) + "\n```") + 1
    assert run("write", "--root", str(repo))[0] == 0
    edit(DOCKERFILE, "ARG CMAKE_SOURCE=download", "ARG CMAKE_SOURCE=apt")(repo)
    code, out = run("check", "--root", str(repo))
    reviewed = {n for n in range(first, first + len(block)) if f"{PAGE}:{n}: [review] mentions arg:CMAKE_SOURCE," in out}
    assert code == 1 and reviewed == {first, first + 1, first + 2, first + 5}, out


def test_a_sentence_naming_a_bake_target_is_reviewed_when_the_target_sets_another_attribute(repo: Path):
    """A bake target is what it sets: a sentence naming it ("the hermetic targets never export a cache") is tied to
    the names of its attributes, so a target that starts exporting a cache fails check at that sentence, whatever
    words the sentence uses for it; a conditional attribute counts too."""
    line = _plant(repo, "The `hermetic` target never exports its build cache.")
    assert run("write", "--root", str(repo))[0] == 0
    edit("docker-bake.hcl", '  tags   = ["nmp-rl-base:hermetic"]\n',
         '  tags   = ["nmp-rl-base:hermetic"]\n  cache-to = CI == "" ? [] : ["type=local,dest=build/cache"]\n')(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and (f"{PAGE}:{line}: [review] mentions target:docker-bake.hcl:hermetic, which changed from "
                          "'sets args, contexts, inherits, output, secret, tags' to 'sets args, cache-to, contexts, "
                          "inherits, output, secret, tags'") in out, out


def test_a_sentence_saying_how_many_versions_of_a_package_the_lock_holds_is_compared(repo: Path):
    """"pin different versions of transformers" holds while the lock has more than one transformers, "the same
    version" while it has one; a case the sentence supposes ("when two extras pin different versions") states
    nothing."""
    same = _plant(repo, "Every extra pins the same version of the packages they share (transformers, for one).")
    supposed = _plant(repo, "When two extras pin the same version of transformers, uv can merge them.")
    code, out = run("lint", "--root", str(repo))
    assert code == 1 and re.search(rf"{PAGE}:{same}: \[stated-value\] the sentence says `?transformers`? comes in one "
                                   r"version, but the lock has \S+ and ", out), out
    assert f"{PAGE}:{supposed}: [stated-value]" not in out


def test_what_a_copy_takes_and_leaves_out_is_named_only_beside_the_copy_words(repo: Path):
    """layering.md says the full-source COPY leaves out what the resolver-input COPYs placed (`3rdparty/`, ...): a
    COPY that stops leaving out 3rdparty fails check at that sentence. `pyproject.toml` in a sentence without the
    kind's words (copy, exclude, left out) names no COPY."""
    page = repo / "docs/image/layering.md"
    line = next(n for n, text in enumerate(page.read_text().splitlines(), 1) if "full-source `COPY" in text)
    other = _plant(repo, "NeMo-RL declares its extras in `pyproject.toml` and pins them in `uv.lock`.")
    assert run("write", "--root", str(repo))[0] == 0
    record = json.loads((repo / FACTS_RECORD).read_text())["mentions"]["sentences"]
    assert not any("copy:" in keys for keys in record[PAGE].values())
    edit(DOCKERFILE, " --exclude=3rdparty --exclude=!3rdparty/TensorRT-LLM-workspace . ./", " . ./")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and (f"docs/image/layering.md:{line}: [review] mentions copy:./ leaves out 3rdparty#named, "
                          "which changed from 'yes' to '(gone)'") in out, out
    assert f"{PAGE}:{other}:" not in out


def test_a_value_rendered_or_compared_in_a_sentence_asks_no_review_when_it_moves(repo: Path):
    """A value a sentence renders re-renders, and one it states beside a fact's name is judged on every run: a
    patch release of Python asks no review of index.md's rendered versions nor of hermetic.md's "Python 3.13",
    which still holds; a sentence that names the version by its value alone is still reviewed (see above)."""
    edit(DOCKERFILE, "ARG PYTHON_VERSION=3.13.14", "ARG PYTHON_VERSION=3.13.15")(repo)
    assert run("write", "--root", str(repo))[0] == 0
    code, out = run("check", "--root", str(repo))
    assert code == 0 and "[review]" not in out, out


def test_different_versions_are_read_among_the_extras_the_sentence_names(repo: Path):
    """"`vllm` and `sglang` pin different versions of flashinfer" holds while those two extras hold different
    FlashInfer releases, whatever other extras pin; aligned, it is false at that line."""
    line = _plant(repo, "The `vllm` and `sglang` extras pin different versions of flashinfer-python.")
    assert run("lint", "--root", str(repo))[0] == 0
    data = json.loads((repo / SNAPSHOT).read_text())
    sets = data["lock"]["install_sets"]
    sets["sglang"] = [k.replace("flashinfer-python==0.6.11.post1", "flashinfer-python==0.6.13") for k in sets["sglang"]]
    (repo / SNAPSHOT).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    code, out = run("lint", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [stated-value] the sentence says `flashinfer-python` comes in different " \
                         "versions, but the lock has 0.6.13" in out, out


def test_a_line_of_code_names_a_bake_target_by_its_name_as_a_whole_shell_word(repo: Path):
    """`docker buildx bake production` runs the production target: the line is tied to what the target sets; a
    package's or a stage's plain name in a command (`docker`, `uv`) names nothing."""
    first = _plant(repo, "```bash\ndocker buildx bake production\nuv sync --frozen\n```") + 1
    assert run("write", "--root", str(repo))[0] == 0
    record = json.loads((repo / FACTS_RECORD).read_text())["mentions"]["sentences"][PAGE]
    assert record[sentence_digest("docker buildx bake production")] == "target:docker-bake.hcl:production"
    assert sentence_digest("uv sync --frozen") not in record or "stage:uv" not in record[sentence_digest("uv sync --frozen")]
    edit("docker-bake.hcl", 'target "production" {\n', 'target "production" {\n  platforms = ["linux/arm64"]\n')(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{first}: [review] mentions target:docker-bake.hcl:production" in out, out


def test_a_sentence_about_what_a_stage_removes_is_reviewed_when_the_stage_removes_more(repo: Path):
    """"the published stage only removes CMake and stray caches" is about all that stage removes: a second
    clean-up step there (the CUDA compiler) fails check at that sentence, which names nothing of the new step:
    at the line where it names CMake."""
    page = repo / "docs/image/layering.md"
    line = next(n for n, text in enumerate(page.read_text().splitlines(), 1) if "CMake and stray caches" in text)
    edit(DOCKERFILE, "ENV VIRTUAL_ENV=/opt/nemo_rl_venv \\\n",
         "RUN rm -rf /usr/local/cuda/bin/nvcc\nENV VIRTUAL_ENV=/opt/nemo_rl_venv \\\n")(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"docs/image/layering.md:{line}: [review] mentions removed:/usr/local/bin/cmake" in out, out


def test_a_recorded_sentence_that_names_a_new_fact_is_reviewed_and_write_keeps_the_review(repo: Path):
    """A step now removes `/usr/local/bin/python-*`: a recorded sentence about the `python-<ClassName>` wrappers,
    unchanged, now names that glob's removal, a fact that did not exist when it was written. check fails there,
    and `write` keeps the review pending until `docgen review` (or an edit)."""
    line = _plant(repo, "Ray starts each actor through its `python-<ClassName>` wrapper in the venv directory.")
    assert run("write", "--root", str(repo))[0] == 0
    edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n",
         "rm -f /usr/local/bin/python-*\nchgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n")(repo)
    code, out = run("check", "--root", str(repo))
    said = f"{PAGE}:{line}: [review] mentions removed:/usr/local/bin/python-*"
    assert code == 1 and said in out and "which it did not name when it was written" in out, out
    assert run("write", "--root", str(repo))[0] == 0
    code, out = run("check", "--root", str(repo))
    assert code == 1 and said in out, out
    assert run("review", f"{PAGE}:{line}", "--root", str(repo))[0] == 0
    code, out = run("check", "--root", str(repo))
    assert said not in out, out


def test_a_fact_newly_named_while_it_stayed_the_same_is_reviewed_as_a_new_reading_not_an_input_change(repo: Path):
    """The record says the second sentence did not name `NEMO_RL_REPO` when it was written, while the fact's
    recorded value is today's (as after a docgen upgrade whose rules read more): the review says docgen reads
    the sentence differently, not that an input changed."""
    _plant(repo, FORK_SENTENCE)
    line = _plant(repo, "The fork that `NEMO_RL_REPO` names is where the image takes NeMo-RL from.")
    assert run("write", "--root", str(repo))[0] == 0
    record = json.loads((repo / FACTS_RECORD).read_text())
    digest = sentence_digest("The fork that `NEMO_RL_REPO` names is where the image takes NeMo-RL from.")
    keys = record["mentions"]["sentences"][PAGE][digest].split(", ")
    key = next(k for k in keys if k.startswith("arg:NEMO_RL_REPO"))
    assert key in record["mentions"]["values"]
    record["mentions"]["sentences"][PAGE][digest] = ", ".join(k for k in keys if k != key)
    (repo / FACTS_RECORD).write_text(json.dumps(record, indent=1))
    code, out = run("check", "--root", str(repo))
    said = f"{PAGE}:{line}: [review] mentions {key}"
    assert code == 1 and said in out and "docgen reads the sentence differently now" in out, out
    assert "an input changed under it" not in out.split(said, 1)[1].splitlines()[0], out


def test_a_sentence_naming_an_option_beside_its_program_is_reviewed_when_the_script_drops_it(repo: Path):
    """contributing.md says the site build runs mkdocs with `--strict`: build-docs that stops passing it fails
    check at that sentence; `--strict` without the program's name in the sentence names nothing."""
    with_program = _plant(repo, "The site build runs mkdocs with `--strict`, so a dead link fails it.")
    without = _plant(repo, "Run the linter with `--strict` before a release.")
    assert run("write", "--root", str(repo))[0] == 0
    edit("scripts/build-docs", '"$MKDOCS" build --strict --config-file', '"$MKDOCS" build --config-file')(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{with_program}: [review] mentions option:scripts/build-docs: mkdocs --strict" in out, out
    assert f"{PAGE}:{without}:" not in out


def test_a_sentence_about_who_may_change_a_place_is_reviewed_when_its_owner_changes(repo: Path):
    """The NeMo-RL tree is copied in with `--chown` of the build user: options.md's "the runtime user ... cannot
    change it" names the tree, so a step that hands the tree to the runtime user fails check at that sentence;
    a `chown` in a RUN counts as a COPY's `--chown` does."""
    page = repo / "docs/building/options.md"
    line = next(n for n, text in enumerate(page.read_text().splitlines(), 1) if text.startswith("- **Users.**"))
    edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n",
         'chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\nchown -R "${RUNTIME_UID}:${RUNTIME_GID}" /opt/nemo-rl/\n')(repo)
    code, out = run("check", "--root", str(repo))
    assert code == 1 and (f"docs/building/options.md:{line}: [review] mentions owner:/opt/nemo-rl, which changed "
                          "from '2000:2000' to '1000:1000'") in out, out


def test_a_sentence_that_named_nothing_and_names_a_new_fact_is_reviewed_not_just_recorded(repo: Path):
    """inspect.md's sentence about the `python-<ClassName>` wrappers named no fact when the record was written (the
    record keeps it among the sentences that named nothing). A step that removes `/usr/local/bin/python-*` makes
    it name that removal: the sentence did not change, an input did, so it is reviewed, and `write` keeps that."""
    page = repo / "docs/image/inspect.md"
    line = next(n for n, text in enumerate(page.read_text().splitlines(), 1) if "python-<ClassName>" in text)
    edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n",
         "rm -f /usr/local/bin/python-*\nchgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n")(repo)
    said = f"docs/image/inspect.md:{line}: [review] mentions removed:/usr/local/bin/python-*"
    for _ in range(2):   # before `write`, and after it
        code, out = run("check", "--root", str(repo))
        assert code == 1 and said in out and "which it did not name when it was written" in out, out
        assert run("write", "--root", str(repo))[0] == 0
    assert run("review", f"docs/image/inspect.md:{line}", "--root", str(repo))[0] == 0
    assert said not in run("check", "--root", str(repo))[1]


@pytest.mark.parametrize("sentence, says", [
    # a relative clause says what the name before its comma does
    ("The slow part of the `fsdp` sync is `flash-attn`, which uv compiles from source.",
     "the sentence about flash-attn is false: no warm step builds flash-attn from source"),
    # "the same X release" with the package's name between the words
    ("`automodel` and `mcore` install the same `transformers` release.",
     "the sentence says `transformers` comes in one version, but the lock has 5.5.0 and 5.8.1"),
    # the extras listed after "only" are all that install the package
    ("DeepEP is built only for the `mcore` extra.",
     "the sentence says deep-ep comes only with mcore, but the lock installs deep-ep with the extras automodel, "
     "mcore, vllm"),
    ("Only the `fsdp` extra installs flash-attn.",
     "the sentence says flash-attn comes only with fsdp, but the lock installs flash-attn with the extras "
     "automodel, fsdp, mcore"),
])
def test_a_false_relation_of_a_package_to_its_builds_versions_or_extras_is_found(repo: Path, sentence: str, says: str):
    line = _plant(repo, sentence)
    code, out = run("lint", "--root", str(repo))
    assert code == 1 and f"{PAGE}:{line}: [stated-value] {says}" in out, out


@pytest.mark.parametrize("sentence", [
    "`causal-conv1d`, which uv builds from source, is shared by three extras.",
    "`automodel` and `fsdp` install the same `torch` release.",
    "The `sglang` package is installed only by the `sglang` extra.",
    "DeepEP is installed only by the `vllm`, `automodel` and `mcore` extras.",
    "DeepEP is not only for the `mcore` extra.",            # denied: it claims nothing
    "flash-attn is the only package the `fsdp` sync links.",  # "the only" of a package, no list of extras
])
def test_a_true_or_denied_relation_of_a_package_is_no_finding(repo: Path, sentence: str):
    line = _plant(repo, sentence)
    code, out = run("lint", "--root", str(repo))
    assert f"{PAGE}:{line}: [stated-value]" not in out, out


def test_a_share_of_a_counted_set_is_reviewed_when_the_count_changes(repo: Path):
    """"most of the registry's actors" states no number, but it speaks of how many actors there are: a new
    actor asks its review, like a count the sentence spelled out would."""
    line = _plant(repo, "Most of the registry's actors run under `uv run`.")
    assert run("write", "--root", str(repo))[0] == 0
    data = json.loads((repo / SNAPSHOT).read_text())
    data["registry"]["actors"] = data["registry"]["actors"][1:]
    (repo / SNAPSHOT).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    code, out = run("check", "--root", str(repo))
    assert code == 1 and re.search(rf"{PAGE}:{line}: \[review\] mentions count:actors\b", out), out


def _drop_deep_ep_from_automodel(root: Path) -> None:
    data = json.loads((root / SNAPSHOT).read_text())
    for name in ("automodel", "automodel+modelopt"):
        data["lock"]["install_sets"][name] = [k for k in data["lock"]["install_sets"][name] if not k.startswith("deep-ep==")]
    (root / SNAPSHOT).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def _drop_te_requirement_of_automodel(root: Path) -> None:
    data = json.loads((root / SNAPSHOT).read_text())
    extras = data["project"]["extras"]
    extras["automodel"] = [r for r in extras["automodel"] if not r.startswith("transformer-engine")]
    (root / SNAPSHOT).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def _sandbox_broker_upstream(root: Path) -> None:
    data = json.loads((root / SNAPSHOT).read_text())
    for a in data["registry"]["actors"]:
        if a["actor"].endswith(".SandboxEpisodeBrokerActor"):
            a["source"] = "upstream"
    (root / SNAPSHOT).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def _rename_async_worker_module(root: Path) -> None:
    data = json.loads((root / SNAPSHOT).read_text())
    for a in data["registry"]["actors"]:
        a["actor"] = a["actor"].replace(".vllm_worker_async.", ".async_worker.")
    (root / SNAPSHOT).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


@pytest.mark.parametrize("change, page, words, key", [
    # a script's exit statuses, named by the script beside the exit words
    (edit("scripts/check-engine", "installs one from Debian sid).\\n' >&2\n  exit 2\n",
          "installs one from Debian sid).\\n' >&2\n  exit 1\n"),
     "docs/building/options.md", "exits 2 on an older engine", "exit:scripts/check-engine: exit"),
    # a `key=value` of a bake attribute's listed value (a conditional's string), shown as code
    (edit("docker-bake.hcl", 'mode=max"]', 'mode=min"]'), "docs/building/options.md", "exports with `mode=max`",
     "quoted:docker-bake.hcl:target production.cache-to"),
    # what the last warm sync leaves in the driver's venv
    (edit(DOCKERFILE, "--all-groups       # leave the main venv at base + every group\n",
          "--all-groups       # leave the main venv at base + every group\n"
          "uv sync ${UV_SYNC_MODE} --no-install-project --extra nvrx\n"),
     "docs/image/venvs.md", "leave the driver venv at exactly", "venv:driver"),
    # which extras install a package, for a sentence naming it beside one of them
    (_drop_deep_ep_from_automodel, "docs/concepts/workflows.md", "grouped GEMM for mixture-of-experts, DeepEP",
     "installs:deep-ep"),
    # what an extra requires in pyproject.toml, the part a sentence states
    (_drop_te_requirement_of_automodel, "docs/concepts/transformer-engine.md", "names a git tag of its own",
     "requires:automodel#transformer-engine"),
    # how a stage runs a program, for a sentence naming the program as code
    (edit(DOCKERFILE, "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\n",
          "chgrp root /usr/local/bin && chmod 0755 /usr/local/bin\nchmod -R a+rX /opt/nemo-rl\n"),
     "docs/image/layering.md", "recursive `chmod` or `chgrp`", "runs:nmp-rl-base: chmod"),
    # a setting of the shell a step runs under (a file mode mask), shown as the whole command a step runs
    (edit(DOCKERFILE, 'ARG NEMO_GYM_INTREE_MAX_MIB=64\nRUN --mount=type=secret,id=cacert,mode=0444 <<"EOF" bash -exu -o '
          'pipefail\numask 022\n', 'ARG NEMO_GYM_INTREE_MAX_MIB=64\nRUN --mount=type=secret,id=cacert,mode=0444 <<"EOF" '
          'bash -exu -o pipefail\numask 002\n'),
     "docs/image/layering.md", "Every build step runs with `umask 022`", "runs:builder: umask"),
    # a family of actors said by their class names' words ("the sandbox actors"), and where their entry comes from
    (_sandbox_broker_upstream, "docs/image/venvs.md", "the sandbox actors this fork adds",
     "actor:nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor#source"),
    # an actor by its module's path
    (_rename_async_worker_module, "docs/image/venvs.md", "also matches `vllm.vllm_worker_async`",
     "actor:nemo_rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker"),
])
def test_a_sentence_is_reviewed_when_a_fact_it_states_in_words_changes(repo: Path, change, page: str, words: str,
                                                                       key: str):
    """Each fact below is one a page states in words of its own, with no value rendered: the sentence is tied to
    it, so the change asks its review, and `write` alone does not make `check` pass."""
    text = (repo / page).read_text()
    at = text.index(words)
    start = text.rfind("\n\n", 0, at)   # the paragraph the words stand in: a review names its sentence's line
    first, last = text.count("\n", 0, start + 2) + 1, text.count("\n", 0, at) + 1
    change(repo)
    assert run("write", "--root", str(repo))[0] == 0
    code, out = run("check", "--root", str(repo))
    lines = [int(n) for n in re.findall(rf"^{re.escape(page)}:(\d+): \[review\] mentions {re.escape(key)}\b", out, re.M)]
    assert code == 1 and any(first <= n <= last for n in lines), out
