"""Cross-input rules of docgen/model/cross.py on the small model: each finds its pair, names both sides'
lines, and is quiet when the two inputs agree."""

from __future__ import annotations

import json

import pytest

from docgen.check.lint import lint
from docgen.inputs.dockerfile import parse_dockerfile
from docgen.model.build import build_model
from docgen.model.cross import uv_requirement
from docgen.snapshot.load import load_snapshot
from tests.unit.blocks_fixtures import DOCKERFILE, snapshot_data


def _model(tmp_path, dockerfile: str = DOCKERFILE, *, uv_required: str | None = None):
    data = snapshot_data()
    if uv_required is not None:
        data["project"]["uv_required_version"] = uv_required
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True))   # one key a line: the finding names its line
    return build_model(parse_dockerfile(dockerfile, "Dockerfile"), load_snapshot(path))


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


# ---- UV_VERSION against [tool.uv] required-version ------------------------------------------------------

@pytest.mark.parametrize("spec", [">=0.11.0", ">=0.11.33,<0.12", "==0.11.*", "~=0.11.0", "0.11.33", "!=0.10.9"])
def test_a_uv_version_that_satisfies_the_requirement_is_quiet(tmp_path, spec):
    assert uv_requirement(_model(tmp_path, uv_required=spec)) == []


@pytest.mark.parametrize("spec", [">=0.12", ">=0.11.34", "<0.11", "==0.10.*", "0.11.32", "~=0.12.0"])
def test_a_uv_version_outside_the_requirement_names_both_lines(tmp_path, spec):
    model = _model(tmp_path, uv_required=spec)
    [found] = uv_requirement(model)
    assert found.check == "uv-vs-required"
    assert found.line == _line(DOCKERFILE, "ARG UV_VERSION=0.11.33")
    snap_text = (tmp_path / "snap.json").read_text()
    snap_line = _line(snap_text, '"uv_required_version"')
    assert found.other == f"{tmp_path / 'snap.json'}:{snap_line}"
    assert "UV_VERSION=0.11.33" in found.message and spec in found.message
    # the lint reports it as a finding at the Dockerfile's line, naming the snapshot's side
    [finding] = [f for f in lint(model) if f.check == "uv-vs-required"]
    assert (finding.path, finding.line) == ("Dockerfile", found.line) and found.other in finding.message


def test_no_requirement_or_no_uv_arg_or_an_unreadable_one_is_quiet(tmp_path):
    assert uv_requirement(_model(tmp_path)) == []                                  # the snapshot states none
    no_arg = DOCKERFILE.replace("ARG UV_VERSION=0.11.33\n", "")
    assert uv_requirement(_model(tmp_path, no_arg, uv_required=">=9")) == []
    assert uv_requirement(_model(tmp_path, uv_required=">=0.12.0rc1")) == []       # left to uv itself
    moved = DOCKERFILE.replace("ARG UV_VERSION=0.11.33", "ARG UV_VERSION=latest")
    assert uv_requirement(_model(tmp_path, moved, uv_required=">=9")) == []


def test_a_stage_redeclared_uv_version_is_the_one_judged(tmp_path):
    staged = DOCKERFILE.replace("FROM base AS builder\n", "FROM base AS builder\nARG UV_VERSION=0.12.1\n")
    [found] = uv_requirement(_model(tmp_path, staged, uv_required="<0.12"))
    assert found.line == _line(staged, "ARG UV_VERSION=0.12.1") and "0.12.1" in found.message
