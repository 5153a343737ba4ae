"""Dockerfile reader: Docker syntax, the image's shell conventions, errors with lines. The cross-check
against BuildKit's own parser needs an engine: tests/image/test_buildkit_reader.py."""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from docgen.check.lint import lint
from docgen.errors import InputError
from tests.expected import Truth
from docgen.inputs.dockerfile import (
    Arg,
    CountStatement,
    EnvVar,
    Heredoc,
    NotPrefetchedList,
    PrefetchCall,
    VerifyList,
    WarmSync,
    parse_dockerfile,
    read_dockerfile,
)
from docgen.inputs.shellwords import variables
from docgen.model.build import build_model
from docgen.render.generators import GENERATORS, RenderInputs, render_block
from docgen.errors import ArgError
from docgen.render.text import inventory_text
from docgen.snapshot.load import load_snapshot

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dockerfiles"
EIGHT_FILTERS = FIXTURES / "eight-filters.Dockerfile"
BACKTICK_ESCAPE = FIXTURES / "backtick-escape.Dockerfile"
REAL_DOCKERFILE = Path(__file__).resolve().parents[2] / "Dockerfile.nmp-rl-base"

# Every Dockerfile must run prefetch_venvs.py once; literals about other things get this tail.
PREFETCH_TAIL = "RUN python tools/prefetch_venvs.py some.Filter\n"


def parse(text: str, *, tail: bool = True):
    """Parse a literal written as '''\\ ... ''' so its first line is line 1."""
    return parse_dockerfile(dedent(text) + (PREFETCH_TAIL if tail else ""), "t.Dockerfile")


def only(facts, keyword):
    return [ins for ins in facts.instructions if ins.keyword == keyword]


# ---- instructions, continuations, comments ----------------------------------------------------


def test_instruction_lines_and_continuations_joined_with_one_space():
    facts = parse("""\
        FROM debian AS base
        RUN apt-get update \\
            # Docker drops this comment line inside the continuation run
            && apt-get install -y curl \\

            git
        run echo lower-case keyword
        """)
    run, lower = only(facts, "RUN")[:2]
    assert (run.start_line, run.end_line) == (2, 6)
    assert run.args == "apt-get update && apt-get install -y curl git"
    assert (lower.keyword, lower.start_line, lower.end_line) == ("RUN", 7, 7)
    assert facts.instructions[0].keyword == "FROM" and facts.instructions[0].stage == "base"


def test_trailing_blanks_after_backslash_still_continue():
    facts = parse("FROM debian\nRUN echo a \\  \n    b\n")
    run = only(facts, "RUN")[0]
    assert (run.args, run.end_line) == ("echo a b", 3)


# ---- heredocs ---------------------------------------------------------------------------------


def test_quoted_heredoc_with_command_gives_body_and_lines():
    facts = parse("""\
        FROM debian
        RUN <<"EOF" bash -exu -o pipefail
        echo one
          echo two
        EOF
        """)
    run = only(facts, "RUN")[0]
    assert run.args == '<<"EOF" bash -exu -o pipefail'
    assert run.heredocs == (Heredoc("EOF", "echo one\n  echo two\n", 3),)
    assert (run.start_line, run.end_line) == (2, 5)


def test_dash_heredoc_strips_leading_tabs_and_plain_heredoc_keeps_them():
    facts = parse("FROM debian\nRUN <<-EOF\n\techo tabbed\n\tEOF\nRUN <<EOF\n\tkept\nEOF\n")
    dashed, plain = only(facts, "RUN")[:2]
    assert dashed.heredocs == (Heredoc("EOF", "echo tabbed\n", 3),)
    assert dashed.end_line == 4
    assert plain.heredocs == (Heredoc("EOF", "\tkept\n", 6),)


def test_several_heredocs_in_one_instruction_follow_each_other():
    facts = parse("""\
        FROM debian
        COPY <<FIRST <<'SECOND' /dest/
        one
        FIRST
        two
        three
        SECOND
        RUN echo after
        """)
    copy = only(facts, "COPY")[0]
    assert copy.heredocs == (Heredoc("FIRST", "one\n", 3), Heredoc("SECOND", "two\nthree\n", 5))
    assert copy.end_line == 7
    assert only(facts, "RUN")[0].start_line == 8


def test_heredoc_body_lines_are_not_dockerfile_instructions_or_comments():
    facts = parse("""\
        FROM debian
        # Comment of the RUN.
        RUN <<EOF
        # shell comment
        FROM not-a-stage
        EOF
        """)
    assert len(facts.stages) == 1
    assert only(facts, "RUN")[0].comment == "Comment of the RUN."


# ---- parser directive -------------------------------------------------------------------------


def test_leading_syntax_directive_is_reported_with_its_line():
    assert parse("# syntax=docker/dockerfile:1\nFROM debian\n").syntax_directive == 1
    assert parse("# escape=\\\n#syntax = docker/dockerfile:1.7\nFROM debian\n").syntax_directive == 2


def test_syntax_comment_after_other_content_is_not_a_directive():
    assert parse("FROM debian\n").syntax_directive is None
    assert parse("# A comment first.\n# syntax=docker/dockerfile:1\nFROM debian\n").syntax_directive is None
    assert parse("\n# syntax=docker/dockerfile:1\nFROM debian\n").syntax_directive is None


def test_directive_line_is_not_part_of_a_comment_block():
    facts = parse("# syntax=docker/dockerfile:1\n# About X.\nARG X=1\nFROM debian\n")
    assert facts.args[0].comment == "About X."


def test_escape_directive_backtick_continues_instructions_and_shell_text_keeps_backslash():
    # As BuildKit: the backtick continues (and is removed from) instruction lines, RUN shell lines too;
    # a heredoc body is handed to the shell as is, so its backslash continuations stay shell ones.
    facts = parse("""\
        # escape=`
        FROM debian AS base
        ARG A=1 `
            B=2
        RUN --mount=type=cache,target=/c `
            # a Dockerfile comment inside the continuation run
            cd /x && `
            uv sync --extra vllm
        RUN <<EOF
        uv sync \\
            --extra fsdp
        EOF
        """)
    assert facts.args == (Arg("A", "1", "base", 3, ""), Arg("B", "2", "base", 3, ""))
    run = only(facts, "RUN")[0]
    assert (run.args, run.start_line, run.end_line) == ("--mount=type=cache,target=/c cd /x && uv sync --extra vllm", 5, 8)
    assert run.flags == {"mount": ("type=cache,target=/c",)}
    assert facts.warm_syncs == (WarmSync(("vllm",), (), "", 8, "base"), WarmSync(("fsdp",), (), "", 10, "base"))


def test_heredoc_word_ending_in_a_lone_backslash_drops_it_like_buildkit():
    # Under `escape=`` a backslash can end the line; BuildKit's lexer drops it from the heredoc word.
    facts = parse("# escape=`\nFROM debian\nRUN cat <<EOF\\\nhi\nEOF\n")
    assert only(facts, "RUN")[0].heredocs == (Heredoc("EOF", "hi\n", 4),)


def test_escape_directive_only_counts_before_any_other_line():
    facts = parse("# About this file.\n# escape=x\nFROM debian\nRUN echo a\\\n  b\n")
    assert only(facts, "RUN")[0].args == "echo a b"  # a plain comment: no error, backslash still continues


# Each case is built so that BuildKit fails to parse it unless it reads the same heredocs: a heredoc it
# saw but we did not would be unterminated, one we saw but it did not leaves body lines that are not
# instructions. Checked against BuildKit by test_heredoc_markers_agree_with_buildkit.
HEREDOC_MARKERS = [
    # (id, Dockerfile text after FROM, heredoc names)
    ("double-quoted", 'RUN echo "a <<EOF b"\n', ()),
    ("single-quoted-dash", "RUN echo 'c <<-EOF d' && true\n", ()),
    ("quote-spans-continuation", 'RUN echo "a \\\n  <<EOF b"\n', ()),
    ("escaped-quote-glued", 'RUN echo \\"<<EOF\n', ()),
    ("glued-to-a-word", "RUN echo a<<EOF\n", ()),
    ("unquoted", "RUN cat <<EOF\nhi\nEOF\n", ("EOF",)),
    ("after-quoted-one", 'RUN echo "<<X" && cat <<EOF\nhi\nEOF\n', ("EOF",)),
    ("quoted-word", "RUN cat <<'EOF' <<-\"TAB\"\nhi\nEOF\n\tTAB\n", ("EOF", "TAB")),
    ("partly-quoted-word", 'RUN cat <<E"O"F\nhi\nEOF\n', ("EOF",)),
    ("file-descriptor", "RUN cat 0<<EOF\nhi\nEOF\n", ("EOF",)),
    ("word-is-the-name", "RUN cat <<EOF; true\nhi\nEOF;\n", ("EOF;",)),  # BuildKit does not split at ';'
    ("after-hash", "RUN echo hi # <<EOF\nEOF\n", ("EOF",)),  # a '#' mid-line is shell text, not a comment
    ("split-by-continuation", "RUN cat <<\\\nEOF\nhi\nEOF\n", ("EOF",)),  # joined without a blank
]


@pytest.mark.parametrize(("text", "names"), [c[1:] for c in HEREDOC_MARKERS], ids=[c[0] for c in HEREDOC_MARKERS])
def test_only_unquoted_heredoc_words_start_heredocs(text, names):
    facts = parse("FROM debian\n" + text)
    assert tuple(doc.name for ins in facts.instructions for doc in ins.heredocs) == names
    assert facts.instructions[-1].args == "python tools/prefetch_venvs.py some.Filter"


# ---- stages -----------------------------------------------------------------------------------


def test_stages_with_platform_flag_names_and_indexes():
    facts = parse("""\
        ARG BASE=debian
        FROM --platform=$BUILDPLATFORM ${BASE} AS Build
        RUN make
        FROM build
        FROM scratch as final
        COPY --from=build /out /
        """)
    assert [(s.name, s.position, s.base, s.line) for s in facts.stages] == [
        ("build", 0, "${BASE}", 2),
        (None, 1, "build", 4),
        ("final", 2, "scratch", 5),
    ]
    assert facts.instructions[1].flags == {"platform": ("$BUILDPLATFORM",)}
    assert [i.keyword for i in facts.stage("build").instructions] == ["FROM", "RUN"]
    assert facts.stage("1").instructions[0].stage == "1"
    assert facts.stage("FINAL").position == 2
    assert facts.instructions[0].stage is None  # the global ARG
    with pytest.raises(KeyError):
        facts.stage("missing")


# ---- ARG --------------------------------------------------------------------------------------


def test_args_global_and_per_stage_with_defaults_and_quotes():
    facts = parse("""\
        ARG BASE_IMAGE
        ARG UV_VERSION=0.11.33
        FROM ${BASE_IMAGE} AS base
        ARG BASE_IMAGE
        ARG TORCH_CUDA_ARCH_LIST="9.0 10.0" NVTE_CUDA_ARCHS="90;100" EMPTY=
        ARG SINGLE='a b' ESCAPED=a\\ b
        """)
    assert facts.args == (
        Arg("BASE_IMAGE", None, None, 1, ""),
        Arg("UV_VERSION", "0.11.33", None, 2, ""),
        Arg("BASE_IMAGE", None, "base", 4, ""),
        Arg("TORCH_CUDA_ARCH_LIST", "9.0 10.0", "base", 5, ""),
        Arg("NVTE_CUDA_ARCHS", "90;100", "base", 5, ""),
        Arg("EMPTY", "", "base", 5, ""),
        Arg("SINGLE", "a b", "base", 6, ""),
        Arg("ESCAPED", "a b", "base", 6, ""),
    )


def test_arg_comment_block_is_the_consecutive_comment_lines_directly_above():
    facts = parse("""\
        # Detached by the blank line below.

        # First line of the block,
        #second line without a space.
        #
        #   indented text keeps its indent
        ARG DOCUMENTED=1
        ARG UNDOCUMENTED=2
        FROM debian
        # Per-stage comment.
        ARG IN_STAGE
        """)
    documented, undocumented, in_stage = facts.args
    assert documented.comment == (
        "First line of the block,\nsecond line without a space.\n\n  indented text keeps its indent"
    )
    assert undocumented.comment == ""
    assert in_stage.comment == "Per-stage comment."


# ---- ENV --------------------------------------------------------------------------------------


def test_env_several_keys_quoted_values_and_legacy_form():
    facts = parse("""\
        FROM debian AS base
        ENV A=1 B="x y" \\
            C=
        ENV LEGACY some value
        ENV PATH=/opt/bin:$PATH
        """)
    assert facts.envs == (
        EnvVar("A", "1", "base", 2),
        EnvVar("B", "x y", "base", 2),
        EnvVar("C", "", "base", 2),
        EnvVar("LEGACY", "some value", "base", 4),
        EnvVar("PATH", "/opt/bin:$PATH", "base", 5),
    )


def test_envs_of_follows_from_stage_chain_and_later_keys_win():
    facts = parse("""\
        FROM debian AS base
        ENV A=base B=base
        FROM base AS middle
        ENV B=middle C=middle
        FROM middle
        ENV C=leaf
        FROM debian AS unrelated
        ENV D=1
        """)
    effective = {e.key: (e.value, e.stage) for e in facts.envs_of("2")}
    assert effective == {"A": ("base", "base"), "B": ("middle", "middle"), "C": ("leaf", "2")}
    assert [e.key for e in facts.envs_of("unrelated")] == ["D"]
    assert facts.envs_of(facts.stage("base")) == facts.envs[:2]


# ---- flags ------------------------------------------------------------------------------------


def test_copy_and_add_flags_collect_repeated_values_and_bare_flags():
    facts = parse("""\
        FROM debian
        COPY --from=nemo-rl --exclude=.git --exclude=docs/** --link --chmod=0755 / /opt/nemo-rl/
        ADD --keep-git-dir=true https://example.invalid/r.git#main /src
        COPY a --link b
        """)
    copy, plain = only(facts, "COPY")
    assert copy.flags == {"from": ("nemo-rl",), "exclude": (".git", "docs/**"), "link": ("",), "chmod": ("0755",)}
    assert copy.args.startswith("--from=nemo-rl ")  # flags stay in args
    assert only(facts, "ADD")[0].flags == {"keep-git-dir": ("true",)}
    assert plain.flags == {}  # only flags before the first argument count


def test_run_mount_flags_may_span_continuation_lines():
    facts = parse("""\
        FROM debian
        RUN --mount=type=cache,target=/root/.cache/uv,sharing=locked \\
            --mount=type=bind,from=nemo-rl,target=/src \\
            --network=none \\
            make
        """)
    run = only(facts, "RUN")[0]
    assert run.flags == {
        "mount": ("type=cache,target=/root/.cache/uv,sharing=locked", "type=bind,from=nemo-rl,target=/src"),
        "network": ("none",),
    }


# ---- uv sync warm-ups -------------------------------------------------------------------------


def test_warm_syncs_in_heredoc_with_extras_flags_and_trailing_comments():
    facts = parse("""\
        FROM debian AS builder
        RUN <<"EOF" bash -exu -o pipefail
        # uv sync --extra commented-out is not a command
        uv sync ${UV_SYNC_MODE} --no-install-project   # base venv
        uv sync --extra vllm --extra=fsdp --frozen # two extras
        cd /x && uv sync --all-groups && echo "uv sync --extra inside-quotes"
        uv sync \\
            --extra mcore \\
            --locked  # after a continuation
        EOF
        """)
    assert facts.warm_syncs == (
        WarmSync((), ("${UV_SYNC_MODE}", "--no-install-project"), "base venv", 4, "builder"),
        WarmSync(("vllm", "fsdp"), ("--frozen",), "two extras", 5, "builder"),
        WarmSync((), ("--all-groups",), "", 6, "builder"),
        WarmSync(("mcore",), ("--locked",), "after a continuation", 7, "builder"),
    )


def test_trailing_comment_after_blanks_in_a_heredoc_script():
    """Line 151 of the image's Dockerfile: code, a run of blanks, a comment. CPython before 3.11.5 gave a
    possessive repeat's match back one character short, so the reader took the blank before `#` for an open
    quote ("cannot split shell command: No closing quotation"); the reader must read it on any 3.11."""
    facts = parse("""\
        FROM debian
        RUN <<"EOF" bash -exu -o pipefail
        uv sync ${UV_SYNC_MODE} --no-install-project                    # base deps: torch, ray, ... shared by every venv
        uv sync ${UV_SYNC_MODE} --no-install-project --extra vllm       # vllm wheel, deep_gemm/deep_ep builds
        find /opt/uv_cache -type f -name '*.lock' -perm /go=w -exec chmod go-w {} +
        EOF
        """)
    assert [(w.extras, w.comment, w.line) for w in facts.warm_syncs] == [
        ((), "base deps: torch, ray, ... shared by every venv", 3),
        (("vllm",), "vllm wheel, deep_gemm/deep_ep builds", 4),
    ]


def test_the_image_dockerfile_reads_its_warm_steps():
    facts = read_dockerfile(REAL_DOCKERFILE)
    assert [w.extras for w in facts.warm_syncs if w.extras] == [
        ("vllm",), ("fsdp",), ("automodel",), ("mcore",), ("modelopt",), ("nemo_gym",)]
    assert all(w.comment for w in facts.warm_syncs)


def test_warm_sync_in_plain_run_reports_the_physical_line_of_uv_sync():
    facts = parse("""\
        FROM debian
        RUN --mount=type=cache,target=/c \\
            # a Dockerfile comment inside the run
            cd /opt/nemo-rl && \\
            uv sync --extra vllm
        RUN ["uv", "sync", "--extra", "exec-form-is-not-shell"]
        """)
    assert facts.warm_syncs == (WarmSync(("vllm",), (), "", 5, "0"),)


def test_heredocs_fed_to_other_programs_are_not_shell():
    facts = parse("""\
        FROM debian
        RUN python3 <<EOF
        for actor in ACTORS:
            print(actor)
        EOF
        RUN cat <<EOF > /etc/notes
        uv sync --extra not-a-command
        EOF
        RUN /bin/sh <<EOF
        uv sync --extra real
        EOF
        """)
    assert facts.verify is None
    assert [w.extras for w in facts.warm_syncs] == [("real",)]


def test_hash_inside_quotes_is_not_a_comment():
    facts = parse("FROM debian\nRUN uv sync --extra vllm --python '3.13#x' # real\n")
    assert facts.warm_syncs[0].comment == "real"
    assert facts.warm_syncs[0].flags == ("--python",)


# ---- prefetch call, verification loop ---------------------------------------------------------


def test_prefetch_call_filters_one_per_continuation_line_and_negative_filters():
    facts = parse(
        """\
        FROM debian
        RUN <<"EOF" bash -exu -o pipefail
        echo start
        uv run --locked python tools/prefetch_venvs.py \\
            vllm.vllm_worker \\
            nemo_gym.NemoGym \\
            --negative-filters async_utils sglang \\
            && echo done
        EOF
        """,
        tail=False,
    )
    assert facts.prefetch == PrefetchCall(("vllm.vllm_worker", "nemo_gym.NemoGym"), ("async_utils", "sglang"), 4,
                                          filter_lines=(5, 6), script="tools/prefetch_venvs.py", stage="0")
    assert facts.prefetch_calls == (facts.prefetch,) and facts.gym_prefetch == ()


def test_verify_loop_spanning_continuation_lines():
    facts = parse("""\
        FROM debian
        RUN <<EOF
        for actor in \\
            a.B \\
            c.D; do
            test -d "/opt/ray_venvs/${actor}"
        done
        EOF
        """)
    assert facts.verify == VerifyList(("a.B", "c.D"), 3)
    assert parse("FROM debian\n").verify is None


# ---- comment conventions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("comment", "counts"),
    [
        ("# Eight filters -> nine venvs.", ((8, "filters"), (9, "venvs"))),
        ("# 8 filter -> 9 venv", ((8, "filters"), (9, "venvs"))),
        ("#   Prefetch: TWENTY actors -> zero builds -> 3 venvs (shared)", ((20, "actors"), (0, "builds"), (3, "venvs"))),
        ("# eight filters->nine venvs", ((8, "filters"), (9, "venvs"))),
        ("# ONE filter->TWO filters", ((1, "filters"), (2, "filters"))),
        ("# x-one filters -> 2 venvs", ((1, "filters"), (2, "venvs"))),  # a number ending a hyphenated word
        ("# Eight filters  \t-> nine venvs  ", ((8, "filters"), (9, "venvs"))),  # blanks before the arrow and at the end
        ("# 8 filters -> 9 venvs)", ((8, "filters"), (9, "venvs"))),  # after the last arrow, only the start counts
        ("# 8 fil_ters-x -> 9 venvs", ((8, "fil_ters-xs"), (9, "venvs"))),
        ("#\u00a0Eight\u2003filters\u00a0->\u3000nine venvs", ((8, "filters"), (9, "venvs"))),  # Unicode blanks
    ],
)
def test_count_statements(comment, counts):
    facts = parse("FROM debian\n" + comment + "\nRUN true\n")
    assert facts.counts == (CountStatement(counts, comment.lstrip("# ").strip(), 2),)


@pytest.mark.parametrize(
    "comment",
    [
        "# Eight filters, nine venvs.",  # no arrow
        "# filters -> venvs",  # no numbers
        "# 8 filters -> many venvs",  # right side is not a pair
        "# twentyone filters -> 9 venvs",  # not a number word
        "# 8 filters -> 9 venvs and 3 builds -> 2 images",  # middle is not exactly one pair
        "# see: 8 filters. -> 9 venvs",  # before an arrow, the noun must end the text
        "# 8 _filters -> 9 venvs",  # a noun starts with a letter
        "# 10one filters -> 9 venvs",  # no number word inside another word
        "# a 8 filters -> 9 venvs -> 2",  # the last arrow has no pair after it
        "# \u017feven filters -> 2 venvs",  # long s: case-insensitive matching folds it to "seven"
        "# e\u0131ght filters -> 2 venvs",  # dotless i, folded the same way
        "# " + "9" * 5000 + " filters -> 2 venvs",  # past the digits int() converts
    ],
)
def test_comments_that_are_not_count_statements(comment):
    assert parse("FROM debian\n" + comment + "\n").counts == ()


def test_not_prefetched_block_with_both_reason_forms_ends_at_other_comment():
    facts = parse("""\
        FROM debian
        # Not prefetched (built on first use):
        #   nemo_rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker: sglang backend not built
        #   nemo_rl.algorithms.async_utils.ReplayBuffer - async bookkeeping actor
        #   nemo_rl.x.NoReason
        # Back to prose, not an entry.
        #   nemo_rl.after.TheBlock: ignored
        RUN true
        """)
    assert facts.not_prefetched == NotPrefetchedList(
        (
            ("nemo_rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker", "sglang backend not built"),
            ("nemo_rl.algorithms.async_utils.ReplayBuffer", "async bookkeeping actor"),
            ("nemo_rl.x.NoReason", ""),
        ),
        2,
    )


def test_not_prefetched_block_inside_heredoc_ends_at_non_comment_line():
    facts = parse("FROM debian\nRUN <<EOF\n# Not prefetched:\n#   a.B: why\ntrue\n#   c.D: after\nEOF\n")
    assert facts.not_prefetched == NotPrefetchedList((("a.B", "why"),), 3)
    assert parse("FROM debian\n").not_prefetched is None


# ---- the facts are frozen values --------------------------------------------------------------


def test_facts_are_frozen_and_use_tuples():
    facts = read_dockerfile(EIGHT_FILTERS)
    with pytest.raises(AttributeError):
        facts.args = ()  # type: ignore[misc]
    for value in (facts.instructions, facts.stages, facts.args, facts.envs, facts.warm_syncs, facts.counts):
        assert isinstance(value, tuple)
    assert all(isinstance(v, tuple) for ins in facts.instructions for v in ins.flags.values())


# ---- errors: a corpus of broken Dockerfiles ---------------------------------------------------

P = "RUN python tools/prefetch_venvs.py a.B\n"  # for errors found after the prefetch call is read
BROKEN = [
    # (id, text, line, message fragment)
    ("unterminated-heredoc", "FROM d\nRUN echo a \\\n  <<EOF bash\necho\n", 3, "never terminated"),
    ("continuation-at-eof", "FROM d\nRUN echo a \\\n", 2, "end of file"),
    ("continuation-then-comments-at-eof", "FROM d\nRUN echo \\\n# c\n\n", 2, "end of file"),
    ("run-before-from", "ARG A=1\n\nRUN true\nFROM d\n", 3, "before the first FROM"),
    ("empty-file", "", None, "no FROM instruction"),
    ("only-args", "# syntax=docker/dockerfile:1\nARG A=1\n", 2, "no FROM instruction"),
    ("unknown-keyword", "FROM d\nRUNN true\n", 2, "unknown instruction 'RUNN'"),
    ("invalid-escape-directive", "# syntax=docker/dockerfile:1\n# escape=x\nFROM d\n", 2, "invalid escape token 'x'"),
    ("repeated-escape-directive", "# escape=`\n# escape=`\nFROM d\n", 2, "only one escape parser directive"),
    ("backslash-under-backtick-escape", "# escape=`\nFROM d\nRUN echo a \\\n  b\n", 4, "unknown instruction 'B'"),
    ("backtick-continuation-at-eof", "# escape=`\nFROM d\nRUN echo a `\n", 3, "line continuation '`' at end of file"),
    ("open-quote-hides-heredoc", 'FROM d\nRUN echo "a <<EOF\nEOF\n', 3, "unknown instruction 'EOF'"),
    ("from-without-image", "FROM d\n\nFROM --platform=linux/amd64\n", 3, "FROM without an image"),
    ("as-without-name", "FROM d AS\n", 1, "without a stage name"),
    ("from-extra-words", "FROM d AS x y\n", 1, "image [AS name]"),
    ("duplicate-stage", "FROM d AS a\nFROM e as A\n", 2, "duplicate stage name 'a'"),
    ("arg-without-name", "ARG\nFROM d\n", 1, "ARG without a name"),
    ("arg-only-default", "FROM d\nARG =x\n", 2, "ARG without a name"),
    ("arg-bad-quote", "FROM d\nARG X=\"open\n", 2, "cannot split"),
    ("env-no-value-legacy", "FROM d\nENV KEY\n", 2, "with no value"),
    ("env-empty", "FROM d\nENV\n", 2, "with no value"),
    ("env-mixed-forms", "FROM d\nENV A=1 B\n", 2, "KEY=VALUE"),
    ("uv-sync-extra-without-value", "FROM d\nRUN <<EOF\nuv sync --extra\nEOF\n", 3, "--extra without a value"),
    ("uv-sync-extra-then-flag", "FROM d\nRUN uv sync --extra --frozen\n", 2, "--extra without a value"),
    ("uv-sync-empty-extra", "FROM d\nRUN uv sync --extra= --frozen\n", 2, "--extra without a value"),
    ("uv-sync-bad-quote", "FROM d\nRUN <<EOF\necho ok\nuv sync --extra 'vllm\nEOF\n", 4, "cannot split shell command"),
    (
        "prefetch-bad-quote",
        "FROM d\nRUN <<EOF\npython prefetch_venvs.py \\\n  \"a.B\nEOF\n",
        3,
        "cannot split shell command",
    ),
    ("for-bad-quote", "FROM d\n" + P + "RUN <<EOF\nfor actor in 'a; do\ndone\nEOF\n", 4, "cannot split shell command"),
]


@pytest.mark.parametrize(("text", "line", "fragment"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_dockerfiles_raise_input_error_at_the_right_line(text, line, fragment):
    with pytest.raises(InputError) as caught:
        parse_dockerfile(text, "bad.Dockerfile")
    assert (caught.value.path, caught.value.line) == ("bad.Dockerfile", line)
    assert fragment in caught.value.message
    where = "bad.Dockerfile" if line is None else f"bad.Dockerfile:{line}"
    assert str(caught.value).startswith(where + ": ")


# Text BuildKit parses but the image's conventions do not fit: read, with the convention's fact empty or a
# note (which `docgen lint` reports with its line), never an error. (id, text, check on the facts)
TOLERATED = [
    ("no-prefetch", "FROM d\nRUN true\n# last line\n", lambda f: f.prefetch is None and f.prefetch_calls == ()),
    ("byte-order-mark", "\ufeff# syntax=docker/dockerfile:1\nFROM d\n",
     lambda f: f.syntax_directive == 1 and [i.keyword for i in f.instructions] == ["FROM"]),
    ("prefetch-only-in-comment", "FROM d\nRUN <<EOF\n# python prefetch_venvs.py a\nEOF\n", lambda f: f.prefetch is None),
    ("two-prefetch-calls", "FROM d\nRUN python prefetch_venvs.py a\nRUN <<EOF\necho\npython prefetch_venvs.py b\nEOF\n",
     lambda f: [(c.filters, c.line) for c in f.prefetch_calls] == [(("a",), 2), (("b",), 5)] and f.prefetch.line == 2),
    ("prefetch-without-filters", "FROM d\nRUN python tools/prefetch_venvs.py --negative-filters x\n",
     lambda f: f.prefetch.filters == () and f.prefetch.negative_filters == ("x",)),
    ("two-verify-loops", "FROM d\n" + P + "RUN <<EOF\nfor actor in a.B; do true; done\nfor actor in b.C a.B; do true; done\nEOF\n",
     lambda f: f.verify == VerifyList(("a.B", "b.C"), 4) and [(n.line, n.check) for n in f.notes] == [(5, "verify-list")]),
    ("not-prefetched-bad-entry", "FROM d\n" + P + "# Not prefetched:\n#   a.B (why)\n",
     lambda f: f.not_prefetched.actors == (("a.B", "why"),) and [n.line for n in f.notes] == [4]),
    ("not-prefetched-empty", "FROM d\n" + P + "# Not prefetched:\nRUN true\n",
     lambda f: f.not_prefetched == NotPrefetchedList((), 3) and [n.line for n in f.notes] == [3]),
    ("two-not-prefetched-blocks", "FROM d\n" + P + "# Not prefetched:\n#   a.B: x\n\n# Not prefetched:\n#   c.D: y\n",
     lambda f: f.not_prefetched.actors == (("a.B", "x"), ("c.D", "y")) and [n.line for n in f.notes] == [6]),
    ("not-prefetched-prose", "FROM d\n" + P + "# NOT prefetched: sglang, trtllm, MegatronValueWorker /\n"
     "#   DTensorValueWorkerV2 (GRPO is critic-free) and the async bookkeeping actors\nRUN true\n",
     lambda f: f.not_prefetched == NotPrefetchedList((), 3, "sglang, trtllm, MegatronValueWorker / DTensorValueWorkerV2 "
                                                           "(GRPO is critic-free) and the async bookkeeping actors")
     and f.notes == ()),
    ("gym-prefetch-beside-actor-prefetch", "FROM d\nARG CONFIGS=\"\"\nRUN <<EOF\nuv run python nemo_rl/utils/prefetch_venvs.py a.B\n"
     "if [ -n \"${CONFIGS:-}\" ]; then\n  uv run python examples/nemo_gym/prefetch_venvs.py ${CONFIGS}\nfi\nEOF\n",
     lambda f: [c.filters for c in f.prefetch_calls] == [("a.B",)]
     and [(g.script, g.args, g.arg_refs, g.line, g.guards) for g in f.gym_prefetch]
     == [("examples/nemo_gym/prefetch_venvs.py", ("${CONFIGS}",), ("CONFIGS",), 6, ('[ -n "${CONFIGS:-}" ]',))]),
]


@pytest.mark.parametrize(("text", "check"), [t[1:] for t in TOLERATED], ids=[t[0] for t in TOLERATED])
def test_conventions_that_do_not_fit_are_read_without_an_error(text, check):
    assert check(parse_dockerfile(text, "odd.Dockerfile"))


def test_broken_corpus_is_broad_enough():
    assert len(BROKEN) >= 12 and len({b[0] for b in BROKEN}) == len(BROKEN)


def test_lines_end_at_newline_only():
    # Docker splits lines at "\n" (a trailing "\r" dropped); str.splitlines would also split at form
    # feeds and Unicode line separators, shifting every later line number or cutting a comment in two.
    text = ("FROM debian\n# a comment\u2028with a line separator\n# and a \x0c form feed\r\n"
            "RUN <<EOF bash\n# body \x1c comment\nuv sync --extra vllm\nEOF\n"
            "RUN python tools/prefetch_venvs.py some.Filter\n")
    facts = parse_dockerfile(text, "t.Dockerfile")
    assert [(i.keyword, i.start_line) for i in facts.instructions] == [("FROM", 1), ("RUN", 4), ("RUN", 8)]
    assert [(w.extras, w.line) for w in facts.warm_syncs] == [(("vllm",), 6)]
    assert facts.prefetch.line == 8


def test_read_dockerfile_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "Dockerfile"
    path.write_bytes(b"FROM debian\n# caf\xe9\n")
    with pytest.raises(InputError) as caught:
        read_dockerfile(path)
    assert caught.value.line == 2 and "UTF-8" in caught.value.message


def test_read_dockerfile_missing_file_is_input_error(tmp_path):
    with pytest.raises(InputError) as caught:
        read_dockerfile(tmp_path / "absent.Dockerfile")
    assert caught.value.line is None and "cannot read" in caught.value.message


# ---- the realistic fixture --------------------------------------------------------------------

EIGHT_FILTER_NAMES = (
    "dtensor_policy_worker.DTensorPolicyWorker",
    "dtensor_policy_worker_v2.DTensorPolicyWorkerV2",
    "megatron_policy_worker.MegatronPolicyWorker",
    "vllm.vllm_worker",
    "sync_rollout_actor.SyncRolloutActor",
    "nemo_gym.NemoGym",
    "nemo_gym_actor.SandboxedGymActor",
    "broker_actor.SandboxEpisodeBrokerActor",
)
# The fixture's verification loop, read as plain words (the names between `for actor in` and `; do`), and the
# venvs its filters give by the stand-in's rules: the reader must return the first, which must be the second.
NINE_VERIFIED = tuple(EIGHT_FILTERS.read_text().split("for actor in", 1)[1].split("; do", 1)[0].replace("\\", " ").split())
QUANT = "quantization worker, builds on first use"
NOT_PREFETCHED = (
    ("nemo_rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker", "sglang backend not built"),
    ("nemo_rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2", "critic-free value worker"),
    ("nemo_rl.models.value.workers.megatron_value_worker.MegatronValueWorker", "critic-free value worker"),
    ("nemo_rl.models.generation.trtllm.trtllm_worker_async.TrtllmAsyncGenerationWorker", "trtllm backend not built"),
    ("nemo_rl.algorithms.async_utils.AsyncTrajectoryCollector", "async bookkeeping actor"),
    ("nemo_rl.algorithms.async_utils.ReplayBuffer", "async bookkeeping actor"),
    ("nemo_rl.modelopt.models.generation.vllm_quant_worker.VllmQuantGenerationWorker", QUANT),
    ("nemo_rl.modelopt.models.generation.vllm_quant_worker.VllmQuantAsyncGenerationWorker", QUANT),
    ("nemo_rl.modelopt.models.policy.workers.dtensor_quant_policy_worker.DTensorQuantPolicyWorker", QUANT),
    ("nemo_rl.modelopt.models.policy.workers.dtensor_quant_policy_worker_v2.DTensorQuantPolicyWorkerV2", QUANT),
    ("nemo_rl.modelopt.models.policy.workers.megatron_quant_policy_worker.MegatronQuantPolicyWorker", QUANT),
)


def test_fixture_stages_and_args():
    facts = read_dockerfile(EIGHT_FILTERS)
    assert facts.path == str(EIGHT_FILTERS)
    assert facts.syntax_directive is None
    assert [(s.name, s.position, s.base) for s in facts.stages] == [
        ("nemo-rl", 0, "scratch"),
        ("base", 1, "${BASE_IMAGE}"),
        ("builder", 2, "base"),
        ("nmp-rl-base", 3, "base"),
    ]
    nemo_rl = facts.stage("nemo-rl").instructions
    assert nemo_rl[-1].keyword == "ADD" and nemo_rl[-1].args.endswith("${NEMO_RL_REPO}#${NEMO_RL_REF} /")
    assert [(a.name, a.default, a.stage) for a in facts.args] == [
        ("BASE_IMAGE", "nvcr.io/nvidia/cuda-dl-base:25.05-cuda12.9-devel-ubuntu24.04", None),
        ("NEMO_RL_REPO", "https://github.com/soluwalana/RL.git", None),
        ("NEMO_RL_REF", "nmp/customizer", None),
        ("NEMO_RL_REPO", None, "nemo-rl"),
        ("NEMO_RL_REF", None, "nemo-rl"),
        ("UV_VERSION", "0.11.33", "base"),
        ("PYTHON_VERSION", "3.13.14", "base"),
        ("NVTE_CUDA_ARCHS", "90;100", "builder"),
        ("TORCH_CUDA_ARCH_LIST", "9.0 10.0", "builder"),
        ("NVTE_BUILD_MAX_JOBS", "8", "builder"),
        ("NVTE_BUILD_THREADS_PER_JOB", "2", "builder"),
        ("NVTE_FRAMEWORK", "pytorch", "builder"),
        ("UV_SYNC_MODE", "--frozen", "builder"),
        ("RUNTIME_UID", "1000", "nmp-rl-base"),
        ("RUNTIME_GID", "1000", "nmp-rl-base"),
    ]
    by_name = {a.name: a for a in facts.args if a.default is not None}
    assert by_name["BASE_IMAGE"].comment == "CUDA devel image every stage starts from."
    assert by_name["NVTE_BUILD_THREADS_PER_JOB"].comment == "Parallel Transformer-Engine compile jobs,\nand threads per job."
    assert all(by_name[n].comment for n in by_name), "every ARG with a default is documented in the fixture"


def test_fixture_envs():
    facts = read_dockerfile(EIGHT_FILTERS)
    base = {e.key: e.value for e in facts.envs_of("base")}
    assert base == {
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0",
        "NRL_CONTAINER": "1",
        "NEMO_RL_VENV_DIR": "/opt/ray_venvs",
        "NEMO_GYM_VENV_DIR": "/opt/gym_venvs",
    }
    final = {e.key: e.value for e in facts.envs_of("nmp-rl-base")}
    assert final == base | {"UV_CACHE_DIR": "/opt/uv_cache", "UV_LINK_MODE": "symlink"}
    assert facts.envs_of("nemo-rl") == ()


def test_fixture_shell_facts():
    facts = read_dockerfile(EIGHT_FILTERS)
    warm = [(w.extras, w.flags, w.stage) for w in facts.warm_syncs]
    mode = "${UV_SYNC_MODE}"
    assert warm == [((), ("--no-install-project", mode), "builder")] + [
        ((extra,), ("--no-install-project", mode), "builder")
        for extra in ("vllm", "fsdp", "automodel", "mcore", "modelopt", "nemo_gym")
    ] + [((), ("--all-groups", mode), "builder")]
    assert all(w.comment for w in facts.warm_syncs)
    assert [w.line for w in facts.warm_syncs] == list(range(facts.warm_syncs[0].line, facts.warm_syncs[0].line + 8))
    assert facts.prefetch.filters == EIGHT_FILTER_NAMES and facts.prefetch.negative_filters == ()
    assert facts.verify is not None and facts.verify.actors == NINE_VERIFIED
    assert set(NINE_VERIFIED) == set(Truth(EIGHT_FILTERS).prefetched_venvs), "the fixture verifies other venvs"
    assert [c.counts for c in facts.counts] == [((8, "filters"), (9, "venvs"))]
    assert facts.not_prefetched is not None and facts.not_prefetched.actors == NOT_PREFETCHED


def test_fixture_lines_point_at_the_text():
    facts = read_dockerfile(EIGHT_FILTERS)
    lines = EIGHT_FILTERS.read_text().splitlines()
    assert "prefetch_venvs.py" in lines[facts.prefetch.line - 1]
    assert lines[facts.verify.line - 1].startswith("for actor in")
    assert lines[facts.counts[0].line - 1] == "# Eight filters -> nine venvs."
    assert lines[facts.not_prefetched.line - 1].startswith("# Not prefetched")
    for sync in facts.warm_syncs:
        assert "uv sync" in lines[sync.line - 1] and sync.comment in lines[sync.line - 1]
    for arg in facts.args:
        assert lines[arg.line - 1].startswith("ARG ") and arg.name in lines[arg.line - 1]
    for stage in facts.stages:
        assert lines[stage.line - 1].startswith("FROM ")
    for ins in facts.instructions:
        assert lines[ins.start_line - 1].split()[0] == ins.keyword
        for doc in ins.heredocs:
            assert lines[doc.start_line - 2].rstrip().endswith(("<<\"EOF\" bash -exu -o pipefail", "sharing=locked"))
            assert lines[ins.end_line - 1] == doc.name


# ---- the project's real Dockerfile (written elsewhere) ----------------------------------------


@pytest.mark.skipif(not REAL_DOCKERFILE.exists(), reason="Dockerfile.nmp-rl-base not written yet")
def test_real_dockerfile_parses_with_eight_filters_and_nine_verified_actors():
    facts = read_dockerfile(REAL_DOCKERFILE)
    assert facts.syntax_directive is None, "a '# syntax=' line needs a registry; the project forbids it"
    assert len(facts.prefetch.filters) == 8
    assert facts.verify is not None and len(facts.verify.actors) == 9


# ARG values as BuildKit reads them: the escape directive's character escapes in instruction words (a
# backslash is then an ordinary character), and in double quotes it escapes only `"`, `$` and itself.
ARG_VALUES = [
    ("", "ARG V=C:\\tools\\uv", "C:toolsuv"),
    ("", 'ARG V="a\\`b"', "a\\`b"),
    ("", 'ARG V="c\\$d\\\\e\\"f\\g"', 'c$d\\e"f\\g'),
    ("# escape=`\n", "ARG V=C:\\tools\\uv", "C:\\tools\\uv"),
    ("# escape=`\n", 'ARG V="a`"b\\c"', 'a"b\\c'),
    ("# escape=`\n", "ARG V=x`y", "xy"),
    ("# escape=`\n", 'ARG V="p`$q``r`s"', "p$q`r`s"),
    ("# escape=`\n", "ARG V='s`q'", "s`q"),
]
_ARG_IDS = ["unquoted-backslashes", "dq-backslash-backtick", "dq-backslash-escapes", "backtick-windows-path",
            "backtick-dq-quote", "backtick-unquoted", "backtick-dq-escapes", "backtick-single-quotes"]


@pytest.mark.parametrize(("directive", "line", "value"), ARG_VALUES, ids=_ARG_IDS)
def test_arg_values_are_unescaped_with_the_dockerfiles_escape_character(directive, line, value):
    facts = parse_dockerfile(directive + "FROM scratch\n" + line + "\n" + PREFETCH_TAIL, "t.Dockerfile")
    assert [(a.name, a.default) for a in facts.args] == [("V", value)]


def test_backtick_fixture_facts():
    facts = read_dockerfile(BACKTICK_ESCAPE)
    assert [(a.name, a.default, a.stage, a.line) for a in facts.args] == [
        ("BASE_IMAGE", "debian:trixie-slim", None, 6),
        ("UV_VERSION", "0.11.33", None, 8),
        ("EXTRAS", "vllm fsdp", None, 8),
        ("UV_VERSION", None, "base", 12),
        ("VENV_DIR", "/opt/ray_venvs", "base", 14),
        ("EXTRAS", None, "builder", 20),
    ]
    assert {e.key: e.value for e in facts.envs_of("final")} == {"NEMO_RL_VENV_DIR": "/opt/ray_venvs", "UV_LINK_MODE": "copy"}
    assert {e.key: e.raw for e in facts.envs_of("final")} == {"NEMO_RL_VENV_DIR": "${VENV_DIR}", "UV_LINK_MODE": None}
    assert [(w.extras, w.line) for w in facts.warm_syncs] == [(("vllm",), 24), (("fsdp",), 26)]
    assert facts.prefetch == PrefetchCall(("vllm.vllm_worker", "nemo_gym.NemoGym"), (), 28, filter_lines=(29, 30),
                                          script="tools/prefetch_venvs.py", stage="builder")
    assert [ins.heredocs for ins in facts.instructions if ins.keyword == "RUN"][0] == ()  # the quoted <<EOF


# ---- huge inputs: every scan is linear (bench/dockerfile_reader.py times them) -----------------------


@pytest.mark.timeout(120)  # a guard against a quadratic scan coming back, not a timing assertion
def test_huge_arg_values_and_backtick_lines_are_read_whole():
    ten_mb = "a" * 10_000_000
    facts = parse_dockerfile(f"FROM d\nARG X={ten_mb}\nARG Y=\"{'b c' * 300_000}\"\n" + PREFETCH_TAIL, "big")
    assert [(a.name, len(a.default), a.line) for a in facts.args] == [("X", 10_000_000, 2), ("Y", 900_000, 3)]
    ticks = "`" * 2_000_000
    for text in (f"FROM d\nRUN echo {ticks}\n", f"# escape=`\nFROM d\nRUN echo {ticks}\n   && true\n",
                 f"FROM d\nRUN <<EOF\necho {ticks} # why\nuv sync --extra vllm  # warm\nEOF\n"):
        facts = parse_dockerfile(text + PREFETCH_TAIL, "big")
        runs = [ins for ins in facts.instructions if ins.keyword == "RUN"]
        assert len(runs) == 2 and ticks[:-1] in runs[0].args + "".join(d.body for d in runs[0].heredocs)  # ` escape: last one continues
    assert [(w.extras, w.comment) for w in facts.warm_syncs] == [(("vllm",), "warm")]


@pytest.mark.timeout(120)
def test_huge_filter_and_loop_lists_keep_their_lines():
    filters = [f"f{i}.A" for i in range(50_000)]
    text = ("FROM d\nRUN python tools/prefetch_venvs.py \\\n" + "".join(f"  {f} \\\n" for f in filters) + "  && true\n"
            "RUN for actor in " + " ".join(f"a{i}.B" for i in range(50_000)) + "; do true; done\n")
    facts = parse_dockerfile(text, "big")
    assert facts.prefetch.filters == tuple(filters)
    assert facts.prefetch.filter_lines == tuple(range(3, 3 + len(filters)))
    assert len(facts.verify.actors) == 50_000 and facts.verify.line == 3 + len(filters) + 1


def test_script_heredocs_and_multi_line_quotes_are_data_not_commands():
    facts = parse('''\
        FROM debian
        RUN <<"EOF" bash -eu
        cat > /etc/uv-notes.txt <<'NOTES'
        uv sync --extra sglang   (a note, not a command)
        for actor in not.A loop.B; do
        NOTES
        python3 -c '
        import sys  # inside a quote, and so is "this"
        print("uv sync --extra trtllm")
        '
        echo $((1<<2)) <<< "here string"
        uv sync --frozen --extra vllm  # the only warm step
        EOF
        ''')
    assert [(w.extras, w.comment, w.line) for w in facts.warm_syncs] == [(("vllm",), "the only warm step", 12)]
    assert facts.verify is None


def test_comment_lines_above_a_script_command_are_its_reason():
    facts = parse('''\
        FROM debian
        RUN <<"EOF" bash -eu
        # one
        # two

        # three
        uv pip install --python /opt/v/bin/python x==1
        EOF
        ''')
    assert [(p.reason, p.packages[0].name, p.packages[0].pin) for p in facts.pip_installs] == [("three", "x", "==1")]


# ---- any mix of the constructs: facts or InputError, never a traceback, through model, lint and renderers ----


_PIECES = [
    "FROM d AS b\n", "FROM b\n", "ARG A=1\n", "ARG B\n", "ENV X=1\n", "RUN <<EOF\n", "RUN <<-EOF bash\n", "EOF\n",
    "\tEOF\n", "uv sync --extra vllm # c\n", "uv sync\n", "python nemo_rl/utils/prefetch_venvs.py vllm.vllm_worker \\\n",
    "  nemo_gym \\\n", "python examples/nemo_gym/prefetch_venvs.py ${A}\n", "for actor in a.B c.D; do\n", "done\n",
    'if [ -n "$A" ]; then\n', "fi\n", "# Not prefetched:\n", "#   a.B: x\n", "# NOT prefetched: sglang\n",
    "# Two filters -> three venvs\n", "'\n", '"\n', "\\\n", "`\n", "# escape=`\n", "cat <<X\n", "X\n",
    "uv pip install --python /opt/nemo_rl_venv/bin/python x==1 -e .\n", "RUN echo 'a\n", "b'\n",
    "#   vllm.vllm_worker -> vllm (x)\n", "COPY --from=b <<EOF /x\n", "\n", "   \n", "WORKDIR /opt/nemo-rl\n",
    "ENV UV_PROJECT_ENVIRONMENT=/opt/nemo_rl_venv\n", "RUN --mount=type=cache,target=/x \\\n", "  uv sync --extra fsdp\n",
    "$((1<<2))\n", "<<<\n", 'ARG X="a b\n', "ENV Q\n", 'RUN ["a"]\n', "\ufeff", "# syntax=docker/dockerfile:1\n",
]


@pytest.fixture(scope="module")
def real_snapshot():
    return load_snapshot(Path(__file__).resolve().parents[2] / "snapshot" / "nemo-rl.json")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_PIECES), max_size=25))
def test_any_mix_reads_or_is_bad_input_never_a_traceback(real_snapshot, pieces):
    try:
        model = build_model(parse_dockerfile("".join(pieces), "mix.Dockerfile"), real_snapshot)
    except InputError as exc:
        assert exc.path == "mix.Dockerfile"
        return
    assert all(f.path == "mix.Dockerfile" and f.line is not None for f in lint(model)), "every finding has its line"
    inventory_text(model)
    json.dumps(model.inventory())
    for name in GENERATORS:
        try:
            assert render_block(name, {}, RenderInputs(model)).endswith("\n")
        except ArgError:
            pass  # a generator whose default arguments this model cannot satisfy (e.g. mcore-adds)


def test_warm_sync_comment_may_sit_on_the_lines_above():
    facts = parse('''\
        FROM debian
        RUN <<EOF
        # vLLM wheel and its
        # kernels
        uv sync --extra vllm
        uv sync --extra fsdp  # trailing wins
        # not about one sync
        uv sync --extra a && uv sync --extra b
        EOF
        ''')
    assert [(w.extras, w.comment) for w in facts.warm_syncs] == [
        (("vllm",), "vLLM wheel and its kernels"), (("fsdp",), "trailing wins"), (("a",), ""), (("b",), "")]


def test_only_loops_over_actor_names_are_the_verification_loop():
    facts = parse('''\
        FROM debian
        RUN for cfg in math.yaml code.yaml; do echo $cfg; done
        RUN for name in pkg.mod.ClassA pkg.other.ClassB; do test -d /v/$name; done
        ''')
    assert facts.verify == VerifyList(("pkg.mod.ClassA", "pkg.other.ClassB"), 3)


def test_prefetch_as_a_module_and_mentions_that_are_no_call():
    facts = parse('''\
        FROM debian
        RUN echo "next: run prefetch_venvs.py on the node" && echo prefetch_venvs
        RUN python -m nemo_rl.utils.prefetch_venvs vllm.vllm_worker && python -m nemo_gym.prefetch_venvs c.yaml
        ''', tail=False)
    assert [(c.script, c.filters, c.line) for c in facts.prefetch_calls] == [
        ("nemo_rl.utils.prefetch_venvs", ("vllm.vllm_worker",), 3)]
    assert [(g.script, g.args) for g in facts.gym_prefetch] == [("nemo_gym.prefetch_venvs", ("c.yaml",))]


def test_gym_call_guards_follow_if_elif_else_fi():
    facts = parse('''\
        FROM debian
        RUN <<EOF
        if [ -z "$A" ]; then
          echo none
        elif [ "$A" = all ]; then
          python examples/nemo_gym/prefetch_venvs.py all.yaml
        else
          python examples/nemo_gym/prefetch_venvs.py $A
        fi
        python examples/nemo_gym/prefetch_venvs.py after.yaml
        EOF
        ''')
    assert [g.guards for g in facts.gym_prefetch] == [('[ "$A" = all ]',), ('not ([ "$A" = all ])',), ()]


def test_redirections_end_the_words_of_a_command():
    facts = parse('''\
        FROM debian
        RUN uv sync --extra vllm >/tmp/sync.log 2>&1 && uv pip install --python /v/bin/python x==1 2> err.log
        RUN python nemo_rl/utils/prefetch_venvs.py a.B c.D 2>&1 | tee /tmp/prefetch.log
        ''', tail=False)
    assert [(w.extras, w.flags) for w in facts.warm_syncs] == [(("vllm",), ())]
    assert [r.name for p in facts.pip_installs for r in p.packages] == ["x"]
    assert facts.prefetch.filters == ("a.B", "c.D")


def test_uv_sync_extra_from_a_loop_variable_is_one_sync_per_word():
    facts = parse('''\
        FROM debian
        RUN <<EOF
        for extra in vllm fsdp; do
          uv sync --frozen --extra "${extra}"  # one extra at a time
        done
        for e in automodel mcore; do uv sync --extra $e; done
        uv sync --extra "$FROM_SOMEWHERE"
        EOF
        ''')
    assert [(w.extras, w.comment, w.line) for w in facts.warm_syncs] == [
        (("vllm",), "one extra at a time", 4), (("fsdp",), "one extra at a time", 4),
        (("automodel",), "", 6), (("mcore",), "", 6)]
    assert [(n.line, n.check) for n in facts.notes] == [(7, "warm-steps")]
    assert "$FROM_SOMEWHERE" in facts.notes[0].message


# ---- script lines: comments, quotes, closing words --------------------------------------------------


def sync_script(*lines: str):
    return parse("FROM debian\nRUN <<EOF bash\n" + "".join(line + "\n" for line in lines) + "EOF\n")


@pytest.mark.parametrize(
    ("lines", "extras", "comment"),
    [
        (["uv sync --extra a#b 'x'#y \\# z"], ("a#b",), ""),           # `#` inside a word is no comment
        (['uv sync --extra "a \\" b" # c'], ('a " b',), "c"),
        (["uv sync --extra 'open # not", "still' # c"], ("open # not still",), "c"),  # a quote over two lines
        (['uv sync --extra "open # not', 'still"# c'], ("open # not still#",), ""),  # a `#` right after the quote is part of the word
        (["uv sync --extra x\u00a0# c"], ("x",), "c"),                    # any Unicode blank starts a comment
        (["uv sync --extra x \\", "  --frozen # c"], ("x",), "c"),
    ],
)
def test_script_line_comments_and_quotes(lines, extras, comment):
    facts = sync_script(*lines)
    assert [(w.extras, w.comment) for w in facts.warm_syncs] == [(extras, comment)]


def test_script_quote_left_open_is_an_error_with_the_line():
    with pytest.raises(InputError) as info:
        sync_script("true", "uv sync --extra 'open # not a comment")
    assert (info.value.line, "No closing quotation" in str(info.value)) == (4, True)


@pytest.mark.parametrize(
    ("closing", "closes"),
    [("fi", True), ("  fi ; echo", True), ("x;fi", True), ("echo fi", True), ("a && fi|b", True),
     ("fi\u3000", True), ("fix", False), ("xfi", False), ("fi x", False), ("(fi)", False)],
)
def test_if_block_closes_at_fi_as_a_command_of_its_own(closing, closes):
    facts = parse(f"""\
        FROM debian
        RUN <<EOF bash
        if [ -n "$X" ]; then
          python examples/nemo_gym/prefetch_venvs.py a.yaml
        {closing}
        python examples/nemo_gym/prefetch_venvs.py b.yaml
        EOF
        """)
    assert [g.guards for g in facts.gym_prefetch] == [('[ -n "$X" ]',), ('[ -n "$X" ]',) if not closes else ()]


@pytest.mark.parametrize(("closing", "closes"), [("done", True), ("echo done; done", True), ("undone", False),
                                                 ("done )", False)])
def test_for_loop_closes_at_done_as_a_command_of_its_own(closing, closes):
    facts = sync_script("for e in vllm; do", 'uv sync --extra "$e"', closing, 'uv sync --extra "$e"')
    assert [w.extras for w in facts.warm_syncs] == [("vllm",)] * (1 if closes else 2)
    assert [n.check for n in facts.notes] == (["warm-steps"] if closes else [])


@pytest.mark.parametrize(
    ("rest", "reason"),
    [("", ""), (": why", "why"), (":why", "why"), ("- why", "why"), ("-\twhy", "why"), ("-why", None),
     ("(why)", None), ("-", None), (":", "")],
)
def test_not_prefetched_entry_reason_forms(rest, reason):
    facts = parse(f"FROM debian\n# Not prefetched:\n#   a.b.Worker{rest}\n")
    assert [actor for actor, _ in facts.not_prefetched.actors] == ["a.b.Worker"]
    if reason is None:   # read as the actor with the rest as its reason, and a note says so
        assert [(n.line, n.check) for n in facts.notes] == [(3, "not-prefetched-list")]
    else:
        assert facts.not_prefetched.actors[0][1] == reason and facts.notes == ()


@pytest.mark.parametrize(
    ("line", "text"),
    [("# a b  ", "a b"), ("  #  two", " two"), ("#\tx", "\tx"), ("#", ""), ("\u00a0# x", "x")],
)
def test_comment_block_text_above_an_instruction(line, text):
    facts = parse(f"FROM debian\n{line}\nARG X=1\n")
    assert facts.args[0].comment == text


@pytest.mark.parametrize(
    ("first", "joined"),
    [("a \\", True), ("a \\ \t", True), ("a \\x", False), ("a \\\\", True)],
)
@pytest.mark.parametrize("escape", ["\\", "`"])
def test_instruction_continues_at_its_escape_character_and_blanks(first, joined, escape):
    directive = "# escape=`\n" if escape == "`" else ""
    first = first.replace("\\", escape)
    facts = parse(f"{directive}FROM debian\nLABEL {first}\nLABEL b\n")
    labels = [(ins.args, ins.start_line, ins.end_line) for ins in only(facts, "LABEL")]
    start = 3 if escape == "`" else 2
    if joined:
        assert labels == [(first.rstrip(" \t")[:-1].strip() + " LABEL b", start, start + 1)]
    else:
        assert [args for args, _, _ in labels] == [first, "b"]


@pytest.mark.parametrize(
    ("comment", "counts"),
    [
        ("# \u0663 filters -> 9 \u212aelvins", ((3, "filters"), (9, "kelvins"))),  # a Unicode digit; the Kelvin sign
        ("# 3 filters -> 4 venvs -> five \u017fets", ((3, "filters"), (4, "venvs"), (5, "\u017fets"))),
        ("#\u00a0\u017feven filters -> e\u0131ght venvs", None),   # the long s and dotless i fold, spell no number
        ("# 12 x -> twentyone venvs", None),
    ],
)
def test_count_statements_beyond_ascii(comment, counts):
    facts = parse("FROM debian\n" + comment + "\nRUN true\n")
    assert (facts.counts[0].counts if facts.counts else None) == counts


def test_mapping_rows_and_loop_words_need_their_pattern_only_where_it_can_match():
    facts = parse("""\
        FROM debian
        # a.B -> vllm (why)
        #x.Y   ->  fsdp
        # a.B-> mcore
        RUN prefetch_venvs.py a.B x.Y && for m in nemo_rl.x.Y ./a.B; do echo $m; done
        """, tail=False)
    assert [(r.filter, r.extra, r.why, r.line) for r in facts.mapping] == [("a.B", "vllm", "why", 2), ("x.Y", "fsdp", "", 3)]
    assert facts.verify is None   # `./a.B` is no FQN


# ---- the one variable pattern ------------------------------------------------------------------


def test_variables_and_their_expansion():
    text = 'run ${A}/x $B "${C:-d}" ${A} ${d#/p} $'
    assert variables(text) == ("A", "B", "C")
    facts = parse("FROM scratch\nARG A=1 B= C=3\nRUN true\n", tail=False)
    # a RUN step's shell text: what the Dockerfile sets, each `${X<op>}` form by BuildKit's rule, the rest left
    assert facts.expand(text, 3, shell=True) == 'run 1/x  "3" 1 ${d#/p} $'
    assert facts.expand("$UNKNOWN ${X}y", 3, shell=True) == "$UNKNOWN ${X}y"


# ---- issue 22: comments read whole, values expanded by BuildKit's rules --------------------------------

# The shape of one real production version: 3 of its 8 rows wrap their reason, one has text after the `)`.
WRAPPED_ROWS = """\
FROM debian AS base
# The per-filter mapping (which extra each filter's venvs get):
#   filter                                          -> extra      (why)
#   dtensor_policy_worker.DTensorPolicyWorker       -> fsdp       (FSDP1 policy)
#   dtensor_policy_worker_v2.DTensorPolicyWorkerV2  -> automodel  (FSDP2 policy; builds TE once,
#                                                                  shared with mcore)
#   megatron_policy_worker.MegatronPolicyWorker     -> mcore      (Megatron policy) reuses TE
#   vllm.vllm_worker                                -> vllm       (sync and async generation,
#                                                                  both classes)
#   sync_rollout_actor.SyncRolloutActor             -> vllm       (rollouts)
#   nemo_gym.NemoGym                                -> nemo_gym   (Gym bridge: the
#                                                                  environment side)
#   nemo_gym_actor.SandboxedGymActor                -> nemo_gym   (sandboxed Gym)
#   broker_actor.SandboxEpisodeBrokerActor          -> nemo_gym   (episode broker)
RUN uv run python nemo_rl/utils/prefetch_venvs.py dtensor_policy_worker.DTensorPolicyWorker \\
    dtensor_policy_worker_v2.DTensorPolicyWorkerV2 megatron_policy_worker.MegatronPolicyWorker vllm.vllm_worker \\
    sync_rollout_actor.SyncRolloutActor nemo_gym.NemoGym nemo_gym_actor.SandboxedGymActor \\
    broker_actor.SandboxEpisodeBrokerActor
"""


def test_mapping_rows_with_wrapped_reasons_and_text_after_the_parenthesis_are_read_whole():
    facts = parse_dockerfile(WRAPPED_ROWS, "Dockerfile")
    rows = {r.filter: (r.extra, r.why, r.line) for r in facts.mapping}
    assert len(rows) == 8 and not [n for n in facts.notes if n.check == "mapping-comment"]
    assert rows["dtensor_policy_worker_v2.DTensorPolicyWorkerV2"] == (
        "automodel", "FSDP2 policy; builds TE once, shared with mcore", 5)
    assert rows["megatron_policy_worker.MegatronPolicyWorker"] == ("mcore", "Megatron policy reuses TE", 7)
    assert rows["vllm.vllm_worker"] == ("vllm", "sync and async generation, both classes", 8)
    assert rows["nemo_gym.NemoGym"] == ("nemo_gym", "Gym bridge: the environment side", 11)
    assert rows["broker_actor.SandboxEpisodeBrokerActor"] == ("nemo_gym", "episode broker", 14)


def test_a_mapping_row_that_cannot_be_read_is_a_note_never_a_silent_drop():
    text = WRAPPED_ROWS.replace("(sandboxed Gym)", "(sandboxed Gym").replace(
        "#   broker_actor.SandboxEpisodeBrokerActor ", "#   broker_actor.SandboxEpisodeBroker ")
    facts = parse_dockerfile(text, "Dockerfile")
    notes = [(n.line, n.message) for n in facts.notes if n.check == "mapping-comment"]
    assert [line for line, _ in notes] == [13, 14]
    assert "never closed" in notes[0][1] and "'broker_actor.SandboxEpisodeBroker'" in notes[1][1]
    assert {r.filter: r.why for r in facts.mapping}["nemo_gym_actor.SandboxedGymActor"] == "sandboxed Gym"


def test_not_prefetched_entries_keep_a_reason_wrapped_onto_the_next_line():
    facts = parse_dockerfile("""\
FROM debian
# Not prefetched:
#   nemo_rl.algorithms.async_utils.ReplayBuffer: async bookkeeping actor, built
#       on first use by the driver
#   nemo_rl.algorithms.async_utils.AsyncTrajectoryCollector: async bookkeeping actor
#   ReplayBufferV2: async bookkeeping actor
RUN true
""", "Dockerfile")
    assert facts.not_prefetched.actors == (
        ("nemo_rl.algorithms.async_utils.ReplayBuffer", "async bookkeeping actor, built on first use by the driver"),
        ("nemo_rl.algorithms.async_utils.AsyncTrajectoryCollector", "async bookkeeping actor"))
    assert [(n.line, n.check) for n in facts.notes] == [(6, "not-prefetched-list")]


def test_arg_and_env_values_expand_by_buildkit_scope():
    facts = parse_dockerfile("""\
ARG ROOT=/opt
ARG GLOBAL_ONLY=/g
FROM debian AS base
ARG ROOT
ARG VENVS=${ROOT}/ray_venvs
ENV NEMO_RL_VENV_DIR=${VENVS} \\
    DEFAULTED=${UNSET_HERE:-fallback} ALT=${ROOT:+set} SINGLE='${ROOT}' \\
    PATH=/x:$PATH
ENV SEEN_BEFORE=$NEMO_RL_VENV_DIR/a FIRST=1 SAME_INSTRUCTION=${FIRST:-not-yet}
FROM base AS child
ENV CHILD=${NEMO_RL_VENV_DIR}/c OUT_OF_SCOPE=${GLOBAL_ONLY}/x STAGE_ARG=${VENVS}
""", "Dockerfile")
    env = {e.key: e.value for e in facts.envs}
    assert env["NEMO_RL_VENV_DIR"] == "/opt/ray_venvs" and env["DEFAULTED"] == "fallback"
    assert env["ALT"] == "set" and env["SINGLE"] == "${ROOT}" and env["PATH"] == "/x:$PATH"
    assert env["SEEN_BEFORE"] == "/opt/ray_venvs/a" and env["SAME_INSTRUCTION"] == "not-yet"
    # ENV passes to the child stage, and so do the parent's ARG values (as BuildKit builds it:
    # tests/image/test_buildkit_scope.py); a global ARG needs a bare redeclaration
    assert env["CHILD"] == "/opt/ray_venvs/c" and env["OUT_OF_SCOPE"] == "/x" and env["STAGE_ARG"] == "/opt/ray_venvs"
    assert {e.key: e.raw for e in facts.envs}["NEMO_RL_VENV_DIR"] == "${VENVS}"
    notes = [(n.line, n.check, n.message) for n in facts.notes]
    assert [(line, check) for line, check, _ in notes] == [(11, "unresolved-variable")]
    assert "GLOBAL_ONLY" in notes[0][2] and "bare `ARG GLOBAL_ONLY`" in notes[0][2] and "VENVS" not in notes[0][2]


# ---- warm comments read whole ---------------------------------------------------------------------------

def _warm(facts):
    return [(w.extras, w.comment) for w in facts.warm_syncs]


def test_a_trailing_warm_comment_wrapped_under_its_hash_is_read_whole():
    facts = sync_script(
        "uv sync --extra automodel  # builds Transformer-Engine once,",
        "                           # shared with mcore",
        "uv sync --extra mcore      # reuses the TE wheel",
        "                           #   from the cache",
        "# about fsdp, above it",
        "uv sync --extra fsdp",
    )
    assert _warm(facts) == [(("automodel",), "builds Transformer-Engine once, shared with mcore"),
                            (("mcore",), "reuses the TE wheel from the cache"),
                            (("fsdp",), "about fsdp, above it")]
    assert facts.notes == ()


def test_a_comment_line_off_the_trailing_column_is_the_next_syncs_not_the_last():
    facts = sync_script(
        "uv sync --extra vllm  # the vLLM wheel",
        "# fsdp's own comment",
        "uv sync --extra fsdp",
    )
    assert _warm(facts) == [(("vllm",), "the vLLM wheel"), (("fsdp",), "fsdp's own comment")]


@pytest.mark.parametrize("loop", [
    ['for e in vllm fsdp automodel; do uv sync --extra "$e"; done'],
    ["for e in vllm fsdp automodel; do", '  uv sync --frozen --extra "$e"', "done"],
])
def test_rows_above_a_loop_give_each_extra_its_own_comment_wrapped_rows_included(loop):
    facts = sync_script(
        "# Warm every extra the prefetch needs:",
        "#   vllm:      the vLLM wheel; deep_ep builds",
        "#   fsdp:      flash-attn, mamba-ssm and",
        "#              causal-conv1d",
        "#   automodel: builds Transformer-Engine once",
        *loop,
    )
    assert _warm(facts) == [(("vllm",), "the vLLM wheel; deep_ep builds"),
                            (("fsdp",), "flash-attn, mamba-ssm and causal-conv1d"),
                            (("automodel",), "builds Transformer-Engine once")]
    assert facts.notes == ()


def test_a_row_for_an_extra_the_loop_does_not_warm_or_an_unreadable_line_is_a_note():
    facts = sync_script(
        "#   vllm: the vLLM wheel",
        "#   mcore: reuses the TE wheel",
        "# and the rest as before",
        "for e in vllm fsdp; do uv sync --extra $e; done",
    )
    assert _warm(facts) == [(("vllm",), "the vLLM wheel"), (("fsdp",), "")]
    assert [(n.line, n.check) for n in facts.notes] == [(6, "warm-steps"), (6, "warm-steps")]
    assert "names 'mcore', which this command does not warm" in facts.notes[0].message
    assert "'and the rest as before'" in facts.notes[1].message


def test_a_loop_comment_without_rows_speaks_for_every_extra():
    facts = sync_script("# one extra at a time, so each venv's cache stays warm", "for e in vllm fsdp; do",
                        '  uv sync --extra "$e"', "done")
    assert _warm(facts) == [(("vllm",), "one extra at a time, so each venv's cache stays warm"),
                            (("fsdp",), "one extra at a time, so each venv's cache stays warm")]


def test_a_comment_above_several_syncs_on_one_line_is_rows_or_a_note():
    rows = sync_script("# vllm: generation", "# fsdp - the FSDP policy", "uv sync --extra vllm && uv sync --extra fsdp")
    assert _warm(rows) == [(("vllm",), "generation"), (("fsdp",), "the FSDP policy")] and rows.notes == ()
    prose = sync_script("# warm two extras", "uv sync --extra vllm && uv sync --extra fsdp")
    assert _warm(prose) == [(("vllm",), ""), (("fsdp",), "")]
    assert [(n.line, n.check) for n in prose.notes] == [(4, "warm-steps")]
    assert "'warm two extras'" in prose.notes[0].message and "belongs to none of its 2 syncs" in prose.notes[0].message


def test_what_each_copy_takes_and_leaves_out_is_a_fact():
    """Each COPY source and each `--exclude` (a `!` pattern is kept after all) is a `copy` fact named by its path;
    the JSON form is read as a list, and arguments that do not parse as one are the shell form, as BuildKit
    reads them."""
    text = dedent("""\
        FROM scratch AS src
        FROM debian AS app
        COPY --from=src --exclude=docs/ --exclude=!docs/keep.md . /app/
        COPY ["a b.txt", "/etc/x/"]
        COPY [oops /tmp/
        """)
    facts = [(f.subject, f.value, f.names) for f in parse_dockerfile(text).facts if f.kind == "copy"]
    assert facts == [("/app/ takes .", "from src", (".",)), ("/app/ leaves out docs/", "from src", ("docs",)),
                     ("/app/ keeps docs/keep.md", "from src", ("docs/keep.md",)),
                     ("/etc/x/ takes a b.txt", "from the build context", ("a b.txt",)),
                     ("/tmp/ takes [oops", "from the build context", ("[oops",))]
