"""The size charts of the image-size block, and the record fields they read."""

from __future__ import annotations

import json

import pytest

from docgen.errors import InputError
from docgen.inputs.image_size import load_image_size
from docgen.render.generators import RenderInputs, render_block
from docgen.render.markdown import literal
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
    assert 'title "Hermetic test image: layers (MB)"' in layers and 'title "Hermetic test image: venvs (kB)"' in venvs
    # empty layers are left out; the bars are numbered and the table under the chart names each in full; the
    # axis runs from zero to a round number with room past the longest bar for the value printed at its end
    assert 'x-axis ["1", "2"]' in layers and 'y-axis "MB" 0 --> 0.0025' in layers
    assert "bar [0.002, 0.001]" in layers
    assert "| 1 | RUN echo \"a, b\" \\[x\\] | 0.002 |\n| 2 | COPY 3rdparty/ 3rdparty/ | 0.001 |" in out
    assert 'y-axis "kB" 0 --> 1' in venvs and "bar [0.7, 0.5]" in venvs
    assert "| 1 | nemo\\_rl\\_venv | 0.7 |\n| 2 | WorkerA | 0.5 |" in out
    assert "Measured on image `sha256:abc`, built from dockerfile `" in out
    assert "Not current" not in out


# The axis ends at a round number at or above 1.2x the largest bar: room for the value printed at its end.
@pytest.mark.parametrize("top, axis", [(158.349, "200"), (54.5, "80"), (0.405, "0.5"), (3, "4"), (393.3, "500"),
                                       (0.0021, "0.003"), (1000, "1200")])
def test_the_value_axis_ends_at_a_round_number_with_room_past_the_largest_bar(model, top, axis):
    measured = {"size_bytes": 1, "layers": [{"step": "RUN big", "bytes": round(top * 1e6)},
                                            {"step": "RUN small", "bytes": 1}]}
    (layers,) = charts(render_block("image-size", {}, RenderInputs(model, measured)))
    assert f'y-axis "MB" 0 --> {axis}\n' in layers


def test_a_record_of_another_dockerfile_says_when_and_at_which_commit_it_was_measured(model):
    moved = record(model, measured_at="2026-11-30", commit="4ad1a02c0ffee0123456789abcdef0123456789a")
    moved["inputs"]["dockerfile"] = "0000dead"
    out = render_block("image-size", {}, RenderInputs(model, moved))
    note = out[out.index("> **Not current:**"):].split("\n", 1)[0]
    assert note.startswith("> **Not current:** these figures were measured on 2026-11-30 at commit `4ad1a02c0ffe`,"
                           " from an earlier Dockerfile; it has changed since")
    assert "snapshot" not in note   # the snapshot did not move
    assert "digest" not in note and "0000dead" not in note   # a reader is given a commit and a date, not digests
    assert "bench/image_size.py --record" in out


def test_a_record_naming_no_commit_or_date_says_so(model):
    moved = record(model)
    moved["inputs"]["snapshot"] = "0000dead"
    note = render_block("image-size", {}, RenderInputs(model, moved)).split("> **Not current:**", 1)[1]
    assert note.startswith(" these figures were measured on an unrecorded date at a commit the record does not name,"
                           " from an earlier NeMo-RL snapshot;"), note


def test_a_record_naming_no_inputs_says_so(model):
    bare = record(model)
    del bare["inputs"]
    out = render_block("image-size", {}, RenderInputs(model, bare))
    assert "\n> **Not current:** the record names no inputs it was measured from" in out


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


# The chart's bars are numbered; the table under it names each step in full, character for character
# (markup escaped, HTML and docgen markers as entities), on one line; the site test reads it back.
@pytest.mark.parametrize("text", ["plain", 'RUN echo "a, b" [x]', "tab\tand\nnewline", "caf\u00e9 \u00e9t\u00e9",
                                  "a" * 80, "x,y;z|w" * 5, "<script>alert(1)</script>", "`tick` ``two``",
                                  "<!-- docgen:begin x -->"])
def test_a_layer_step_is_named_in_full_in_the_table_under_its_chart(model, text):
    measured = {"size_bytes": 3000, "image_id": "sha256:abc", "layers": [{"step": text, "bytes": 2000}]}
    out = render_block("image-size", {}, RenderInputs(model, measured))
    (layers,) = charts(out)
    assert 'x-axis ["1"]' in layers and text not in layers
    cell = literal(text).replace("|", "\\|").replace("\n", " ").strip()
    assert f"\n| 1 | {cell} | 0.002 |\n" in out
    assert "<script>" not in out and "<!-- docgen" not in out


# ------------------------------------------------------------------ what the size page leads with
PRODUCTION = {"image": "nmp-rl-base:26.07", "platform": "linux/amd64", "measured_at": "2026-11-02",
              "where": "the release pipeline", "size_bytes": 41_250_000_000,
              "parts": {"/opt/uv_cache": 30_000_000_000},
              "layers": [{"step": "base image", "bytes": 9_000_000_000}],
              "venvs": {"/opt/ray_venvs/pkg.mod.WorkerA": 120_000}}


def test_production_figures_come_first_and_the_stand_in_is_labelled_the_hermetic_test_image(model):
    out = render_block("image-size", {}, RenderInputs(model, record(model, production=PRODUCTION)))
    production, hermetic = out.index("### Production image"), out.index("### Hermetic test image")
    assert production < hermetic
    lead = out[production:hermetic]
    assert "| Measure | Production image |" in lead and "| Size | **41.25 GB** (41,250,000,000 bytes) |" in lead
    assert "| Where | the release pipeline |" in lead and "| Measured | 2026-11-02 |" in lead
    assert 'title "Production image: layers (MB)"' in lead and 'title "Production image: venvs (kB)"' in lead
    assert "Measured on image" not in lead   # nothing ties the production figures to this tree's inputs
    rest = out[hermetic:]
    assert "| Measure | Hermetic test image |" in rest and "stand-in NeMo-RL workspace" in rest
    assert "| Size | **3.0 kB** (3,000 bytes) |" in rest
    assert 'title "Hermetic test image: layers (MB)"' in rest


def test_without_production_figures_the_page_says_where_they_go_and_still_labels_the_test_image(model):
    out = render_block("image-size", {}, RenderInputs(model, record(model)))
    assert out.index("No production figure is recorded yet") < out.index("### Hermetic test image")
    assert "`production` in `docs/data/image-size.json`" in out
    # the stand-in's size is never presented as the production image's
    assert "| Measure | Hermetic test image |" in out and "Production image: " not in out


@pytest.mark.parametrize("bad, message", [
    ({"production": {"size_bytes": -1}}, "production.size_bytes: expected a size in bytes"),
    ({"production": {"parts": {"/opt": "1 GB"}}}, "production./opt: expected a size in bytes"),
    ({"production": {"layers": [{"bytes": 1}]}}, "production.layers: expected a list"),
    ({"production": {"venvs": [1]}}, "production.venvs: expected a JSON object"),
    ({"production": {"measured_at": 20261102}}, "production.measured_at: expected a string"),
    ({"production": {"production": {}}}, "production: a production measurement holds no production"),
])
def test_a_malformed_production_measurement_is_bad_input_at_its_line(bad, message, tmp_path):
    path = tmp_path / "image-size.json"
    text = json.dumps({"size_bytes": 1, "parts": {"/opt": 1}, "venvs": {}, "layers": [], **bad}, indent=1) + "\n"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_image_size(path, "docs/data/image-size.json")
    assert message in err.value.message
    # the line inside the production object, not the top-level key of the same name
    assert err.value.line > text[:text.index('"production"')].count("\n") + 1 or "holds no" in message


def test_a_full_production_measurement_is_accepted(tmp_path):
    path = tmp_path / "image-size.json"
    path.write_text(json.dumps({"size_bytes": 1, "production": PRODUCTION}, indent=1) + "\n")
    assert load_image_size(path, "docs/data/image-size.json")["production"] == PRODUCTION
