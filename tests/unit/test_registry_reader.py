"""The actor registry reader: static reading of the RL source, the facts file, and the renderer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docgen.errors import InputError
from docgen.snapshot.registry import (
    MODELOPT_MODULE,
    REGISTRY_MODULE,
    SYSTEM_COMMAND,
    SYSTEM_FLAG,
    VIRTUAL_CLUSTER,
    Registry,
    extras_of,
    read_registry_json,
)
from docgen.snapshot.registry_source import read_registry_source
from docgen.standin.registry_py import render_registry_source

FIXTURES = Path(__file__).parents[1] / "fixtures" / "registry"
MIRROR = FIXTURES / "mirror"
from tests.reference import NEMO_RL_REF, needs_reference  # noqa: E402
REFERENCE_JSON = NEMO_RL_REF / "registry.json"

UV = "uv run --locked"
# A few rows of the reference registry, written out so the mirror is checked without the reference.
EXPECTED_MIRROR_ROWS = {
    "nemo_rl.models.generation.vllm.vllm_worker.VllmGenerationWorker":
        ("VLLM", f"{UV} --extra vllm --directory {{git_root}}", SYSTEM_COMMAND, "upstream"),
    "nemo_rl.models.generation.dynamo.dynamo_worker.DynamoVllmWorker":
        ("SYSTEM", SYSTEM_COMMAND, SYSTEM_COMMAND, "upstream"),
    "nemo_rl.models.policy.workers.dtensor_policy_worker.DTensorPolicyWorker":
        ("FSDP", f"{UV} --extra fsdp --directory {{git_root}}", f"{UV} --extra fsdp --directory {{git_root}}", "upstream"),
    "nemo_rl.experience.sync_rollout_actor.SyncRolloutActor":
        ("VLLM", f"{UV} --extra vllm --directory {{git_root}}", f"{UV} --extra vllm --directory {{git_root}}", "upstream"),
    "nemo_rl.modelopt.models.policy.workers.megatron_quant_policy_worker.MegatronQuantPolicyWorker":
        (None, f"{UV} --extra modelopt --extra mcore --directory {{git_root}}", SYSTEM_COMMAND, "upstream"),
    "nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor":
        ("NEMO_GYM", f"{UV} --extra nemo_gym --directory {{git_root}}", f"{UV} --extra nemo_gym --directory {{git_root}}",
         "fork nmp/customizer"),
}


def rows(registry: Registry) -> list[tuple]:
    """What a registry says, without where it was read from."""
    return [(e.actor, e.member, e.command, e.command_system, e.source) for e in registry.entries]


def copy_tree(tmp_path: Path, name: str = "mirror") -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    return root


def edit(root: Path, rel: str, old: str, new: str) -> int:
    """Replace `old` once in a module of the tree; return the 1-based line where `new` starts."""
    path = root / rel
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} not unique in {rel}"
    text = text.replace(old, new)
    path.write_text(text)
    return text[: text.index(new)].count("\n") + 1


def execute_registry(root: Path, system: bool) -> list[list[str]]:
    """ACTOR_ENVIRONMENT_REGISTRY as Python computes it by importing the tree (a real run)."""
    program = (
        "import json, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from nemo_rl.distributed.virtual_cluster import git_root\n"
        "from nemo_rl.distributed.ray_actor_environment_registry import ACTOR_ENVIRONMENT_REGISTRY as r\n"
        "def plain(c): return 'sys.executable' if c == sys.executable else c.replace(git_root, '{git_root}')\n"
        "print(json.dumps([[actor, plain(command)] for actor, command in r.items()]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != SYSTEM_FLAG}
    if system:
        env[SYSTEM_FLAG] = "1"
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-c", program, str(root)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def write_tree(root: Path, modules: dict[str, str]) -> Path:
    for rel, text in modules.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


# -- reading the source --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "extras"),
    [
        (SYSTEM_COMMAND, ()),
        ("uv run --locked --directory {git_root}", ()),
        ("uv run --locked --extra vllm --directory {git_root}", ("vllm",)),
        ("uv run --locked --extra modelopt --extra vllm --directory {git_root}", ("modelopt", "vllm")),
        ("uv run --extra=fsdp --directory '/opt/nemo rl'", ("fsdp",)),
    ],
)
def test_extras_of(command, extras):
    assert extras_of(command) == extras


def test_mirror_fixture_reads_as_the_reference_table():
    registry = read_registry_source(MIRROR)
    assert len(registry.entries) == 29
    assert len({e.actor for e in registry.entries}) == 29
    assert list(registry.executables) == ["SYSTEM", "BASE", "VLLM", "FSDP", "AUTOMODEL", "MCORE", "NEMO_GYM", "SGLANG", "TRTLLM"]
    assert registry.executables["SYSTEM"] == SYSTEM_COMMAND
    assert registry.executables["NEMO_GYM"] == f"{UV} --extra nemo_gym --directory {{git_root}}"
    for actor, expected in EXPECTED_MIRROR_ROWS.items():
        entry = registry.get(actor)
        assert (entry.member, entry.command, entry.command_system, entry.source) == expected
    actors = [e.actor for e in registry.entries]
    # Modelopt actors are merged after the literal dict, the fork's two come last.
    assert actors.index("nemo_rl.environments.nemo_gym.NemoGym") == 21
    assert all(a.startswith("nemo_rl.modelopt.") for a in actors[22:27])
    assert [e.source for e in registry.entries].count("fork nmp/customizer") == 2


def test_entry_properties_and_locations():
    registry = read_registry_source(MIRROR)
    quant = registry.get("nemo_rl.modelopt.models.generation.vllm_quant_worker.VllmQuantGenerationWorker")
    assert quant.extras == ("modelopt", "vllm") and quant.extras_system == () and not quant.is_system
    assert quant.file == MODELOPT_MODULE
    text = (MIRROR / MODELOPT_MODULE).read_text().splitlines()
    assert quant.actor in text[quant.line - 1]
    assert registry.get("nemo_rl.environments.math_environment.MathEnvironment").is_system
    with pytest.raises(KeyError):
        registry.get("nemo_rl.nowhere.Missing")


@needs_reference
def test_mirror_fixture_equals_the_reference_json():
    source = read_registry_source(MIRROR)
    facts = read_registry_json(REFERENCE_JSON)
    assert [(e.actor, e.command, e.command_system) for e in source.entries] == [
        (e.actor, e.command, e.command_system) for e in facts.entries
    ]
    assert rows(source) == rows(facts)
    assert source.executables == facts.executables


@pytest.mark.parametrize("tree", ["mirror", "variants"])
@pytest.mark.parametrize("system", [False, True], ids=["flag-unset", "flag-1"])
def test_static_reading_equals_execution(tree, system):
    executed = execute_registry(FIXTURES / tree, system)
    registry = read_registry_source(FIXTURES / tree)
    assert [[e.actor, e.command_system if system else e.command] for e in registry.entries] == executed


def test_variants_follow_dict_update_semantics():
    registry = read_registry_source(FIXTURES / "variants")
    actors = [e.actor for e in registry.entries]
    assert actors == ["pkg.a.First", "pkg.b.Second", "pkg.c.Third", "pkg.d.Literal", "pkg.e.Interpreter",
                      "pkg.f.Gym", "pkg.m.Quant", "pkg.z.Last"]
    second = registry.get("pkg.b.Second")  # overridden by the modelopt registry, kept in place
    assert (second.member, second.extras, second.command_system) == (None, ("modelopt", "vllm"), SYSTEM_COMMAND)
    assert second.file == MODELOPT_MODULE
    assert registry.get("pkg.a.First").member == "FSDP"  # last duplicate key wins
    assert registry.get("pkg.c.Third").command_system == f"{UV} --directory {{git_root}}"
    assert registry.get("pkg.f.Gym").source == "fork nmp/customizer"
    assert registry.executables["GYM_ALIAS"] == registry.executables["NEMO_GYM"]


def test_side_effects_of_the_modules_never_happen(tmp_path, monkeypatch):
    root = copy_tree(tmp_path, "side_effects")
    # Executed, the tree writes its marker and then fails to import: the fixture is real.
    executed_marker = tmp_path / "executed.marker"
    env = {**os.environ, "REGISTRY_FIXTURE_MARKER": str(executed_marker)}
    program = "import sys; sys.path.insert(0, sys.argv[1]); import nemo_rl.distributed.ray_actor_environment_registry"
    done = subprocess.run([sys.executable, "-I", "-B", "-c", program, str(root)], env=env, capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert done.returncode != 0 and "modelopt needs a GPU" in done.stderr
    assert executed_marker.is_file()

    read_marker = tmp_path / "read.marker"
    monkeypatch.setenv("REGISTRY_FIXTURE_MARKER", str(read_marker))
    monkeypatch.chdir(tmp_path)
    registry = read_registry_source(root)
    assert not read_marker.exists() and not (tmp_path / "imported.marker").exists()
    assert [(e.actor.rsplit(".", 1)[1], e.extras, e.command_system) for e in registry.entries] == [
        ("VllmGenerationWorker", ("vllm",), SYSTEM_COMMAND),
        ("VllmQuantGenerationWorker", ("modelopt", "vllm"), SYSTEM_COMMAND),
    ]


# -- errors --------------------------------------------------------------------------------------

VLLM_ENTRY = '"nemo_rl.models.generation.vllm.vllm_worker.VllmGenerationWorker": VLLM_EXECUTABLE,'
GYM_ENTRY = '"nemo_rl.environments.nemo_gym.NemoGym": PY_EXECUTABLES.NEMO_GYM,'
MODELOPT_IMPORT = "from nemo_rl.modelopt.registry import MODELOPT_ACTOR_REGISTRY"

# case: (module edited, old text, new text, message, where: (module, text on the line) or None for the edit)
SOURCE_ERRORS = {
    "unknown member": (REGISTRY_MODULE, GYM_ENTRY, '"nemo_rl.environments.nemo_gym.NemoGym": PY_EXECUTABLES.NOPE,',
                       "PY_EXECUTABLES has no member NOPE", None),
    "undefined alias": (REGISTRY_MODULE, VLLM_ENTRY, '"nemo_rl.x.Y": MISSING_EXECUTABLE,',
                        "'MISSING_EXECUTABLE' is not defined", None),
    "call value": (REGISTRY_MODULE, GYM_ENTRY, '"nemo_rl.environments.nemo_gym.NemoGym": get_executable("gym"),',
                   "cannot evaluate get_executable('gym') statically", None),
    "non-string key": (REGISTRY_MODULE, GYM_ENTRY, "GYM_ACTOR: PY_EXECUTABLES.NEMO_GYM,",
                       "registry key GYM_ACTOR is not a string literal", None),
    "unknown placeholder": (VIRTUAL_CLUSTER, 'VLLM = f"uv run --locked --extra vllm --directory {git_root}"',
                            'VLLM = f"uv run --locked --extra vllm --directory {repo_dir}"',
                            "unknown f-string placeholder {repo_dir}", None),
    "module not in the tree": (REGISTRY_MODULE, MODELOPT_IMPORT,
                               "from nemo_rl.modelopt.quant_registry import MODELOPT_ACTOR_REGISTRY",
                               "nemo_rl.modelopt.quant_registry is not a module in the source tree", None),
    "import leaves the tree": (MODELOPT_MODULE, "from nemo_rl.distributed.virtual_cluster import PY_EXECUTABLES, git_root",
                               "from ray_helpers.cluster import PY_EXECUTABLES, git_root",
                               "ray_helpers.cluster is not a module in the source tree", None),
    "relative import above the root": (MODELOPT_MODULE, "from nemo_rl.distributed.virtual_cluster import",
                                       "from ....distributed.virtual_cluster import",
                                       "a relative import is not a module in the source tree", None),
    "name missing in the imported module": (MODELOPT_MODULE, "MODELOPT_ACTOR_REGISTRY = {", "MODELOPT_REGISTRY = {",
                                            "nemo_rl.modelopt.registry defines no MODELOPT_ACTOR_REGISTRY",
                                            (REGISTRY_MODULE, MODELOPT_IMPORT)),
    "placeholder not imported": (MODELOPT_MODULE, "import PY_EXECUTABLES, git_root", "import PY_EXECUTABLES",
                                 "unknown f-string placeholder {git_root}: git_root is not defined",
                                 (MODELOPT_MODULE, '--extra modelopt --extra vllm --directory {git_root}"')),
    "member not a command": (VIRTUAL_CLUSTER, 'FSDP = f"uv run --locked --extra fsdp --directory {git_root}"',
                             "FSDP = 5", "a PY_EXECUTABLES member is not an executable command", None),
    "class absent": (VIRTUAL_CLUSTER, "class PY_EXECUTABLES:", "class PY_EXECUTABLES_V2:",
                     "class PY_EXECUTABLES is not defined", (VIRTUAL_CLUSTER, None)),
    "syntax error": (MODELOPT_MODULE, "MODELOPT_ACTOR_REGISTRY = {", "MODELOPT_ACTOR_REGISTRY = = {",
                     "syntax error", None),
    "other environment variable": (REGISTRY_MODULE, 'os.environ.get("NEMO_RL_PY_EXECUTABLES_SYSTEM", "0")',
                                   'os.environ.get("OTHER_FLAG", "0")', "only the NEMO_RL_PY_EXECUTABLES_SYSTEM", None),
}


@pytest.mark.parametrize("case", SOURCE_ERRORS)
def test_source_errors_name_file_and_line(tmp_path, case):
    rel, old, new, message, where = SOURCE_ERRORS[case]
    root = copy_tree(tmp_path)
    line = edit(root, rel, old, new)
    if where is not None:
        rel, text = where
        lines = (root / rel).read_text().splitlines()
        line = 1 if text is None else next(n for n, content in enumerate(lines, 1) if text in content)
    with pytest.raises(InputError) as caught:
        read_registry_source(root)
    error = caught.value
    assert message in error.message
    assert error.path.endswith(rel) and error.line == line, str(error)
    assert (root / rel).is_file() and str(root) in error.path


def test_absent_registry_dict(tmp_path):
    root = copy_tree(tmp_path)
    edit(root, REGISTRY_MODULE, "ACTOR_ENVIRONMENT_REGISTRY: dict[str, str] = {", "ACTOR_ENV: dict[str, str] = {")
    with pytest.raises(InputError, match=r"ray_actor_environment_registry\.py:1: ACTOR_ENVIRONMENT_REGISTRY is not defined"):
        read_registry_source(root)


def test_missing_module(tmp_path):
    root = copy_tree(tmp_path)
    (root / REGISTRY_MODULE).unlink()
    with pytest.raises(InputError, match="module not found"):
        read_registry_source(root)


def test_unused_broken_code_does_not_matter(tmp_path):
    root = copy_tree(tmp_path)
    edit(root, REGISTRY_MODULE, "USE_SYSTEM_EXECUTABLE =",
         "BROKEN = PY_EXECUTABLES.NOPE\nOTHER = {1: make()}\nUSE_SYSTEM_EXECUTABLE =")
    assert rows(read_registry_source(root)) == rows(read_registry_source(MIRROR))


# -- the facts file ------------------------------------------------------------------------------

FACTS = {
    "py_executables": {"SYSTEM": SYSTEM_COMMAND, "VLLM": f"{UV} --extra vllm --directory {{git_root}}"},
    "registry": [
        {"actor": "pkg.A", "py_executable": "VLLM", "command": f"{UV} --extra vllm --directory {{git_root}}",
         "with_NEMO_RL_PY_EXECUTABLES_SYSTEM=1": SYSTEM_COMMAND, "source": "upstream"},
        {"actor": "pkg.B", "py_executable": None, "command": f"{UV} --extra modelopt --directory {{git_root}}",
         "with_NEMO_RL_PY_EXECUTABLES_SYSTEM=1": SYSTEM_COMMAND, "source": "fork nmp/customizer"},
    ],
}


def write_facts(tmp_path: Path, data) -> Path:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data, indent=1) if not isinstance(data, str) else data)
    return path


def test_facts_file_reads(tmp_path):
    registry = read_registry_json(write_facts(tmp_path, FACTS))
    assert rows(registry) == [
        ("pkg.A", "VLLM", f"{UV} --extra vllm --directory {{git_root}}", SYSTEM_COMMAND, "upstream"),
        ("pkg.B", None, f"{UV} --extra modelopt --directory {{git_root}}", SYSTEM_COMMAND, "fork nmp/customizer"),
    ]
    text = (tmp_path / "registry.json").read_text().splitlines()
    assert [text[e.line - 1].strip() for e in registry.entries] == ["{", "{"]
    assert '"pkg.B"' in text[registry.entries[1].line]


def _facts_with(index: int, **changes) -> dict:
    data = json.loads(json.dumps(FACTS))
    for key, value in changes.items():
        if value is KeyError:
            del data["registry"][index][key]
        else:
            data["registry"][index][key] = value
    return data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"command": KeyError}, "registry entry 1: missing key 'command'"),
        ({"with_NEMO_RL_PY_EXECUTABLES_SYSTEM=1": KeyError}, "registry entry 1: missing key 'with_NEMO_RL"),
        ({"py_executable": "NOPE"}, "registry entry 1: unknown PY_EXECUTABLES member 'NOPE'"),
        ({"py_executable": "SYSTEM"}, "registry entry 1: command differs from PY_EXECUTABLES.SYSTEM"),
        ({"actor": "pkg.A"}, "registry entry 1: duplicate actor pkg.A"),
        ({"command": 3}, "registry entry 1: values must be strings"),
        ({"source": "somewhere"}, "registry entry 1: source must be"),
    ],
)
def test_facts_file_entry_errors(tmp_path, changes, message):
    path = write_facts(tmp_path, _facts_with(1, **changes))
    with pytest.raises(InputError) as caught:
        read_registry_json(path)
    assert message in str(caught.value)
    lines = path.read_text().splitlines()
    entry_starts = [n for n, text in enumerate(lines, 1) if text == "  {"]
    assert caught.value.line == entry_starts[1]


def test_facts_file_syntax_and_shape_errors(tmp_path):
    broken = json.dumps(FACTS, indent=1).replace('"pkg.B",', '"pkg.B"')
    with pytest.raises(InputError) as caught:
        read_registry_json(write_facts(tmp_path, broken))
    assert "not valid JSON" in caught.value.message
    assert '"pkg.B"' in broken.splitlines()[caught.value.line - 2]
    with pytest.raises(InputError, match=r"registry\.json:2: 'py_executables' must map"):
        read_registry_json(write_facts(tmp_path, {"py_executables": ["SYSTEM"], "registry": []}))
    with pytest.raises(InputError, match="'registry' must be a list"):
        read_registry_json(write_facts(tmp_path, {"py_executables": {}}))
    with pytest.raises(InputError, match="cannot read"):
        read_registry_json(tmp_path / "absent.json")


# -- rendering -----------------------------------------------------------------------------------


def round_trip(tmp_path: Path, registry: Registry) -> tuple[Path, Registry]:
    root = write_tree(tmp_path / "rendered", render_registry_source(registry))
    return root, read_registry_source(root)


@pytest.mark.parametrize("tree", ["mirror", "variants"])
def test_render_round_trip_and_execution(tmp_path, tree):
    original = read_registry_source(FIXTURES / tree)
    root, again = round_trip(tmp_path, original)
    assert sorted(render_registry_source(original)) == sorted([VIRTUAL_CLUSTER, REGISTRY_MODULE, MODELOPT_MODULE])
    assert rows(again) == rows(original)
    assert again.executables == original.executables
    for system in (False, True):  # the rendered modules are real Python that agrees with the reader
        assert execute_registry(root, system) == [
            [e.actor, e.command_system if system else e.command] for e in original.entries
        ]


def test_render_writes_upstream_style(tmp_path):
    modules = render_registry_source(read_registry_source(MIRROR))
    modelopt = modules[MODELOPT_MODULE]
    assert 'else f"uv run --locked --extra modelopt --extra vllm --directory {git_root}"' in modelopt
    assert "from nemo_rl.distributed.virtual_cluster import PY_EXECUTABLES, git_root" in modelopt
    main = modules[REGISTRY_MODULE]
    assert "PY_EXECUTABLES.SYSTEM if USE_SYSTEM_EXECUTABLE else PY_EXECUTABLES.VLLM" in main
    assert "ACTOR_ENVIRONMENT_REGISTRY.update(MODELOPT_ACTOR_REGISTRY)" in main
    assert main.count("# fork nmp/customizer") == 2
    assert "    SYSTEM = sys.executable\n" in modules[VIRTUAL_CLUSTER]


@needs_reference
def test_render_round_trip_of_the_reference(tmp_path):
    facts = read_registry_json(REFERENCE_JSON)
    _, again = round_trip(tmp_path, facts)
    assert rows(again) == rows(facts)
    assert again.executables == facts.executables


def test_render_rejects_a_source_it_cannot_write():
    registry = read_registry_source(FIXTURES / "variants")
    entry = registry.entries[0]
    odd = Registry(registry.executables, (entry._replace(source="vendored"),))
    with pytest.raises(ValueError, match="vendored"):
        render_registry_source(odd)
