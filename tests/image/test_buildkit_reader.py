"""The Dockerfile reader against BuildKit's own parser (``docker buildx build --call=outline|targets``): the
stages, ARGs, heredocs and tolerated texts docgen reads are what BuildKit reads. Needs a Docker engine with
buildx; the cases are the reader's unit-test tables in tests/unit/test_dockerfile_reader.py."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from docgen.inputs.dockerfile import read_dockerfile
from tests.unit.test_dockerfile_reader import (
    _ARG_IDS, ARG_VALUES, BACKTICK_ESCAPE, EIGHT_FILTERS, HEREDOC_MARKERS, PREFETCH_TAIL, TOLERATED,
)

pytestmark = pytest.mark.docker
# scripts/bootstrap installs and starts the Docker engine (scripts/docker-engine start) with buildx
SETUP = "set up with `bash scripts/bootstrap`"


def _run(*command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def docker_buildx() -> None:
    if shutil.which("docker") is None:
        pytest.skip(f"docker CLI not on PATH; {SETUP}")
    version = _run("docker", "buildx", "version", timeout=30)
    if version.returncode != 0:
        pytest.skip(f"`docker buildx version` failed ({(version.stderr or version.stdout).strip()[:200]}); {SETUP}")
    info = _run("docker", "info", "--format", "{{.ServerVersion}}", timeout=30)
    if info.returncode != 0 or not info.stdout.strip():
        pytest.skip(f"no Docker engine answers `docker info`; {SETUP}")


STAND_IN = "docgen-test/empty-base:outline"


@pytest.fixture(scope="module")
def base_image_stand_in(docker_buildx):
    """The fixture's CUDA base cannot be pulled here (no registry). Outline only resolves the base
    image's config, so an empty imported image stands in; removed again if this test made it."""
    created = False
    if _run("docker", "image", "inspect", STAND_IN, timeout=30).returncode != 0:
        empty = io.BytesIO()
        tarfile.open(fileobj=empty, mode="w").close()
        imported = subprocess.run(
            ["docker", "import", "-", STAND_IN], input=empty.getvalue(), capture_output=True, timeout=60, check=False
        )
        assert imported.returncode == 0, imported.stderr.decode()
        created = True
    yield STAND_IN
    if created:
        _run("docker", "image", "rm", STAND_IN, timeout=60)


def _buildx_call(call: str, *extra: str, dockerfile: Path = EIGHT_FILTERS) -> dict:
    result = _run(
        "docker", "buildx", "build", f"--call={call},format=json", "--progress=plain",
        "-f", str(dockerfile), *extra, str(dockerfile.parent),
    )  # fmt: skip
    assert result.returncode == 0, f"buildx --call={call} failed:\n{result.stderr[-2000:]}"
    return json.loads(result.stdout[result.stdout.index("{") :])


def _field(record: dict, name: str):
    """BuildKit's JSON keys changed case across versions ('Name' vs 'name'): look up case-insensitively."""
    return {key.lower(): value for key, value in record.items()}.get(name.lower())


def _first_line(record: dict) -> int | None:
    ranges = _field(_field(record, "location") or {}, "ranges") or [{}]
    return _field(_field(ranges[0], "start") or {}, "line")


@pytest.mark.parametrize("dockerfile", [EIGHT_FILTERS, BACKTICK_ESCAPE], ids=lambda p: p.stem)
def test_stages_agree_with_buildkit_targets(docker_buildx, dockerfile):
    facts = read_dockerfile(dockerfile)
    targets = _field(_buildx_call("targets", dockerfile=dockerfile), "targets")
    assert [(_field(t, "name"), _field(t, "base"), _first_line(t)) for t in targets] == [
        (s.name, s.base, s.line) for s in facts.stages
    ]
    assert [bool(_field(t, "default")) for t in targets] == [s is facts.stages[-1] for s in facts.stages]


@pytest.mark.parametrize("dockerfile", [EIGHT_FILTERS, BACKTICK_ESCAPE], ids=lambda p: p.stem)
def test_args_agree_with_buildkit_outline(base_image_stand_in, dockerfile):
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
    for stage in facts.stages:
        outline = _buildx_call(
            "outline", "--target", stage.name, "--build-arg", f"BASE_IMAGE={base_image_stand_in}", dockerfile=dockerfile
        )
        for arg in _field(outline, "args") or []:
            fact = (_field(arg, "value") or "", _first_line(arg))
            assert reported.setdefault(_field(arg, "name"), fact) == fact, f"{arg} reported twice, differently"
    assert reported == expected



@pytest.mark.parametrize(("directive", "line", "value"), ARG_VALUES, ids=_ARG_IDS)
def test_arg_values_agree_with_buildkit_outline(docker_buildx, tmp_path, directive, line, value):
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(directive + "FROM scratch\n" + line + "\n")
    args = _field(_buildx_call("outline", dockerfile=dockerfile), "args") or []
    assert [(_field(a, "name"), _field(a, "value")) for a in args] == [("V", value)]



@pytest.mark.parametrize(("text", "names"), [c[1:] for c in HEREDOC_MARKERS], ids=[c[0] for c in HEREDOC_MARKERS])
def test_heredoc_markers_agree_with_buildkit(docker_buildx, tmp_path, text, names):
    # The same text parses for BuildKit too, so it reads the same heredocs (see HEREDOC_MARKERS).
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text("FROM scratch\n" + text + PREFETCH_TAIL)
    _buildx_call("outline", dockerfile=dockerfile)
    assert tuple(doc.name for ins in read_dockerfile(dockerfile).instructions for doc in ins.heredocs) == names



@pytest.mark.parametrize(("text", "check"), [t[1:] for t in TOLERATED], ids=[t[0] for t in TOLERATED])
def test_tolerated_texts_are_dockerfiles_buildkit_accepts(docker_buildx, tmp_path, text, check):
    """What docgen now reads instead of rejecting is a Dockerfile for BuildKit too (a `# syntax=` line is
    blanked to a plain comment first: it would make BuildKit pull a frontend image)."""
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(text.replace("# syntax=docker/dockerfile:1", "# (syntax directive dropped)"), encoding="utf-8")
    targets = _field(_buildx_call("targets", dockerfile=dockerfile), "targets")
    assert len(targets) == len(read_dockerfile(dockerfile).stages)
