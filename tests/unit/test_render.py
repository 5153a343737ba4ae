"""Renderers on a small model: every fact in the output comes from the model, not from the renderer."""

from __future__ import annotations

import pytest

from tests.unit.blocks_fixtures import DOCKERFILE, small_model, snapshot_data
from docgen.errors import InputError
from docgen.render.generators import GENERATORS, REQUIRED_GENERATORS, RenderInputs, render_block
from docgen.render.tables import ArgError
from docgen.render.text import inventory_text
from docgen.render.values import VALUES, number_word, render_value


@pytest.fixture
def model(tmp_path):
    return small_model(tmp_path)


def rows(markdown: str) -> list[list[str]]:
    """Cells of a pipe table (header and separator dropped)."""
    lines = [ln for ln in markdown.splitlines() if ln.startswith("|")][2:]
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines]


def test_every_generator_renders_and_is_required(model):
    src = RenderInputs(model)
    for name in GENERATORS:
        out = render_block(name, {}, src)
        assert out.endswith("\n") and out.strip(), name
    assert set(REQUIRED_GENERATORS) == set(GENERATORS)


def test_values(model):
    got = {key: render_value(key, model) for key in VALUES if "." in key and key.split(".")[0] in (
        "filters", "venvs", "warm_extras", "actors", "system_actors", "not_prefetched", "te", "uv", "python", "vllm")
        and key.count(".") <= 2 and (key.split(".")[-1] != "word" or key.split(".")[0] in ("filters", "venvs", "warm_extras"))}
    assert got == {
        "filters.count": "3", "filters.count.word": "three", "venvs.count": "4", "venvs.count.word": "four",
        "warm_extras.count": "3", "warm_extras.count.word": "three", "actors.count": "7",
        "system_actors.count": "1", "not_prefetched.count": "2", "te.version": "2.15.0+42b8400",
        "uv.version": "0.11.33", "python.version": "3.13.14", "vllm.version": "0.25.1",
    }
    assert [number_word(n) for n in (0, 8, 20, 21)] == ["zero", "eight", "twenty", "21"]


def test_missing_arg_value_is_bad_input(tmp_path):
    model = small_model(tmp_path, DOCKERFILE.replace("ARG UV_VERSION=0.11.33\n", ""))
    with pytest.raises(InputError) as err:
        render_value("uv.version", model)
    assert "UV_VERSION" in err.value.message


def test_filter_table_and_not_prefetched(model):
    table = rows(render_block("filter-table", {}, RenderInputs(model)))
    assert table[0][0] == "`vllm.vllm_worker`"
    assert "VllmGenerationWorker" in table[0][1] and "VllmAsyncGenerationWorker" in table[0][1]
    assert table[0][2] == "`vllm`"
    skipped = rows(render_block("not-prefetched", {}, RenderInputs(model)))
    assert [r[2] for r in skipped] == ["critic-free value worker", "backend not built: `sglang` not warmed in the image"]


def test_actor_mapping_variants(model):
    default = rows(render_block("actor-mapping", {"variant": "default"}, RenderInputs(model)))
    system = rows(render_block("actor-mapping", {"variant": "system"}, RenderInputs(model)))
    vllm_default = next(r for r in default if "VllmGenerationWorker" in r[0])
    vllm_system = next(r for r in system if "VllmGenerationWorker" in r[0])
    assert vllm_default[3] == "`/opt/ray_venvs/rl.models.generation.vllm.vllm_worker.VllmGenerationWorker`"
    assert vllm_default[4].startswith("yes, filter `vllm.vllm_worker`")
    # with NEMO_RL_PY_EXECUTABLES_SYSTEM=1 the fixture's vllm workers run on the system interpreter
    assert vllm_system[3] == "—" and "system interpreter" in vllm_system[4]


def test_venv_inventory_starts_with_the_driver_venv(model):
    table = rows(render_block("venv-inventory", {}, RenderInputs(model)))
    assert table[0][0] == "`/opt/nemo_rl_venv`"  # from UV_PROJECT_ENVIRONMENT, not typed
    assert len([r for r in table if r[3] == "at image build"]) == 1 + 4
    assert len([r for r in table if r[3] == "on the node at first use"]) == 2


def test_package_tables(model):
    src = RenderInputs(model)
    assert rows(render_block("extra-packages", {"extra": "vllm"}, src)) == [["`vllm`", "`0.25.1`", "url"]]
    assert {r[0] for r in rows(render_block("extra-packages", {}, src))} == {"`vllm`", "`automodel`", "`mcore`"}
    assert rows(render_block("shared-builds", {}, src)) == [
        ["`transformer-engine`", "`2.15.0+42b8400`", "`git+te#1`", "`automodel`", "`mcore`"]]
    te = {r[0]: r[1] for r in rows(render_block("te-consumers", {}, src))}
    assert te == {"`vllm`": "no", "`automodel`": "yes", "`mcore`": "yes"}
    adds = render_block("mcore-adds", {}, src)
    assert [r[0] for r in rows(adds)] == ["`megatron-core`"] and "Plus 1 smaller dependencies" in adds
    assert rows(render_block("editable-sources", {}, src))[0][:3] == ["`megatron-core`", "`—`", "`3rdparty/Megatron-LM`"]
    with pytest.raises(ArgError, match="no extra 'nope'"):
        render_block("extra-packages", {"extra": "nope"}, src)


def test_build_options_and_runtime_env(model):
    src = RenderInputs(model)
    options = {r[0]: r for r in rows(render_block("build-options", {}, src))}
    assert options["`UV_VERSION`"][1:] == ["`0.11.33`", "`base`", "uv release installed into the image."]
    env = {r[0]: r[1:] for r in rows(render_block("runtime-env", {}, src))}
    # the published stage builds FROM base: it inherits base's ENV, not the builder's UV_CACHE_DIR
    assert env == {"`NEMO_RL_VENV_DIR`": ["`/opt/ray_venvs`", "`base`"],
                   "`UV_PROJECT_ENVIRONMENT`": ["`/opt/nemo_rl_venv`", "`base`"],
                   "`UV_LINK_MODE`": ["`symlink`", "`nmp-rl-base`"]}


def test_image_size_reads_only_what_it_is_given(model):
    assert "not been measured" in render_block("image-size", {}, RenderInputs(model))
    out = render_block("image-size", {}, RenderInputs(model, {"size_bytes": 31_400_000_000, "image": "x:y"}))
    assert "31.40 GB" in out and "x:y" in out


def test_diagrams_take_participants_from_the_model(model):
    src = RenderInputs(model)
    graph = render_block("image-graph", {}, src)
    assert graph.startswith("```mermaid\nflowchart TD\n")
    assert 'image2[("example/cuda:12")]' in graph and 'image1[("scratch")]' in graph and "stage_base -->|FROM| stage_builder" in graph
    assert 'stage_builder -.->|"COPY /opt/ray_venvs"| stage_nmp_rl_base' in graph
    build = render_block("diagram-build", {}, src)
    assert "participant venvs as 4 worker venvs in /opt/ray_venvs" in build
    assert "3 filters -> 4 venvs" in build and "uv sync mcore" in build and "uv cache /opt/uv_cache" in build
    dpo = render_block("diagram-dpo", {}, src)
    assert "DTensorPolicyWorkerV2<br/>automodel extra, prefetched venv" in dpo
    assert "MegatronPolicyWorker<br/>mcore extra" in dpo
    # the venv path the workers start with, taken from the model
    megatron_venv = next(v.path for v in model.venvs if v.class_name == "MegatronPolicyWorker")
    assert f"start workers with {megatron_venv}/bin/python" in dpo
    assert "Vllm" not in dpo
    v2 = render_block("diagram-grpo-v2", {}, src)
    assert "participant policy as DTensorPolicyWorkerV2<br/>automodel extra" in v2 and "VllmGenerationWorker" in v2
    assert "MathEnvironment<br/>system interpreter" in v2 and "refit" in v2
    megatron = render_block("diagram-grpo-megatron", {}, src)
    assert "participant policy as MegatronPolicyWorker<br/>mcore extra" in megatron


def test_unprefetched_policy_is_drawn_as_built_on_first_use(tmp_path):
    text = DOCKERFILE.replace("    megatron_policy_worker.MegatronPolicyWorker", "    nothing.Matches")
    model = small_model(tmp_path, text)
    out = render_block("diagram-grpo-megatron", {}, RenderInputs(model))
    assert "MegatronPolicyWorker<br/>mcore extra, built on first use" in out


def test_inventory_text(model):
    text = inventory_text(model)
    assert text.startswith("Three filters -> four venvs in /opt/ray_venvs\n")
    assert "transformer-engine 2.15.0+42b8400: built by automodel, reused by mcore" in text


def test_renderers_follow_the_snapshot(tmp_path):
    model = small_model(tmp_path, data=snapshot_data(te_version="2.16.0"))
    assert render_value("te.version", model) == "2.16.0"


def test_console_venvs_transcript_follows_the_model(model, tmp_path):
    out = render_block("console-venvs", {}, RenderInputs(model))
    names = sorted(v.actor for v in model.venvs)
    assert out == ("```console\n$ echo \"$NEMO_RL_VENV_DIR\"\n/opt/ray_venvs\n$ ls /opt/ray_venvs\n"
                   + "".join(f"{n}\n" for n in names)
                   + f"$ ls /opt/ray_venvs | wc -l\n{len(names)}\n```\n")
    fewer = small_model(tmp_path, DOCKERFILE.replace("    dtensor_policy_worker_v2.DTensorPolicyWorkerV2 \\\n", ""))
    out_fewer = render_block("console-venvs", {}, RenderInputs(fewer))
    assert "DTensorPolicyWorkerV2" not in out_fewer and f"| wc -l\n{len(names) - 1}\n" in out_fewer
