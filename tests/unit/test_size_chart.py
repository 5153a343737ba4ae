"""The size charts of the image-size block, and the record fields they read."""

from __future__ import annotations

import json

import pytest

from docgen.errors import InputError
from docgen.inputs.image_size import load_image_size
from docgen.render.generators import RenderInputs, render_block
from docgen.model.digests import input_digest
from tests.unit.blocks_fixtures import small_model


@pytest.fixture
def model(tmp_path):
    return small_model(tmp_path)


def record(model, **extra) -> dict:
    return {"size_bytes": 3000, "image_id": "sha256:abc", "inputs": dict(input_digest(model)),
            "layers": [{"step": 'RUN echo "a, b" [x]', "bytes": 2000}, {"step": "COPY . ./", "bytes": 0},
                       {"step": "COPY 3rdparty/ 3rdparty/", "bytes": 1000}],
            "venvs": {"/opt/ray_venvs/pkg.mod.WorkerA": 500, "/opt/nemo_rl_venv": 700}, **extra}


def charts(markdown: str) -> list[str]:
    return [block.split("```", 1)[0] for block in markdown.split("```mermaid\n")[1:]]


def test_layers_and_venvs_become_two_zero_based_bar_charts_with_a_table_of_full_names(model):
    out = render_block("image-size", {}, RenderInputs(model, record(model)))
    layers, venvs = charts(out)
    assert layers.startswith("xychart-beta horizontal\n")
    # empty layers are left out; the bars are numbered and the table under the chart names each in full
    assert 'x-axis ["1", "2"]' in layers and 'y-axis "MB" 0 --> 0.002' in layers
    assert "bar [0.002, 0.001]" in layers
    assert "| 1 | RUN echo \"a, b\" [x] | 0.002 |\n| 2 | COPY 3rdparty/ 3rdparty/ | 0.001 |" in out
    assert 'y-axis "kB" 0 --> 0.8' in venvs and "bar [0.7, 0.5]" in venvs
    assert "| 1 | nemo_rl_venv | 0.7 |\n| 2 | WorkerA | 0.5 |" in out
    assert "Measured on image `sha256:abc`, built from dockerfile `" in out
    assert "Not current" not in out


@pytest.mark.parametrize("top, axis", [(158.349, "200"), (54.5, "60"), (0.405, "0.5"), (3, "3"), (393.3, "400"),
                                       (0.0021, "0.0025"), (1000, "1000")])
def test_the_value_axis_ends_at_a_round_number_at_or_above_the_largest_bar(model, top, axis):
    measured = {"size_bytes": 1, "layers": [{"step": "RUN big", "bytes": round(top * 1e6)},
                                            {"step": "RUN small", "bytes": 1}]}
    (layers,) = charts(render_block("image-size", {}, RenderInputs(model, measured)))
    assert f'y-axis "MB" 0 --> {axis}\n' in layers


def test_a_record_of_another_dockerfile_says_so(model):
    moved = record(model)
    moved["inputs"]["dockerfile"] = "0000dead"
    out = render_block("image-size", {}, RenderInputs(model, moved))
    now = input_digest(model)["dockerfile"]
    assert out.startswith("> **Not current:** these figures were measured from an earlier Dockerfile "
                          f"(digest `0000dead`); the inputs have changed since (Dockerfile now `{now}`)")
    assert "snapshot" not in out.split("\n", 1)[0]   # the snapshot did not move
    assert "dockerfile `0000dead`" in out and "bench/image_size.py --record" in out


def test_a_record_naming_no_inputs_says_so(model):
    bare = record(model)
    del bare["inputs"]
    out = render_block("image-size", {}, RenderInputs(model, bare))
    assert out.startswith("> **Not current:** the record names no inputs it was measured from")


def test_a_record_without_layers_or_venvs_has_no_chart(model):
    out = render_block("image-size", {}, RenderInputs(model, {"size_bytes": 5}))
    assert "```mermaid" not in out


@pytest.mark.parametrize("bad", [
    {"layers": {"step": "x", "bytes": 1}},
    {"layers": [{"bytes": 1}]},
    {"layers": [{"step": "x", "bytes": -1}]},
    {"venvs": [1]},
    {"venvs": {"/opt/v": "1 MB"}},
    {"inputs": ["ea37bb42"]},
    {"inputs": {"dockerfile": 1}},
])
def test_malformed_chart_fields_are_bad_input(bad, tmp_path):
    path = tmp_path / "image-size.json"
    path.write_text(json.dumps({"size_bytes": 1, **bad}, indent=1) + "\n")
    with pytest.raises(InputError) as err:
        load_image_size(path, "docs/data/image-size.json")
    assert err.value.line and err.value.line > 1


# A bar is numbered in the chart (mermaid cuts long labels off at a narrow chart's edge and ends a quoted label
# at a quote) and named in full in the table under it, where any text stays one cell of one row.
@pytest.mark.parametrize("text", ["", " ", "plain", "  a  b  ", 'RUN echo "a, b" [x]', "tab\tand\nnewline\r\x0b\x0c",
                                  "caf\u00e9 \u00e9t\u00e9", "\u00a0nbsp\u2028line\u3000", "a" * 40, "x,y;z|w" * 5,
                                  "/opt/ray_venvs/pkg.mod.WorkerA", "+-:./_", "\U0001f600 emoji", "A-Za-z0-9",
                                  "".join(map(chr, range(0, 300)))])
def test_a_layer_step_is_a_numbered_bar_and_one_table_row(model, text):
    measured = {"size_bytes": 3000, "image_id": "sha256:abc", "layers": [{"step": text, "bytes": 2000}]}
    block = render_block("image-size", {}, RenderInputs(model, measured))
    (layers,) = charts(block)
    assert 'x-axis ["1"]' in layers and "bar [0.002]" in layers
    rows = [line for line in block.split("\n") if line.startswith("| 1 |")]
    assert len(rows) == 1 and rows[0].endswith("| 0.002 |")
