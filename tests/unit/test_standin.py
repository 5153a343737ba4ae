"""docgen.standin: the stand-in workspace mirrors the snapshot and really locks and prefetches with uv."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from docgen.snapshot.load import load_snapshot
from docgen.snapshot.registry_source import read_registry_source
from docgen.standin import generate, plan_packages

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "snapshot" / "nemo-rl.json"
UV_DIR = Path(sys.executable).parent


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot(SNAPSHOT)


@pytest.fixture(scope="module")
def standin(snapshot, tmp_path_factory):
    out = tmp_path_factory.mktemp("standin") / "rl"
    generate(snapshot, out)
    return out


def test_workspace_files(standin):
    for rel in ("pyproject.toml", "uv.lock", "README.md", "nemo_rl/__init__.py",
                "nemo_rl/distributed/virtual_cluster.py", "nemo_rl/distributed/ray_actor_environment_registry.py",
                "nemo_rl/modelopt/registry.py", "nemo_rl/utils/prefetch_venvs.py", "tools/generate_fingerprint.py",
                "3rdparty/Gym-workspace/Gym/pyproject.toml"):
        assert (standin / rel).is_file(), rel


def test_extras_conflicts_and_gym_member_match_the_snapshot(snapshot, standin):
    project = tomllib.loads((standin / "pyproject.toml").read_text())
    assert tuple(project["project"]["optional-dependencies"]) == snapshot.extras
    conflicts = tuple(tuple((c.get("package"), c["extra"]) for c in group) for group in project["tool"]["uv"]["conflicts"])
    assert conflicts == snapshot.conflicts
    gym = tomllib.loads((standin / "3rdparty/Gym-workspace/Gym/pyproject.toml").read_text())["project"]
    assert gym["name"] == "nemo-gym" and "vllm" in gym["optional-dependencies"]


def test_uv_wrote_a_lock_with_the_heavy_packages_at_snapshot_versions(standin):
    lock = tomllib.loads((standin / "uv.lock").read_text())
    versions = {p["name"]: p.get("version") for p in lock["package"]}
    assert versions["transformer-engine"] == "2.15.0+42b8400"
    assert versions["vllm"] == "0.25.1"
    assert versions["flash-attn"] == "2.8.1+cu13torch2.10cxx11abitrue"
    sources = {p["name"]: p["source"] for p in lock["package"]}
    assert "directory" in sources["transformer-engine"]  # built once into uv's cache, shared by venvs
    for editable in ("megatron-core", "megatron-bridge", "nemo-automodel"):
        assert "editable" in sources[editable], editable


def test_registry_reads_back_equal_to_the_snapshot(snapshot, standin):
    back = read_registry_source(standin)
    assert back.executables == snapshot.registry.executables
    key = lambda e: (e.actor, e.member, e.command, e.command_system, e.source)  # noqa: E731
    assert [key(e) for e in back.entries] == [key(e) for e in snapshot.registry.entries]


def test_transformer_engine_is_planned_non_editable_for_automodel_and_mcore(snapshot):
    packages, requirements = plan_packages(snapshot)
    te = next(p for p in packages if p.name == "transformer-engine")
    assert not te.editable and te.version == "2.15.0+42b8400"
    assert te.requirement in requirements["automodel"] and te.requirement in requirements["mcore"]


def test_regenerating_replaces_the_whole_tree(snapshot, tmp_path):
    out = tmp_path / "rl"
    generate(snapshot, out, lock=False)
    (out / "stale.txt").write_text("old")
    generate(snapshot, out, lock=False)
    assert not (out / "stale.txt").exists() and not (out / "uv.lock").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["rl"]


def test_prefetch_makes_one_venv_per_selected_actor(standin, tmp_path):
    """Real uv, offline: filters OR-ed, negative filters after, system actors skipped, summary counts."""
    venvs = tmp_path / "venvs"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "NRL_CONTAINER", "UV_PROJECT_ENVIRONMENT")}
    env.update(PATH=f"{UV_DIR}:{env.get('PATH', '')}", PYTHONPATH=str(standin), NEMO_RL_VENV_DIR=str(venvs),
               UV_OFFLINE="1", UV_PYTHON_DOWNLOADS="never", UV_CACHE_DIR=str(tmp_path / "cache"),
               UV_PYTHON=sys.executable)
    proc = subprocess.run(
        [sys.executable, "nemo_rl/utils/prefetch_venvs.py", "vllm.vllm_worker", "math_environment",
         "--negative-filters", "Async"],
        cwd=standin, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    vllm_actor = "nemo_rl.models.generation.vllm.vllm_worker.VllmGenerationWorker"
    assert sorted(p.name for p in venvs.iterdir()) == [vllm_actor]
    assert "Prefetched: 1" in proc.stdout
    assert "Skipped (system Python): 2" in proc.stdout  # the two math environments
    check = subprocess.run([str(venvs / vllm_actor / "bin" / "python"), "-c",
                            "import vllm, deep_ep; print(vllm.__version__)"], capture_output=True, text=True)
    assert check.stdout.strip() == "0.25.1", check.stderr
