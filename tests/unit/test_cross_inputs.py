"""Cross-input rules of docgen/model/cross.py on the small model: each finds its pair, names both sides'
lines, and is quiet when the two inputs agree."""

from __future__ import annotations

import json

import pytest

from docgen.check.lint import lint
from docgen.inputs.dockerfile import parse_dockerfile
from docgen.model.build import build_model
from docgen.model.cross import arch_comment_mismatches, arch_names, capabilities, uv_requirement, without_arch_names
from docgen.render.tables import build_options
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
    assert uv_requirement(_model(tmp_path, uv_required=">=0.12.x")) == []          # no PEP 440: left to uv itself
    assert uv_requirement(_model(tmp_path, uv_required=">=0.11.0rc1")) == []       # packaging reads pre-releases
    [found] = uv_requirement(_model(tmp_path, uv_required=">=0.12.0rc1"))           # ... and the release below them
    assert "0.11.33" in found.message
    moved = DOCKERFILE.replace("ARG UV_VERSION=0.11.33", "ARG UV_VERSION=latest")
    assert uv_requirement(_model(tmp_path, moved, uv_required=">=9")) == []


def test_a_stage_redeclared_uv_version_is_the_one_judged(tmp_path):
    staged = DOCKERFILE.replace("FROM base AS builder\n", "FROM base AS builder\nARG UV_VERSION=0.12.1\n")
    [found] = uv_requirement(_model(tmp_path, staged, uv_required="<0.12"))
    assert found.line == _line(staged, "ARG UV_VERSION=0.12.1") and "0.12.1" in found.message


# ---- architecture names: rendered from the list, the comment held to it --------------------------------

ARCH_ARGS = ('# CUDA architectures Transformer-Engine compiles kernels for (Hopper; Blackwell).\n'
             'ARG NVTE_CUDA_ARCHS="90;100"\n'
             '# Architectures torch extensions\n# (flash-attn, ...) compile for.\n'
             'ARG TORCH_CUDA_ARCH_LIST="9.0 10.0"\n')


def _with_archs(nvte: str = "90;100", torch: str = "9.0 10.0", comment: str = "(Hopper; Blackwell)") -> str:
    args = ARCH_ARGS.replace('"90;100"', f'"{nvte}"').replace('"9.0 10.0"', f'"{torch}"')
    return DOCKERFILE.replace("FROM base AS builder\n", "FROM base AS builder\n"
                              + args.replace("(Hopper; Blackwell)", comment))


@pytest.mark.parametrize("value, names", [
    ("9.0 10.0", ("Hopper", "Blackwell")),
    ("90;100;120", ("Hopper", "Blackwell", "Blackwell (consumer)")),
    ("sm_80,sm_86 8.9", ("Ampere", "Ada")),
    ("10.0 10.3 9.0+PTX", ("Blackwell", "Hopper")),
    ("11.0", ("compute capability 11.0",)),
    ("all", ()),
])
def test_arch_names_come_from_the_list(value, names):
    assert arch_names(capabilities(value)) == names


@pytest.mark.parametrize("comment, left", [
    ("kernels for (Hopper; Blackwell).", "kernels for."),
    ("kernels for (Hopper and Blackwell) only", "kernels for only"),
    ("extensions (flash-attn, mamba) compile for (Ampere/Ada).", "extensions (flash-attn, mamba) compile for."),
    ("for (Hopper, 2x faster)", "for (Hopper, 2x faster)"),      # more than names: the comment's own words
    ("no parenthesis", "no parenthesis"),
])
def test_only_a_parenthesis_of_architecture_names_is_taken_out(comment, left):
    assert without_arch_names(comment) == left


def _options_row(tmp_path, dockerfile: str, name: str) -> str:
    rows = build_options(_model(tmp_path, dockerfile)).splitlines()
    return next(line for line in rows if line.startswith(f"| `{name}`"))


def test_the_build_options_table_names_the_architectures_of_the_list_not_of_the_comment(tmp_path):
    assert _options_row(tmp_path, _with_archs(), "NVTE_CUDA_ARCHS").endswith(
        "| CUDA architectures Transformer-Engine compiles kernels for (Hopper; Blackwell). |")
    assert _options_row(tmp_path, _with_archs(), "TORCH_CUDA_ARCH_LIST").endswith(
        "| Architectures torch extensions (flash-attn, ...) compile for (Hopper; Blackwell). |")
    trimmed = _with_archs(nvte="100", torch="10.0 12.0")
    assert _options_row(tmp_path, trimmed, "NVTE_CUDA_ARCHS").endswith("kernels for (Blackwell). |")
    assert "Hopper" not in build_options(_model(tmp_path, trimmed))
    assert _options_row(tmp_path, _with_archs(torch="all"), "TORCH_CUDA_ARCH_LIST").endswith("compile for. |")


def test_a_comment_naming_an_architecture_the_list_lacks_is_a_finding_at_the_comment(tmp_path):
    assert arch_comment_mismatches(_model(tmp_path, _with_archs())) == []
    dockerfile = _with_archs(nvte="100")
    [found] = arch_comment_mismatches(_model(tmp_path, dockerfile))
    assert found.check == "arch-comment"
    assert found.line == _line(dockerfile, "(Hopper; Blackwell)")
    assert found.other == f"Dockerfile:{_line(dockerfile, 'ARG NVTE_CUDA_ARCHS=')}"
    assert "names Hopper" in found.message and "(Blackwell)" in found.message
    # a family named once for 10.0 and 12.0 alike; a later comment line is found at its own line
    assert arch_comment_mismatches(_model(tmp_path, _with_archs(nvte="120", comment="(Blackwell)"))) == []
    two_lines = _with_archs(torch="9.0", comment="(Hopper)").replace("# (flash-attn, ...) compile for.",
                                                                     "# (flash-attn, ...) compile for Ampere.")
    [found] = arch_comment_mismatches(_model(tmp_path, two_lines))
    assert found.line == _line(two_lines, "compile for Ampere") and "names Ampere" in found.message
    assert [f.check for f in lint(_model(tmp_path, dockerfile))].count("arch-comment") == 1
