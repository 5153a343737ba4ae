"""Renderers on a small model: every fact in the output comes from the model, not from the renderer."""

from __future__ import annotations

import re

import pytest

from tests.site.html_pages import participant_labels
from tests.unit.blocks_fixtures import DOCKERFILE, small_model, snapshot_data
from docgen.blocks import parse_document
from docgen.check.lint import check_coverage
from docgen.errors import ArgError
from docgen.render.generators import GENERATORS, REQUIRED_GENERATORS, RenderInputs, render_block
from docgen.render.markdown import code, table
from docgen.render.text import inventory_text
from docgen.render.values import VALUES, number_word, render_value


@pytest.fixture
def model(tmp_path):
    return small_model(tmp_path)


def rows(markdown: str) -> list[list[str]]:
    """Cells of a pipe table (header and separator dropped)."""
    lines = [ln for ln in markdown.splitlines() if ln.startswith("|")][2:]
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines]


def test_every_generator_renders(model):
    src = RenderInputs(model)
    for name in GENERATORS:
        out = render_block(name, {}, src)
        assert out.endswith("\n") and out.strip(), name


@pytest.mark.parametrize("missing", list(GENERATORS))
def test_a_doc_set_without_any_one_generator_fails_the_default_coverage(missing):
    """With no `required` configured, every generator must appear somewhere: leaving out any one is a finding."""
    params = {name: g.params for name, g in GENERATORS.items()}
    text = "".join(f"<!-- docgen:begin {name} -->\n<!-- docgen:end {name} -->\n" for name in GENERATORS if name != missing)
    doc = parse_document(text, "README.md", params, frozenset())
    assert [f.message for f in check_coverage([doc], REQUIRED_GENERATORS, "docs")] == [
        f"no page renders the required generator `{missing}`"]


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


def test_a_value_the_inputs_do_not_give_cannot_be_rendered(tmp_path):
    model = small_model(tmp_path, DOCKERFILE.replace("ARG UV_VERSION=0.11.33\n", ""))
    with pytest.raises(ArgError, match="UV_VERSION"):   # the pipeline names the page and line that asks for it
        render_value("uv.version", model)


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
    # with NEMO_RL_PY_EXECUTABLES_SYSTEM=1 the fixture's vllm workers run on sys.executable: the driver venv's
    assert vllm_system[3] == "—" and vllm_system[4] == "no: runs in the driver venv (sys.executable), no venv of its own"


def test_venv_inventory_starts_with_the_driver_venv(model):
    out = render_block("venv-inventory", {}, RenderInputs(model))
    table = rows(out)
    # what the table counts, above it: the rows it has, of which kinds, and who has none
    assert out.startswith(f"{len(table)} rows: the driver venv, the {len(model.venvs)} prefetched worker venvs, the "
                          f"{len(model.not_prefetched)} worker venvs built on the node at first use")
    assert f"The {len(model.system_actors)} actors that run on the system interpreter have no venv" in out
    assert table[0][0] == "`/opt/nemo_rl_venv`"  # from UV_PROJECT_ENVIRONMENT, not typed
    assert len([r for r in table if r[3] == "at image build"]) == 1 + 4
    assert len([r for r in table if r[3] == "on the node at first use"]) == 2


def test_package_tables(model):
    src = RenderInputs(model)
    assert rows(render_block("extra-packages", {"extra": "vllm"}, src)) == [["`vllm`", "`0.25.1`", "url"]]
    assert {r[0] for r in rows(render_block("extra-packages", {}, src))} == {"`vllm`", "`automodel`", "`mcore`"}
    assert rows(render_block("shared-builds", {}, src)) == [
        ["`transformer-engine`", "`2.15.0+42b8400`", "`git+https://example.invalid/te#1`", "`automodel`", "`mcore`"]]
    te = {r[0]: r[1] for r in rows(render_block("te-consumers", {}, src))}
    assert te == {"`vllm`": "no", "`automodel`": "yes", "`mcore`": "yes"}
    adds = render_block("mcore-adds", {}, src)
    assert [r[0] for r in rows(adds)] == ["`megatron-core`"] and "Plus 1 smaller dependencies" in adds
    assert rows(render_block("editable-sources", {}, src))[0][:3] == ["`megatron-core`", "`—`", "`editable+3rdparty/Megatron-LM`"]
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
    assert 'stage_nmp_rl_base["nmp-rl-base<br/>published image"]' in graph and "class stage_nmp_rl_base published" in graph
    # the graph as a table under it (what a phone shows in its place): each stage, its FROM and its COPYs
    assert "| Stage | FROM | COPY into it |" in graph
    assert "| `base` | `example/cuda:12` |  |" in graph
    assert "| `nmp-rl-base`, the published image | stage `base` | `COPY /opt/ray_venvs` from `builder` |" in graph
    build = render_block("diagram-build", {}, src)
    assert "participant venvs as 4 worker venvs<br/>/opt/ray_venvs" in build
    assert "3 filters -> 4 venvs" in build and "uv sync mcore" in build and "uv cache<br/>/opt/uv_cache" in build
    # its participants as a table under it
    assert "| 4 worker venvs `/opt/ray_venvs` | one venv per prefetched actor |" in build
    assert "| uv cache `/opt/uv_cache` |" in build and "| stage `builder` | starts `FROM` stage `base`" in build
    dpo = render_block("diagram-dpo", {}, src)
    # short participant labels, the role (the model's noun) and the extra; the class, and the venv each runs
    # in, are in the table under the diagram, whose first column names the lifeline
    assert "participant policy1 as policy worker<br/>automodel\n" in dpo
    assert "policy worker<br/>mcore\n" in dpo and "else policy backend mcore" in dpo
    megatron_venv = next(v.path for v in model.venvs if v.class_name == "MegatronPolicyWorker")
    assert megatron_venv not in dpo.split("```")[1]   # not in the diagram itself
    assert "MegatronPolicyWorker" not in dpo.split("```")[1]
    megatron_fqn = next(v.actor for v in model.venvs if v.class_name == "MegatronPolicyWorker")
    assert f"| policy worker (mcore) | `{megatron_fqn}` " \
           f"| policy worker | `mcore` | prefetched venv `{megatron_venv}` |" in dpo
    assert "Vllm" not in dpo and "generation worker<br/>" not in dpo
    v2 = render_block("diagram-grpo-v2", {}, src)
    assert "participant policy as policy worker<br/>automodel" in v2
    # the two vLLM workers share an extra: one lifeline, both named in the table and above it
    assert "participant gen1 as generation worker<br/>vllm" in v2
    assert "| generation worker (vllm) | `rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker` " \
           "| generation worker | `vllm`" in v2
    assert "participant sysenv as environment<br/>driver venv" in v2 and "refit" in v2
    assert ("| environment (driver venv) | `rl.environments.math_environment.MathEnvironment` | environment |  | the "
            "driver venv `/opt/nemo_rl_venv` (`sys.executable`), no venv of its own |") in v2
    assert "The lifeline `generation worker (vllm)` stands for 2 actors: VllmGenerationWorker, " \
           "VllmAsyncGenerationWorker." in v2
    megatron = render_block("diagram-grpo-megatron", {}, src)
    assert "participant policy as policy worker<br/>mcore" in megatron
    # the policy is the last lifeline: its long messages never set the gap between two neighbours
    participants = [ln for ln in megatron.split("```")[1].splitlines() if ln.strip().startswith("participant ")]
    assert participants[0].split()[1] == "driver" and participants[-1].split()[1] == "policy"


def test_a_diagram_table_says_what_it_counts_and_what_it_leaves_out(model):
    src = RenderInputs(model)
    for name in ("diagram-dpo", "diagram-grpo-v2", "diagram-grpo-megatron"):
        out = render_block(name, {}, src)
        table = rows(out)
        shown = len(table) - 1   # the driver's row is not an actor
        assert table[0][0].endswith("driver") and shown >= 1
        assert (f"the driver and each of the {shown} actor(s) the diagram draws or stands for; the registry's other "
                f"{len(model.actors) - shown} actor(s) are left out") in out, name


def test_the_extras_table_says_what_it_counts_and_who_is_in_no_row(model):
    out = render_block("image-inventory", {}, RenderInputs(model))
    extras = [r for r in rows(out) if r[1:2] in (["warmed"], ["not warmed"])]
    assert len(extras) == len(model.extras_defined)
    bare = [a for a in model.actors if not a.extras]
    assert bare and all(a.class_name not in out.split("| Extra |", 1)[1] for a in bare)
    assert (f"Each of the {len(model.extras_defined)} extras NeMo-RL defines, with the registry actors that run with "
            f"it (an actor with several extras is under each); the {len(bare)} actors with no extra are in none of "
            "the rows.") in out


def test_an_actors_role_is_stated_once_by_the_model_and_drawn_by_it(model):
    """The GRPO diagram asks each lifeline what its role (docgen.model.stages.ROLES) says, and the actors
    page and the diagram's table call it by the same noun: a rollout helper is never drawn returning rewards."""
    from docgen.model.stages import ROLES, role_of
    from docgen.render.site import actors_page, venv_page_names

    v2 = render_block("diagram-grpo-v2", {}, RenderInputs(model))
    source = v2.split("```")[1]
    # each lifeline is labelled with its role's noun, and each row of the table under it names the lifeline
    lanes = {line.split()[1]: line.split(" as ", 1)[1].split("<br/>")[0]
             for line in source.splitlines() if line.strip().startswith("participant ")}
    by_noun = {r.noun: r for r in ROLES.values()}
    checked = set()
    for line in source.splitlines():
        line = line.strip()
        if line.startswith("driver->>") and lanes.get(line[9:].split(":")[0]) in by_noun:
            pid, message = line[9:].split(": ", 1)
            role = by_noun[lanes[pid]]
            if role.asked:
                assert message == role.asked, line
                assert f"{pid}-->>driver: {role.answers}" in source
                checked.add(role.noun)
    assert "environment" in checked
    page = actors_page(model, venv_page_names(model.venvs))
    for row in rows(v2)[1:]:
        fqn = row[1].strip("`")
        role = ROLES[role_of(fqn)]
        assert row[2] == role.noun and row[0].startswith(role.noun + " (")
        assert f"is an {role.said}." in page or f"is a {role.said}." in page


def test_a_rollout_lane_is_asked_for_experience_not_rewards(repo_model):
    """The repository's GRPO diagram: SyncRolloutActor (a rollout helper) has a lifeline of its own, asked
    what the model says a rollout helper does, and no rewards come back from it."""
    from docgen.model.stages import ROLES

    out = render_block("diagram-grpo-v2", {}, RenderInputs(repo_model))
    source = out.split("```")[1]
    pid = next(line.split()[1] for line in source.splitlines() if f" as {ROLES['rollout'].noun}<br/>" in line)
    lane = next(r[0] for r in rows(out) if r[1].endswith(".SyncRolloutActor`"))
    assert lane.startswith(ROLES["rollout"].noun + " (")
    assert f"driver->>{pid}: {ROLES['rollout'].asked}" in source
    assert f"{pid}-->>driver: {ROLES['rollout'].answers}" in source and f"{pid}-->>driver: rewards" not in source


def test_sequence_participant_labels_stay_short(model):
    for name in ("diagram-build", "diagram-dpo", "diagram-grpo-v2", "diagram-grpo-megatron"):
        source = render_block(name, {}, RenderInputs(model)).split("```")[1]
        lines = [ln for ln in source.splitlines() if ln.strip().startswith("participant ")]
        for line in lines:
            text = line.split(" as ", 1)[1]
            assert all(len(part) <= 32 for part in text.split("<br/>")), line
        assert participant_labels(source)


def test_unprefetched_policy_is_drawn_as_built_on_first_use(tmp_path):
    text = DOCKERFILE.replace("    megatron_policy_worker.MegatronPolicyWorker", "    nothing.Matches")
    model = small_model(tmp_path, text)
    out = render_block("diagram-grpo-megatron", {}, RenderInputs(model))
    assert "participant policy as policy worker<br/>mcore, first use" in out
    assert "venv built on first use, `/opt/ray_venvs/rl.models.policy.workers.megatron_policy_worker." in out


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


GYM_AND_INSTALLS = DOCKERFILE.replace("FROM base AS nmp-rl-base\n", """\
# Gym environment server configs to prefetch; empty: none.
ARG GYM_CONFIGS=""
RUN <<"EOF" bash -eu
if [ -n "${GYM_CONFIGS}" ]; then uv run python examples/nemo_gym/prefetch_venvs.py ${GYM_CONFIGS}; fi
uv pip install --python /opt/nemo_rl_venv/bin/python "wandb==0.19.11"  # pinned: the logger breaks on newer
uv pip install --python /opt/nemo_rl_venv/bin/python --no-deps -e .
EOF
FROM base AS nmp-rl-base
""")


def test_venv_layers_and_quick_inventory_count_both_layers(tmp_path, model):
    assert rows(render_block("venv-layers", {}, RenderInputs(model)))[1] == [
        "NeMo-Gym environment venvs", "`/opt/gym_venvs`", "NeMo-Gym at run time (no prefetch in the image)", "—", "0"]
    gym = small_model(tmp_path, GYM_AND_INSTALLS)
    layers = rows(render_block("venv-layers", {}, RenderInputs(gym)))
    assert layers == [
        ["Ray worker venvs", "`/opt/ray_venvs`", "`tools/prefetch_venvs.py`", "3 prefetch filters", "4"],
        ["NeMo-Gym environment venvs", "`/opt/gym_venvs`", "`examples/nemo_gym/prefetch_venvs.py`",
         "`GYM_CONFIGS` empty by default: off", "0"]]
    quick = dict((r[0], r[1]) for r in rows(render_block("quick-inventory", {}, RenderInputs(gym))))
    assert quick["Worker venvs"] == "4 in `/opt/ray_venvs`, one per actor"
    assert quick["Gym environment venvs"] == ("0 by default in `/opt/gym_venvs`, one per environment server; "
                                              "driven by `GYM_CONFIGS`")
    assert quick["Installed into the driver venv after the syncs"] == (
        "`wandb==0.19.11`, `nemo-rl` (editable, `--no-deps`)")


def test_driver_installs_table_has_the_reason_beside_each_package(tmp_path, model):
    assert render_block("driver-installs", {}, RenderInputs(model)) == (
        "Nothing is installed into the driver venv beyond the syncs.\n")
    gym = small_model(tmp_path, GYM_AND_INSTALLS)
    assert rows(render_block("driver-installs", {}, RenderInputs(gym))) == [
        ["`wandb`", "`==0.19.11`", "no", "no", "pinned: the logger breaks on newer"],
        ["`nemo-rl`", "—", "yes", "yes", "—"]]
    text = inventory_text(gym)
    assert "Gym environment venvs in /opt/gym_venvs: 0 by default" in text
    assert "  wandb==0.19.11  # pinned: the logger breaks on newer" in text


def test_image_inventory_names_the_gym_step_and_driver_installs_in_their_stage(tmp_path):
    gym = small_model(tmp_path, GYM_AND_INSTALLS)
    builder = next(r for r in rows(render_block("image-inventory", {}, RenderInputs(gym))) if r[0] == "`builder`")
    assert ("prefetches NeMo-Gym environment venvs into `/opt/gym_venvs` when `GYM_CONFIGS` names configs "
            "(none by default)") in builder[2]
    assert "installs `wandb`, `nemo-rl` into the driver venv" in builder[2]


def test_filter_table_takes_the_why_from_a_mapping_comment(tmp_path, model):
    assert len(rows(render_block("filter-table", {}, RenderInputs(model)))[0]) == 3  # no comment table: no column
    text = DOCKERFILE.replace("# Three filters -> four venvs.\n", "# Three filters -> four venvs.\n"
                              "#   vllm.vllm_worker  -> vllm  (both generation workers)\n")
    table_rows = rows(render_block("filter-table", {}, RenderInputs(small_model(tmp_path, text))))
    assert [r[3] for r in table_rows] == ["both generation workers", "—", "—"]


def test_venv_inventory_ends_with_the_gym_layer_when_the_image_prefetches_it(tmp_path, model):
    assert not any("<server>" in r[0] for r in rows(render_block("venv-inventory", {}, RenderInputs(model))))
    gym = small_model(tmp_path, GYM_AND_INSTALLS)
    assert rows(render_block("venv-inventory", {}, RenderInputs(gym)))[-1] == [
        "`/opt/gym_venvs/<server>`", "NeMo-Gym environment server", "(the server's own requirements)",
        "at image build when `GYM_CONFIGS` names configs (none by default)"]


def test_a_repeated_block_is_rendered_once_per_render_inputs(model, monkeypatch):
    calls = []
    original = GENERATORS["extra-packages"]

    def counting(src, **args):
        calls.append(args)
        return original.render(src, **args)

    monkeypatch.setitem(GENERATORS, "extra-packages", original._replace(render=counting))
    src = RenderInputs(model)
    first = render_block("extra-packages", {"extra": "vllm"}, src)
    assert render_block("extra-packages", {"extra": "vllm"}, src) == first
    assert len(calls) == 1
    render_block("extra-packages", {"extra": "mcore"}, src)   # other arguments: another body
    assert len(calls) == 2
    assert render_block("extra-packages", {"extra": "vllm"}, RenderInputs(model)) == first   # another run
    assert len(calls) == 3


def test_a_repeated_value_is_rendered_once_per_model(model, monkeypatch):
    calls = []
    monkeypatch.setitem(VALUES, "venvs.count", lambda m: calls.append(m) or str(len(m.venvs)))
    assert render_value("venvs.count", model) == render_value("venvs.count", model) == "4"
    assert len(calls) == 1
    other = model._replace(venvs=model.venvs[:1])
    assert render_value("venvs.count", other) == "1"
    assert len(calls) == 2


def _table_as_defined(headers, rows) -> str:
    """A pipe table as docgen defines it: every cell's pipes escaped, its line breaks flattened, then stripped."""
    def cells(values):
        return " | ".join("" if v is None else str(v).replace("|", "\\|").replace("\r", " ").replace("\n", " ").strip()
                          for v in values)
    return "\n".join(["| " + cells(headers) + " |", "|" + "|".join(["---"] * len(headers)) + "|"]
                     + ["| " + cells(row) + " |" for row in rows]) + "\n"


@pytest.mark.parametrize("rows", [
    [], [()], [("a", 1, None)], [(" padded ", "\tx\u00a0", "")], [("a|b", "c")], [("line\nbreak", "x")],
    [("cr\r", "x"), ("plain", "y")], [("`a|b`", None), (" ", 2.5)], [("\u2028", "x\x0c")],
    [("ok", "fine"), ("last row | pipes", "\r\n")]])
def test_tables_agree_with_their_definition(rows):
    headers = ("One", "Two | three") if rows and len(rows[0]) == 2 else ("H",) * (len(rows[0]) if rows else 1)
    assert table(headers, rows) == _table_as_defined(headers, rows)
    assert table(headers, iter(rows)) == _table_as_defined(headers, rows)


@pytest.mark.parametrize("value", ["x", "", "a`b", "``", 3, None, "` `", "a```b", "`x", "x``", "one\ntwo"])
def test_code_spans_survive_backticks(value):
    text = str(value).replace("\n", " ")
    if "`" not in text:
        assert code(value) == f"`{text}`"
        return
    longest = max(len(run) for run in re.findall("`+", text))
    fence = "`" * (longest + 1)   # longer than any run inside, so no inner run can close the span
    assert code(value) == f"{fence} {text} {fence}"
    assert "\n" not in code(value)


HOSTILE = "<script>alert(1)</script> & <!-- docgen:end build-options --> `<b>kept</b>` a lone ` tick | pipe\nnext"


def test_input_prose_is_escaped_for_a_table_cell():
    from docgen.render.markdown import text
    cell = table(("H",), [(text(HOSTILE),)]).splitlines()[2]
    assert "<script>" not in cell and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; " in cell
    assert "<!--" not in cell and "&lt;!-- docgen:end build-options --&gt;" in cell
    assert "`<b>kept</b>`" in cell            # the author's code span is kept as it is
    assert "a lone &#96; tick \\| pipe next" in cell


def test_mermaid_labels_and_shell_words_are_escaped():
    from docgen.render.markdown import label, shell
    assert label('a "b"; #c <d> `e`\nf') == "a #quot;b#quot;#59; #35;c #lt;d#gt; #96;e#96; f"
    assert shell("nemo_rl.models.X") == "nemo_rl.models.X"   # plain names stay as they are
    assert shell("x; rm -rf ~") == "'x; rm -rf ~'"


def test_an_actors_role_is_read_from_its_package_else_from_its_modules_and_classs_words():
    """Upstream may move a worker out of `policy.workers`: `megatron.policy_worker.MegatronPolicyWorker` is still a
    policy worker, so the job diagrams keep drawing it."""
    from docgen.model.stages import role_of
    assert role_of("nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker") == "policy"
    assert role_of("nemo_rl.models.megatron.policy_worker.MegatronPolicyWorker") == "policy"
    assert role_of("nemo_rl.models.megatron.workers.MegatronGenerationWorker") == "generation"
    assert role_of("nemo_rl.experience.sync_rollout_actor.SyncRolloutActor") == "rollout"
    assert role_of("nemo_rl.utils.checkpoint_uploader.CheckpointUploaderActor") == "other"
