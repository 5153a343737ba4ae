"""What an ARG or ENV holds at each point of a Dockerfile: `DockerfileFacts.value(name, at=...)` and
`expand(text, at=...)`, the one scope every part of docgen asks (issue 27). Each case is a Dockerfile and
its probes; tests/image/test_buildkit_scope.py asks BuildKit the same probes (`SCOPE_CASES`), each probe a
`LABEL` whose value BuildKit expands at that line."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from docgen.inputs.dockerfile import UNKNOWN, Unknown, parse_dockerfile
from docgen.model.stages import image_value
from docgen.render.values import arg_default

# (case, Dockerfile, target stage, {label: value BuildKit gives the `LABEL <label>=...` probe}, ENV of the target
# image). Every case builds FROM scratch, so BuildKit answers it without a registry.
SCOPE_CASES = [
    ("stage-arg-shadows-global", """\
ARG V=global
FROM scratch AS a
ARG V=stage
LABEL p.v="$V"
""", "a", {"p.v": "stage"}, {}),
    ("global-visible-only-when-redeclared", """\
ARG V=global
FROM scratch AS a
LABEL p.before="$V"
ARG V
LABEL p.after="$V"
""", "a", {"p.before": "", "p.after": "global"}, {}),
    ("env-references-arg", """\
FROM scratch AS a
ARG ROOT=/opt
ENV VENVS=${ROOT}/venvs
LABEL p.venvs="$VENVS"
""", "a", {"p.venvs": "/opt/venvs"}, {"VENVS": "/opt/venvs"}),
    ("env-after-arg-overrides", """\
FROM scratch AS a
ARG X=arg
ENV X=env
LABEL p.x="$X"
""", "a", {"p.x": "env"}, {"X": "env"}),
    ("arg-after-env-overrides-for-the-build", """\
FROM scratch AS a
ENV X=env
ARG X=arg
LABEL p.x="$X"
""", "a", {"p.x": "arg"}, {"X": "env"}),
    ("default-and-alternative-forms", """\
FROM scratch AS a
ARG SET=v
ARG EMPTY=
LABEL p.a="${SET:-d}" p.b="${UNSET:-d}" p.c="${EMPTY:-d}" p.d="${EMPTY-d}" \\
      p.e="${SET:+alt}" p.f="${UNSET:+alt}" p.g="${EMPTY:+alt}" p.h="${EMPTY+alt}" p.i="${UNSET-d}"
""", "a", {"p.a": "v", "p.b": "d", "p.c": "d", "p.d": "", "p.e": "alt", "p.f": "", "p.g": "", "p.h": "alt",
           "p.i": "d"}, {}),
    ("before-and-after-a-stage-redeclaration", """\
FROM scratch AS a
ARG V=first
LABEL p.first="$V"
ARG V=second
LABEL p.second="$V"
""", "a", {"p.first": "first", "p.second": "second"}, {}),
    # BuildKit passes a stage's ARG values on to a stage built FROM it (Docker's reference says an ARG ends with
    # its stage; BuildKit is the oracle), with the stage's ENV applied over them; a global ARG the parent never
    # redeclared stays unset
    ("child-stage-inherits-env-and-arg-values", """\
ARG G=global
FROM scratch AS a
ARG A=arg
ENV E=env-$A X=env
ARG X=arg
LABEL p.x="$X"
FROM a AS b
LABEL p.e="$E" p.a="$A" p.x="$X" p.g="$G"
ARG A
LABEL p.a_bare="$A"
""", "b", {"p.x": "env", "p.e": "env-arg", "p.a": "arg", "p.g": "", "p.a_bare": "arg"},
     {"E": "env-arg", "X": "env"}),
    ("scratch-has-buildkits-default-path", """\
FROM scratch AS a
ENV P=/x:$PATH
LABEL p.path="$PATH"
""", "a", {"p.path": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
     {"P": "/x:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}),
    ("user-and-workdir-expanded", """\
ARG UID=1000
FROM scratch AS a
ARG UID
ARG ROOT=/opt
WORKDIR ${ROOT}/rl
WORKDIR sub
USER ${UID}:${UID}
LABEL p.uid="$UID"
""", "a", {"p.uid": "1000"}, {}),
    ("from-line-sees-only-global-args", """\
ARG BASE=a
ARG T=global
FROM scratch AS a
ARG T=stage
ENV FROM_A=$T
FROM ${BASE} AS b
ARG T
LABEL p.t="$T" p.from_a="$FROM_A"
""", "b", {"p.t": "global", "p.from_a": "stage"}, {"FROM_A": "stage"}),
]


def _facts(text: str):
    return parse_dockerfile(text, "Dockerfile")


def _probes(facts):
    """(label, its value as written, the LABEL instruction) of every probe."""
    for ins in facts.instructions:
        if ins.keyword == "LABEL":
            words = ins.args.split()
            for word in words:
                label, _, written = word.partition("=")
                yield label, written, ins


@pytest.mark.parametrize(("case", "text", "target", "labels", "env"), SCOPE_CASES, ids=[c[0] for c in SCOPE_CASES])
def test_expand_at_each_probe_gives_buildkits_value(case, text, target, labels, env):
    facts = _facts(text)
    got = {label: facts.expand(written, at=ins) for label, written, ins in _probes(facts)}
    assert got == labels
    assert {e.key: e.value for e in facts.envs_of(target)} == env


def test_a_global_arg_shadowed_by_a_stage_arg_holds_the_stages_value_in_the_stage():
    facts = _facts("ARG V=global\nFROM scratch AS a\nARG V=stage\nRUN true\nFROM scratch AS b\nARG V\nRUN true\n")
    assert facts.value("V", at=4) == "stage"
    assert facts.value("V", at=2) == "global"            # the FROM line: global scope
    assert facts.value("V", at=facts.stage("b")) == "global"
    assert facts.value("V", at=facts.instructions[2]) is None   # `ARG V=stage` sees the value before it
    assert facts.origin("V", at=4).line == 3


def test_the_image_value_of_a_build_arg_is_the_stages_over_the_globals():
    """The issue's example: `uv.version` rendered the global ARG's default while BuildKit builds the stage's."""
    facts = _facts("ARG UV_VERSION=0.1.0\nFROM scratch AS nmp-rl-base\nARG UV_VERSION=0.2.0\nRUN true\n")
    assert image_value(facts, "UV_VERSION")[0] == "0.2.0"
    assert arg_default(SimpleNamespace(dockerfile=facts), "UV_VERSION") == "0.2.0"


def test_a_global_arg_only_from_lines_use_is_its_image_value():
    facts = _facts("ARG TAG=1.0\nFROM scratch AS uv\nFROM uv AS nmp-rl-base\nRUN true\n")
    assert image_value(facts, "TAG")[0] == "1.0"
    assert facts.value("TAG", at=4) is None


def test_what_only_the_base_image_can_set_is_unknown_never_empty():
    facts = _facts("""\
FROM debian AS a
ENV P=/x:$PATH
FROM a AS b
RUN true
FROM scratch AS c
RUN true
FROM b AS d
ENV Q=/y:$PATH
""")
    assert facts.value("PATH", at=4) is UNKNOWN and facts.value("PATH", at=4) != ""
    assert facts.value("NEVER_SET", at=facts.stage("b")) is UNKNOWN    # b rests on debian through a
    assert facts.value("NEVER_SET", at=6) is None                       # scratch: BuildKit expands it to ""
    assert facts.expand("$PATH/bin", at=4) is UNKNOWN
    assert facts.value("P", at=4) == "/x:$PATH"                          # the ENV keeps the reference as written
    assert facts.value("Q", at="d") == "/y:$PATH"      # also two stages away from the image that may set it
    assert facts.notes == ()
    assert isinstance(UNKNOWN, Unknown) and not UNKNOWN and str(UNKNOWN) != ""


def test_user_of_each_stage_and_of_the_image():
    facts = _facts("""\
ARG UID=1000
FROM scratch AS a
ARG UID
USER ${UID}:${UID}
RUN true
USER root
FROM a AS b
RUN true
FROM debian AS c
RUN true
""")
    assert facts.user(5) == ("1000:1000", 4)
    assert facts.user(facts.stage("a")) == ("root", 6)
    assert facts.user("b") == ("root", 6)          # a stage built FROM another keeps its USER
    assert facts.user(10) == (UNKNOWN, None)       # debian's config may name a user
    assert facts.user() == (UNKNOWN, None)         # the image: the last stage
    assert facts.user(3) == ("root", None)         # a stage from scratch, before its USER


def test_workdir_expands_and_joins_relative_steps():
    facts = _facts("FROM scratch AS a\nARG ROOT=/opt\nWORKDIR ${ROOT}/rl\nWORKDIR sub\nRUN true\n")
    assert facts.workdir(5) == ("/opt/rl/sub", 4)
    assert facts.base("a") == ("scratch", False)


def test_stage_bases_are_expanded_with_the_global_args():
    facts = _facts("ARG BASE=img:1\nARG FIRST=a\nFROM ${BASE} AS a\nFROM ${FIRST} AS b\nRUN true\n")
    assert facts.base("a") == ("img:1", False)
    assert facts.base("b") == ("a", True)


def test_run_steps_name_their_variables_commands_scripts_and_paths():
    facts = _facts("""\
FROM scratch AS a
ARG VENVS=/opt/ray_venvs
RUN export UV_CACHE=/c && X=1 python3 /opt/tools/prefetch.py --dir "$VENVS" && \\
    for cfg in a b; do ./run.sh "$cfg"; done
RUN ["/bin/true"]
""")
    step, exec_form = facts.runs
    assert step.variables == ("UV_CACHE", "X", "cfg")
    assert step.programs == ("export", "python3", "./run.sh")
    assert step.scripts == ("/opt/tools/prefetch.py", "./run.sh")
    assert "/opt/ray_venvs" in step.paths and "/opt/tools/prefetch.py" in step.paths
    assert exec_form.commands == () and exec_form.instruction.start_line == 5


def test_the_build_options_table_states_the_value_the_build_uses():
    from docgen.render.tables import build_options
    facts = _facts("ARG UV_VERSION=0.1.0\nFROM scratch AS nmp-rl-base\nARG UV_VERSION=0.2.0\nRUN true\n")
    table = build_options(SimpleNamespace(dockerfile=facts))
    assert "`0.2.0`" in table and "`0.1.0`" not in table


def test_an_extra_a_build_arg_holds_is_the_extra_its_sync_warms():
    facts = _facts("""\
FROM scratch AS a
ARG EXTRA=vllm
RUN uv sync --extra "${EXTRA}"
RUN uv sync --extra "${NOT_SET}"
""")
    assert [w.extras for w in facts.warm_syncs] == [("vllm",)]
    assert [(n.line, n.check) for n in facts.notes] == [(4, "warm-steps")]
