"""The Dockerfile reader against BuildKit's own parser (``--call=outline|targets``, every case in one
``docker buildx bake`` per call: tests/buildkit.py): the stages, ARGs, heredocs and tolerated texts docgen reads
are what BuildKit reads. Needs a Docker engine with buildx; the cases are the reader's unit-test tables in
tests/unit/test_dockerfile_reader.py."""

from __future__ import annotations

import io
import subprocess
import tarfile

import pytest

from docgen.inputs.dockerfile import read_dockerfile
from tests.buildkit import Answers, Question, ask, field, first_line, offline, require_buildx, run, write_case
from tests.unit.test_dockerfile_reader import (
    _ARG_IDS, ARG_VALUES, BACKTICK_ESCAPE, EIGHT_FILTERS, HEREDOC_MARKERS, PREFETCH_TAIL, TOLERATED,
)

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def docker_buildx() -> None:
    require_buildx()


STAND_IN = "docgen-test/empty-base:outline"


@pytest.fixture(scope="module")
def base_image_stand_in(docker_buildx):
    """The fixture's CUDA base cannot be pulled here (no registry). Outline only resolves the base
    image's config, so an empty imported image stands in; removed again if this test made it."""
    created = False
    if run("docker", "image", "inspect", STAND_IN, timeout=30).returncode != 0:
        empty = io.BytesIO()
        tarfile.open(fileobj=empty, mode="w").close()
        imported = subprocess.run(
            ["docker", "import", "-", STAND_IN], input=empty.getvalue(), capture_output=True, timeout=60, check=False
        )
        assert imported.returncode == 0, imported.stderr.decode()
        created = True
    yield STAND_IN
    if created:
        run("docker", "image", "rm", STAND_IN, timeout=60)


@pytest.fixture(scope="module")
def buildkit(docker_buildx, base_image_stand_in, tmp_path_factory) -> Answers:
    """What this module's tests ask BuildKit, asked at once: each case's text in a folder of its own."""
    folder = tmp_path_factory.mktemp("buildkit")
    questions = {}
    for dockerfile in (EIGHT_FILTERS, BACKTICK_ESCAPE):
        questions[f"targets[{dockerfile.stem}]"] = Question("targets", dockerfile)
        for stage in read_dockerfile(dockerfile).stages:
            questions[f"outline[{dockerfile.stem}]/{stage.name}"] = Question(
                "outline", dockerfile, stage.name, (("BASE_IMAGE", base_image_stand_in),))
    for case, (directive, line, _) in zip(_ARG_IDS, ARG_VALUES):
        key = f"arg-values[{case}]"
        questions[key] = Question("outline", write_case(folder, key, directive + "FROM scratch\n" + line + "\n"))
    for case, text, _ in HEREDOC_MARKERS:
        key = f"heredoc[{case}]"
        questions[key] = Question("outline", write_case(folder, key, "FROM scratch\n" + text + PREFETCH_TAIL))
    for case, text, _ in TOLERATED:
        key = f"tolerated[{case}]"
        questions[key] = Question("targets", write_case(folder, key, offline(text)))
    return ask(questions, folder)


@pytest.mark.parametrize("dockerfile", [EIGHT_FILTERS, BACKTICK_ESCAPE], ids=lambda p: p.stem)
def test_stages_agree_with_buildkit_targets(buildkit, dockerfile):
    facts = read_dockerfile(dockerfile)
    targets = field(buildkit[f"targets[{dockerfile.stem}]"], "targets")
    assert [(field(t, "name"), field(t, "base"), first_line(t)) for t in targets] == [
        (s.name, s.base, s.line) for s in facts.stages
    ]
    assert [bool(field(t, "default")) for t in targets] == [s is facts.stages[-1] for s in facts.stages]


@pytest.mark.parametrize("dockerfile", [EIGHT_FILTERS, BACKTICK_ESCAPE], ids=lambda p: p.stem)
def test_args_agree_with_buildkit_outline(buildkit, base_image_stand_in, dockerfile):
    facts = read_dockerfile(dockerfile)
    # BuildKit reports, per target, the ARGs that target uses. A stage ARG without a default that
    # re-declares a global one is reported as the global one (its value and line).
    global_args = {a.name: a for a in facts.args if a.stage is None}
    expected = {}
    for arg in facts.args:
        source = global_args.get(arg.name, arg) if arg.default is None else arg
        expected[arg.name] = (source.default or "", source.line)
    expected["BASE_IMAGE"] = (base_image_stand_in, global_args["BASE_IMAGE"].line)

    reported: dict[str, tuple[str, int | None]] = {}
    for stage in facts.stages:  # each asked with --target <stage> --build-arg BASE_IMAGE=<the stand-in>
        outline = buildkit[f"outline[{dockerfile.stem}]/{stage.name}"]
        for arg in field(outline, "args") or []:
            fact = (field(arg, "value") or "", first_line(arg))
            assert reported.setdefault(field(arg, "name"), fact) == fact, f"{arg} reported twice, differently"
    assert reported == expected


@pytest.mark.parametrize(("case", "directive", "line", "value"), [(i, *v) for i, v in zip(_ARG_IDS, ARG_VALUES)],
                         ids=_ARG_IDS)
def test_arg_values_agree_with_buildkit_outline(buildkit, case, directive, line, value):
    key = f"arg-values[{case}]"
    assert buildkit.questions[key].dockerfile.read_text(encoding="utf-8") == directive + "FROM scratch\n" + line + "\n"
    args = field(buildkit[key], "args") or []
    assert [(field(a, "name"), field(a, "value")) for a in args] == [("V", value)]


@pytest.mark.parametrize(("case", "text", "names"), HEREDOC_MARKERS, ids=[c[0] for c in HEREDOC_MARKERS])
def test_heredoc_markers_agree_with_buildkit(buildkit, case, text, names):
    # The same text parses for BuildKit too, so it reads the same heredocs (see HEREDOC_MARKERS).
    key = f"heredoc[{case}]"
    assert buildkit[key] is not None, "BuildKit outlined it"
    dockerfile = buildkit.questions[key].dockerfile
    assert dockerfile.read_text(encoding="utf-8") == "FROM scratch\n" + text + PREFETCH_TAIL
    assert tuple(doc.name for ins in read_dockerfile(dockerfile).instructions for doc in ins.heredocs) == names


@pytest.mark.parametrize(("case", "text", "check"), TOLERATED, ids=[t[0] for t in TOLERATED])
def test_tolerated_texts_are_dockerfiles_buildkit_accepts(buildkit, case, text, check):
    """What docgen now reads instead of rejecting is a Dockerfile for BuildKit too (a `# syntax=` line is
    blanked to a plain comment first: it would make BuildKit pull a frontend image)."""
    key = f"tolerated[{case}]"
    dockerfile = buildkit.questions[key].dockerfile
    assert dockerfile.read_text(encoding="utf-8") == offline(text)
    targets = field(buildkit[key], "targets")
    assert len(targets) == len(read_dockerfile(dockerfile).stages)
