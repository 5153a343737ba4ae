"""`docgen diff OLD NEW` through the CLI, on the kinds of change a NeMo-RL bump brings.

Three sources of OLD/NEW pairs:
- the snapshot of the NeMo-RL reference (made here by `docgen snapshot`) and changed copies of its JSON:
  a package added to one extra, a version bump, actors added and renamed, a Python bump, a source build
  that stops being shared;
- the reference checkout itself, read in memory (OLD a snapshot, NEW a folder), and a changed copy of the
  real uv.lock that `uv export --frozen` still accepts (its git sources cannot be re-resolved here);
- a small workspace (tests/fixtures/diffws) locked by real `uv lock` before and after a change made in its
  pyproject.toml, so the lock is the one uv writes.

The reference is found by tests/reference.py ($NEMO_RL_REF_DIR, else ../shared/nemo-rl-ref beside the
repository); without it those tests skip, unless NMP_REQUIRE_REFERENCE=1 makes them fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docgen_cli import docgen

REPO = Path(__file__).resolve().parents[1]
WORKSPACE = REPO / "tests" / "fixtures" / "diffws"
UV = REPO / ".venv" / "bin" / "uv"

TE = "transformer-engine"
MEGATRON = "nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker"
DTENSOR_V2 = "nemo_rl.models.policy.workers.dtensor_policy_worker_v2.DTensorPolicyWorkerV2"
VLLM_FILTER_MATCH = "nemo_rl.models.generation.vllm.vllm_worker_v2.VllmGenerationWorkerV2"   # `vllm.vllm_worker`
UNFILTERED = "nemo_rl.models.policy.workers.lora_policy_worker.LoraPolicyWorker"


def diff_json(old: Path, new: Path, *extra: str) -> dict:
    run = docgen("diff", str(old), str(new), "--format", "json", *extra)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


# ------------------------------------------------------------------------------------------ the reference

@pytest.fixture(scope="session")
def reference() -> Path:
    from tests.reference import NEMO_RL_REF, REASON, reference_present
    if not reference_present() or not (NEMO_RL_REF / "registry.json").is_file():
        pytest.skip(REASON)
    return NEMO_RL_REF


@pytest.fixture(scope="session")
def base(reference: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference's snapshot, made by the CLI as a maintainer would."""
    tmp = tmp_path_factory.mktemp("diff-base")
    run = docgen("snapshot", "--from", str(reference), "--registry-facts", str(reference / "registry.json"),
                 "--root", str(tmp), "-o", str(tmp / "x.json"))
    assert run.returncode == 0, run.stderr
    return tmp / "x.json"


def changed_copy(base: Path, into: Path, change) -> Path:
    data = json.loads(base.read_text())
    change(data)
    out = into / "new.json"
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return out


def _keys_named(data: dict, name: str) -> list[str]:
    return [k for k, p in data["lock"]["packages"].items() if p["name"] == name]


def _replace_package(data: dict, old_key: str, new_key: str, *, only_sets=None, **fields) -> None:
    """Point install sets (all, or `only_sets`) at `new_key`, a copy of `old_key` with changed fields."""
    lock = data["lock"]
    lock["packages"][new_key] = {**lock["packages"][old_key], **fields}
    for key, members in lock["install_sets"].items():
        if old_key in members and (only_sets is None or key in only_sets):
            members[members.index(old_key)] = new_key
            members.sort()
    still_used = any(old_key in m for m in lock["install_sets"].values())
    if not still_used:
        del lock["packages"][old_key]
    for shared in lock["shared_builds"]:
        if shared["package"] == old_key and not still_used:
            shared["package"] = new_key


def _add_actor(data: dict, fqn: str, member: str) -> None:
    command = data["registry"]["executables"][member]
    data["registry"]["actors"].append({"actor": fqn, "member": member, "command": command,
                                       "command_system": command, "source": "upstream"})


def test_same_snapshot_twice_is_an_empty_report(base: Path) -> None:
    report = diff_json(base, base)
    s = report["summary"]
    assert [k for k, v in s.items() if v] == []
    assert [f["status"] for f in report["filters"]] == ["ok"] * 8
    assert report["venvs"]["old_count"] == report["venvs"]["new_count"] == 9
    versions = {k["name"]: k["new"] for k in report["key_versions"]}
    assert versions["torch"] == [{"version": "2.11.0+cu130", "in": sorted(
        ["(base)", "automodel", "fsdp", "mcore", "modelopt", "nemo-gym", "nvrx", "sglang", "trtllm", "vllm"])}]
    assert versions["python"] == {"requires_python": ">=3.13.14,<3.14", "platform": "linux x86_64, CPython 3.13"}


def test_package_added_to_one_extra(base: Path, tmp_path: Path) -> None:
    def add(data):
        data["lock"]["packages"]["tiny-tokenizer==0.3.1"] = {
            "name": "tiny-tokenizer", "version": "0.3.1", "source": "registry+https://index.invalid/simple",
            "source_kind": "registry", "source_built": False, "editable": False}
        for key in ("vllm", "modelopt+vllm"):   # every install set holding the extra
            data["lock"]["install_sets"][key] = sorted([*data["lock"]["install_sets"][key], "tiny-tokenizer==0.3.1"])

    report = diff_json(base, changed_copy(base, tmp_path, add))
    by_extras = {p["extras"]: p for p in report["packages"]}
    assert by_extras["vllm"]["added"] == [{"name": "tiny-tokenizer", "version": "0.3.1"}]
    assert by_extras["vllm"]["new_venvs"] == [
        "nemo_rl.models.generation.vllm.vllm_worker.VllmGenerationWorker",
        "nemo_rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker",
        "nemo_rl.experience.sync_rollout_actor.SyncRolloutActor"]
    others = [p for e, p in by_extras.items() if e != "vllm"]
    assert sorted(by_extras) == ["automodel", "fsdp", "mcore", "nemo-gym", "vllm"]
    assert all(not (p["added"] or p["removed"] or p["changed"]) for p in others)
    assert report["summary"]["packages_added"] == 1 and report["summary"]["key_versions_changed"] == []


def test_version_bump_of_torch_reaches_every_venv_and_the_key_versions(base: Path, tmp_path: Path) -> None:
    def bump(data):
        [key] = _keys_named(data, "torch")
        _replace_package(data, key, "torch==2.12.0+cu130", version="2.12.0+cu130")

    report = diff_json(base, changed_copy(base, tmp_path, bump))
    for row in report["packages"]:
        assert row["changed"] == [{"name": "torch", "old": "2.11.0+cu130", "new": "2.12.0+cu130"}], row["extras"]
        assert row["added"] == row["removed"] == []
    torch = next(k for k in report["key_versions"] if k["name"] == "torch")
    assert torch["changed"] and [v["version"] for v in torch["new"]] == ["2.12.0+cu130"]
    assert report["summary"]["key_versions_changed"] == ["torch"]
    text = docgen("diff", str(base), str(tmp_path / "new.json")).stdout
    assert re.search(r"^  torch +2\.11\.0\+cu130 -> 2\.12\.0\+cu130$", text, re.M), text
    assert "    ~ torch 2.11.0+cu130 -> 2.12.0+cu130" in text


def test_actors_added_and_whether_a_filter_selects_them(base: Path, tmp_path: Path) -> None:
    def add(data):
        _add_actor(data, VLLM_FILTER_MATCH, "VLLM")
        _add_actor(data, UNFILTERED, "AUTOMODEL")

    report = diff_json(base, changed_copy(base, tmp_path, add))
    added = {a["actor"]: a for a in report["actors"]["added"]}
    assert added[VLLM_FILTER_MATCH]["prefetched_by"] == ["vllm.vllm_worker"]
    assert added[UNFILTERED]["prefetched_by"] == [] and added[UNFILTERED]["extras"] == ["automodel"]
    assert [v["actor"] for v in report["venvs"]["added"]] == [VLLM_FILTER_MATCH]
    assert report["venvs"]["added"][0]["path"] == f"/opt/ray_venvs/{VLLM_FILTER_MATCH}"
    vllm = next(f for f in report["filters"] if f["filter"] == "vllm.vllm_worker")
    assert vllm["status"] == "changed" and vllm["new_actors"][-1] == VLLM_FILTER_MATCH
    assert report["venvs"]["new_count"] == 10
    md = docgen("diff", str(base), str(tmp_path / "new.json"), "--format", "markdown").stdout
    assert f"| added | `{UNFILTERED}` | automodel | not prefetched |" in md
    assert f"| added | `{VLLM_FILTER_MATCH}` | vllm | prefetched by `vllm.vllm_worker` |" in md


def test_actors_renamed_moved_module_and_renamed_class(base: Path, tmp_path: Path) -> None:
    moved = "nemo_rl.models.policy.megatron.policy_worker.MegatronPolicyWorker"
    renamed = "nemo_rl.models.policy.workers.dtensor_policy_worker_v2.AutomodelPolicyWorker"

    def rename(data):
        for actor in data["registry"]["actors"]:
            actor["actor"] = {MEGATRON: moved, DTENSOR_V2: renamed}.get(actor["actor"], actor["actor"])

    report = diff_json(base, changed_copy(base, tmp_path, rename))
    assert report["actors"]["added"] == report["actors"]["removed"] == []
    pairs = {(r["old"], r["new"], r["how"]) for r in report["actors"]["renamed"]}
    assert pairs == {(MEGATRON, moved, "moved module"), (DTENSOR_V2, renamed, "renamed class")}
    for r in report["actors"]["renamed"]:
        assert r["old_prefetched_by"] and r["new_prefetched_by"] == []
    stale = {f["filter"]: f for f in report["filters"] if f["status"] == "no-match"}
    assert sorted(stale) == ["dtensor_policy_worker_v2.DTensorPolicyWorkerV2",
                             "megatron_policy_worker.MegatronPolicyWorker"]
    assert stale["megatron_policy_worker.MegatronPolicyWorker"]["old_actors"] == [MEGATRON]
    assert {v["actor"] for v in report["venvs"]["removed"]} == {MEGATRON, DTENSOR_V2}
    assert report["venvs"]["added"] == [] and report["venvs"]["new_count"] == 7
    text = docgen("diff", str(base), str(tmp_path / "new.json")).stdout
    assert f"  ~ {MEGATRON} -> {moved} (moved module): was prefetched by " \
           "`megatron_policy_worker.MegatronPolicyWorker`; no filter matches the new name" in text
    assert re.search(r"^  no-match megatron_policy_worker\.MegatronPolicyWorker +matches NO actor in NEW", text, re.M)


def test_python_bump(base: Path, tmp_path: Path) -> None:
    def bump(data):
        data["project"]["requires_python"] = ">=3.14.1,<3.15"
        data["provenance"]["platform"] = "linux x86_64, CPython 3.14"

    report = diff_json(base, changed_copy(base, tmp_path, bump))
    py = next(k for k in report["key_versions"] if k["name"] == "python")
    assert py["changed"] and py["old"]["requires_python"] == ">=3.13.14,<3.14"
    assert py["new"] == {"requires_python": ">=3.14.1,<3.15", "platform": "linux x86_64, CPython 3.14"}
    assert report["summary"]["key_versions_changed"] == ["python"]


def test_transformer_engine_no_longer_shared_by_automodel_and_mcore(base: Path, tmp_path: Path) -> None:
    def split(data):
        [key] = _keys_named(data, TE)
        _replace_package(data, key, "transformer-engine==2.16.0+0a1b2c3", only_sets={"mcore", "mcore+modelopt"},
                         version="2.16.0+0a1b2c3")
        data["lock"]["shared_builds"] = [s for s in data["lock"]["shared_builds"] if s["package"] != key]

    report = diff_json(base, changed_copy(base, tmp_path, split))
    assert report["shared_builds"]["lost"] == [
        {"package": TE, "old": [{"version": "2.15.0+42b8400", "source": "git 42b840051647",
                                 "extras": ["automodel", "mcore"]}]}]
    te = next(k for k in report["key_versions"] if k["name"] == TE)
    assert te["changed"] and te["new"] == [{"version": "2.15.0+42b8400", "in": ["automodel"]},
                                           {"version": "2.16.0+0a1b2c3", "in": ["mcore"]}]
    mcore = next(p for p in report["packages"] if p["extras"] == "mcore")
    assert mcore["changed"] == [{"name": TE, "old": "2.15.0+42b8400", "new": "2.16.0+0a1b2c3"}]
    text = docgen("diff", str(base), str(tmp_path / "new.json")).stdout
    assert "  - transformer-engine: no longer shared (was 2.15.0+42b8400 shared by automodel, mcore)" in text


def test_same_version_from_another_git_commit(base: Path, tmp_path: Path) -> None:
    """deep-ep keeps its version string across commits: the change shows as the commit."""
    def move(data):
        key = next(k for k in _keys_named(data, "deep-ep")
                   if any(k in data["lock"]["install_sets"][s] for s in ("automodel", "mcore")))
        pkg = data["lock"]["packages"][key]
        source = re.sub(r"#[0-9a-f]+$", "#" + "f" * 40, pkg["source"])
        _replace_package(data, key, key.split("@")[0] + "@git:fffffff", source=source)

    report = diff_json(base, changed_copy(base, tmp_path, move))
    rows = {p["extras"]: p["changed"] for p in report["packages"] if p["changed"]}
    assert set(rows) == {"automodel", "mcore", "vllm"}, rows   # the three extras share this build
    [change] = rows["mcore"]
    assert change["name"] == "deep-ep" and change["new"] == "1.2.1+29d31c0 (git ffffffffffff)"
    assert change["old"].startswith("1.2.1+29d31c0 (git ") and change["old"] != change["new"]
    [shared] = report["shared_builds"]["changed"]   # still shared by the same extras, but rebuilt
    assert shared["package"] == "deep-ep" and shared["new"] == [
        {"version": "1.2.1+29d31c0", "source": "git ffffffffffff", "extras": ["vllm", "automodel", "mcore"]}]
    text = docgen("diff", str(base), str(tmp_path / "new.json")).stdout
    assert "  ~ deep-ep: 1.2.1+29d31c0 (git 29d31c095796) shared by vllm, automodel, mcore -> " \
           "1.2.1+29d31c0 (git ffffffffffff) shared by vllm, automodel, mcore" in text, text


def test_actor_whose_executable_changed(base: Path, tmp_path: Path) -> None:
    def switch(data):
        for actor in data["registry"]["actors"]:
            if actor["actor"] == MEGATRON:
                actor["member"], actor["command"] = "AUTOMODEL", data["registry"]["executables"]["AUTOMODEL"]

    report = diff_json(base, changed_copy(base, tmp_path, switch))
    [changed] = report["actors"]["changed"]
    assert (changed["actor"], changed["old_extras"], changed["new_extras"]) == (MEGATRON, ["mcore"], ["automodel"])
    assert changed["new_prefetched_by"] == ["megatron_policy_worker.MegatronPolicyWorker"]
    rows = {p["extras"]: p for p in report["packages"]}
    assert rows["mcore"]["old_venvs"] == [MEGATRON] and rows["mcore"]["new_venvs"] == []
    assert MEGATRON in rows["automodel"]["new_venvs"]
    text = docgen("diff", str(base), str(tmp_path / "new.json")).stdout
    assert "  mcore (MegatronPolicyWorker (OLD only)): unchanged" in text
    assert "  automodel (DTensorPolicyWorkerV2, MegatronPolicyWorker (NEW only)): unchanged" in text
    assert report["venvs"]["added"] == report["venvs"]["removed"] == []


def test_extra_the_dockerfile_warms_removed_is_reported_not_an_error(base: Path, tmp_path: Path) -> None:
    def drop(data):
        del data["project"]["extras"]["fsdp"]
        del data["lock"]["install_sets"]["fsdp"]
        data["registry"]["actors"] = [a for a in data["registry"]["actors"] if "--extra fsdp" not in a["command"]]
        # as `docgen snapshot` writes it: a shared build counts the extras that are left (two or more)
        shared = [{**s, "extras": [e for e in s["extras"] if e != "fsdp"]} for s in data["lock"]["shared_builds"]]
        data["lock"]["shared_builds"] = [s for s in shared if len(s["extras"]) >= 2]

    report = diff_json(base, changed_copy(base, tmp_path, drop))
    assert report["extras"] == {"added": [], "removed": ["fsdp"]}
    assert "fsdp" in report["dockerfile"]["problems"]["new"] and report["dockerfile"]["problems"]["old"] is None
    stale = [f["filter"] for f in report["filters"] if f["status"] == "no-match"]
    assert stale == ["dtensor_policy_worker.DTensorPolicyWorker"]


def test_snapshot_against_the_checkout_read_in_memory(reference: Path, base: Path, tmp_path: Path) -> None:
    before = sorted(p.name for p in tmp_path.iterdir())
    report = diff_json(base, reference, "--registry-facts", str(reference / "registry.json"))
    assert report["new"]["kind"] == "checkout" and report["old"]["kind"] == "snapshot"
    assert [k for k, v in report["summary"].items() if v] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_checkout_with_registry_modules_and_an_actor_moved_in_the_source(
        reference: Path, base: Path, tmp_path: Path) -> None:
    """A checkout whose registry is Python (tests/fixtures/registry/mirror, the reference's registry as
    NeMo-RL writes it), read statically; the bump moves SyncRolloutActor to another module."""
    new = tmp_path / "RL"
    new.mkdir()
    for name in ("pyproject.toml", "uv.lock"):
        shutil.copy(reference / name, new / name)
    shutil.copytree(REPO / "tests" / "fixtures" / "registry" / "mirror" / "nemo_rl", new / "nemo_rl")
    registry = new / "nemo_rl" / "distributed" / "ray_actor_environment_registry.py"
    old_fqn = "nemo_rl.experience.sync_rollout_actor.SyncRolloutActor"
    moved = "nemo_rl.experience.rollouts.sync_actor.SyncRolloutActor"
    assert registry.read_text().count(f'"{old_fqn}"') == 1
    registry.write_text(registry.read_text().replace(f'"{old_fqn}"', f'"{moved}"'))

    report = diff_json(base, new)
    assert report["new"]["kind"] == "checkout"
    assert report["actors"]["renamed"] == [{
        "old": old_fqn, "new": moved, "how": "moved module", "old_extras": ["vllm"], "new_extras": ["vllm"],
        "old_prefetched_by": ["sync_rollout_actor.SyncRolloutActor"], "new_prefetched_by": [], "system": False}]
    stale = [f["filter"] for f in report["filters"] if f["status"] == "no-match"]
    assert stale == ["sync_rollout_actor.SyncRolloutActor"]
    assert report["summary"]["packages_added"] == report["summary"]["packages_changed"] == 0


def test_changed_copy_of_the_real_lock(reference: Path, base: Path, tmp_path: Path) -> None:
    """Edit the real uv.lock as a bump would (ray re-versioned; a package the lock already holds added to
    the fsdp extra), check uv still accepts it, and diff the reference's snapshot against it."""
    if not UV.exists():
        pytest.skip(f"uv not installed at {UV}")
    new = tmp_path / "RL"
    new.mkdir()
    shutil.copy(reference / "pyproject.toml", new / "pyproject.toml")
    lock = (reference / "uv.lock").read_text()
    # ray's whole entry moves to the new version (its wheel file names too: uv checks them); hashes stay
    start = lock.index('[[package]]\nname = "ray"\nversion = "2.56.1"\n')
    end = lock.index("\n[[package]]", start)
    assert lock[start:end].count("2.56.1") > 2
    lock = lock[:start] + lock[start:end].replace("2.56.1", "2.57.0") + lock[end:]
    root = lock.index('[[package]]\nname = "nemo-rl"\n')
    fsdp = lock.index("\nfsdp = [\n", root) + len("\nfsdp = [\n")
    lock = lock[:fsdp] + '    { name = "wget" },\n' + lock[fsdp:]
    (new / "uv.lock").write_text(lock)

    done = subprocess.run([str(UV), "export", "--frozen", "--no-hashes", "--no-emit-project", "--extra", "fsdp"],
                          cwd=new, capture_output=True, text=True, timeout=120,
                          env={"UV_NATIVE_TLS": "1", **os.environ, "UV_PYTHON_DOWNLOADS": "never", "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert re.search(r"^ray==2\.57\.0", done.stdout, re.M) and re.search(r"^wget==", done.stdout, re.M)

    report = diff_json(base, new, "--registry-facts", str(reference / "registry.json"))
    fsdp_row = next(p for p in report["packages"] if p["extras"] == "fsdp")
    assert [a["name"] for a in fsdp_row["added"]] == ["wget"]
    for row in report["packages"]:
        assert {"name": "ray", "old": "2.56.1", "new": "2.57.0"} in row["changed"], row["extras"]
    assert report["summary"]["key_versions_changed"] == ["ray"]


# ------------------------------------------------------------------------------------------ output forms

def test_markdown_and_the_job_summary(base: Path, tmp_path: Path) -> None:
    def bump(data):
        [key] = _keys_named(data, "ray")
        _replace_package(data, key, "ray==2.57.0", version="2.57.0")

    new = changed_copy(base, tmp_path, bump)
    summary = tmp_path / "step-summary.md"
    summary.write_text("## earlier step\n")
    run = docgen("diff", str(base), str(new), "--summary", env={**os.environ, "GITHUB_STEP_SUMMARY": str(summary)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("OLD ")   # stdout keeps the chosen format (text)
    md = docgen("diff", str(base), str(new), "--format", "markdown").stdout
    assert summary.read_text() == "## earlier step\n" + md   # appended, not replaced
    assert md.startswith("### NeMo-RL bump") and "| **ray** | 2.56.1 | 2.57.0 |" in md
    assert "| torch | 2.11.0+cu130 | 2.11.0+cu130 |" in md
    # ray moves in every venv: one line for all of them, not one per install set
    assert "<details><summary>1 package change(s), each once with the venvs it reaches</summary>" in md
    assert md.count("! ray 2.56.1 -> 2.57.0") == 1 and "! ray 2.56.1 -> 2.57.0  in every venv (9)" in md


@pytest.mark.parametrize(("args", "env", "message"), [
    (["{base}", "{tmp}/absent.json"], {}, r"absent\.json: no such snapshot file or RL checkout folder"),
    (["{base}", "{tmp}/bad.json"], {}, r"bad\.json:3: not valid JSON"),
    (["{base}", "{tmp}/other.json"], {}, r"other\.json:1: unsupported snapshot format"),
    (["{base}", "{tmp}"], {}, r"pyproject\.toml: missing"),
    (["{base}", "{base}", "--registry-facts", "{base}"], {}, r"neither OLD nor NEW is an RL checkout folder"),
    (["{base}", "{base}", "--new-registry-facts", "{base}"], {}, r"registry facts apply to an RL checkout folder"),
    (["{base}", "{base}", "--summary"], {"GITHUB_STEP_SUMMARY": ""}, r"--summary: the variable is not set"),
    (["{base}", "{base}", "--dockerfile", "{tmp}/absent.Dockerfile"], {}, r"absent\.Dockerfile: cannot read"),
])
def test_bad_input_exits_2_naming_the_file(base: Path, tmp_path: Path, args, env, message) -> None:
    (tmp_path / "bad.json").write_text('{\n "format": 1,\n "lock": ]\n}\n')
    (tmp_path / "other.json").write_text('{"format": 99}\n')
    listing = sorted(p.name for p in tmp_path.iterdir())
    run = docgen("diff", *[a.format(base=base, tmp=tmp_path) for a in args], env={**os.environ, **env})
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert re.search(message, run.stderr) and "Traceback" not in run.stderr, run.stderr
    assert run.stdout == "" and sorted(p.name for p in tmp_path.iterdir()) == listing


# ------------------------------------------------------------------------- workspaces locked by real uv

def _uv_lock(ws: Path) -> None:
    # the test's own interpreter: the one uv is sure to find on any machine that runs the tests
    env = {"UV_NATIVE_TLS": "1", **os.environ, "UV_PYTHON_DOWNLOADS": "never", "NO_COLOR": "1"}
    done = subprocess.run([str(UV), "lock", "--python", sys.executable], cwd=ws, env=env, capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        if re.search(r"(?i)connect|network|dns|timed out|failed to fetch|error sending request", done.stderr):
            pytest.skip(f"uv cannot reach the package index: {done.stderr.strip()[-300:]}")
        pytest.fail(f"uv lock failed:\n{done.stderr}")


@pytest.fixture(scope="module")
def locked_before(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not UV.exists():
        pytest.skip(f"uv not installed at {UV}")
    ws = tmp_path_factory.mktemp("diffws") / "before"
    shutil.copytree(WORKSPACE, ws)
    _uv_lock(ws)
    return ws


def _py_now() -> str:
    major, minor, micro = sys.version_info[:3]
    return f">={major}.{minor}.{micro},<{major}.{minor + 1}"


# (what a maintainer changes in pyproject.toml, the lines replaced)
BUMPS = {
    "package-added-to-vllm": ('vllm = ["iniconfig==2.0.0"]', 'vllm = ["iniconfig==2.0.0", "tomli==2.0.1"]'),
    "version-bump": ('fsdp = ["packaging==24.0"]', 'fsdp = ["packaging==24.1"]'),
    "python-bump": ('requires-python = ">=3.11"', None),
    "mcore-drops-te-lib": ('mcore = ["pluggy==1.4.0", "te-lib"]', 'mcore = ["pluggy==1.4.0"]'),
    # a package built from a path source joins mcore (the test writes libs/opt-lib and its uv source)
    "mcore-gains-a-path-build": ('mcore = ["pluggy==1.4.0", "te-lib"]', 'mcore = ["pluggy==1.4.0", "te-lib", "opt-lib"]'),
}


def _add_path_package(ws: Path, name: str, version: str) -> None:
    lib = ws / "libs" / name
    (lib / "src" / name.replace("-", "_")).mkdir(parents=True)
    (lib / "src" / name.replace("-", "_") / "__init__.py").write_text("")
    (lib / "pyproject.toml").write_text(
        f'[project]\nname = "{name}"\nversion = "{version}"\nrequires-python = ">=3.11"\n\n'
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
        f'[tool.hatch.build.targets.wheel]\npackages = ["src/{name.replace("-", "_")}"]\n')
    pyproject = ws / "pyproject.toml"
    text = pyproject.read_text()
    anchor = 'te-lib = { path = "libs/te-lib" }\n'
    assert anchor in text
    pyproject.write_text(text.replace(anchor, f'{anchor}{name} = {{ path = "libs/{name}" }}\n'))


@pytest.mark.slow
@pytest.mark.parametrize("bump", sorted(BUMPS))
def test_workspace_relocked_by_uv(locked_before: Path, tmp_path: Path, bump: str) -> None:
    after = tmp_path / "after"
    shutil.copytree(locked_before, after)
    pyproject = after / "pyproject.toml"
    old_line, new_line = BUMPS[bump]
    new_line = new_line or f'requires-python = "{_py_now()}"'
    text = pyproject.read_text()
    assert old_line in text
    pyproject.write_text(text.replace(old_line, new_line))
    if bump == "mcore-gains-a-path-build":
        _add_path_package(after, "opt-lib", "0.4.0")
    _uv_lock(after)

    facts = str(WORKSPACE / "registry.json")
    report = diff_json(locked_before, after, "--registry-facts", facts, "--dockerfile", str(WORKSPACE / "Dockerfile"))
    rows = {p["extras"]: p for p in report["packages"]}
    assert sorted(rows) == ["automodel", "fsdp", "mcore", "nemo-gym", "vllm"]
    assert [f["status"] for f in report["filters"]] == ["ok"] * 5 and report["actors"]["added"] == []
    changed = {e: (p["added"], p["removed"], p["changed"]) for e, p in rows.items()
               if p["added"] or p["removed"] or p["changed"]}
    shared = report["shared_builds"]
    if bump == "package-added-to-vllm":
        assert changed == {"vllm": ([{"name": "tomli", "version": "2.0.1"}], [], [])}
    elif bump == "version-bump":
        assert changed == {"fsdp": ([], [], [{"name": "packaging", "old": "24.0", "new": "24.1"}])}
    elif bump == "python-bump":
        assert changed == {}
        py = next(k for k in report["key_versions"] if k["name"] == "python")
        assert py["changed"] and (py["old"]["requires_python"], py["new"]["requires_python"]) == (">=3.11", _py_now())
    elif bump == "mcore-gains-a-path-build":
        assert changed == {"mcore": ([{"name": "opt-lib", "version": "0.4.0"}], [], [])}
        assert report["source_builds"] == [{"change": "gained", "name": "opt-lib", "version": "0.4.0",
                                            "source": "directory opt-lib", "extras": ["mcore"],
                                            "venvs": rows["mcore"]["new_venvs"], "every_venv": False}]
        text = docgen("diff", str(locked_before), str(after), "--registry-facts", facts,
                      "--dockerfile", str(WORKSPACE / "Dockerfile")).stdout
        assert "source builds +1 -0 ~0" in text.splitlines()[3]
    else:
        assert changed == {"mcore": ([], [{"name": "te-lib", "version": "2.15.0"}], [])}
        assert shared["lost"] == [{"package": "te-lib", "old": [{"version": "2.15.0", "source": "directory te-lib",
                                                         "extras": ["automodel", "mcore"]}]}]
        assert [(b["change"], b["name"], b["extras"]) for b in report["source_builds"]] == [
            ("lost", "te-lib", ["mcore"])]
    if bump != "mcore-drops-te-lib":
        assert shared == {"gained": [], "lost": [], "changed": []}
    if bump not in ("mcore-drops-te-lib", "mcore-gains-a-path-build"):
        assert report["source_builds"] == []


# ------------------------------------------------- the committed snapshot and changed copies (no reference)
# These run on every machine: OLD or NEW is snapshot/nemo-rl.json, the real snapshot the docs are made from,
# and the other side a copy changed the way a NeMo-RL bump changes it. Expected names, versions and venvs
# are read from the snapshot and the report itself, not typed from the docs.

COMMITTED = REPO / "snapshot" / "nemo-rl.json"


def committed() -> dict:
    return json.loads(COMMITTED.read_text())


def write_json(data: dict, path: Path) -> Path:
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def _sets_holding(data: dict, key: str) -> list[str]:
    return [s for s, members in data["lock"]["install_sets"].items() if key in members]


def _drop_package(data: dict, key: str) -> None:
    for members in data["lock"]["install_sets"].values():
        if key in members:
            members.remove(key)
    del data["lock"]["packages"][key]
    data["lock"]["shared_builds"] = [s for s in data["lock"]["shared_builds"] if s["package"] != key]


def _git_commit(source: str) -> str:
    return source.rsplit("#", 1)[1][:12]


def _lines_naming(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if word in line]


TEXT_SECTIONS = ("Source builds per prefetched venv", "Packages per prefetched venv", "Shared source builds",
                 "Conflict groups:", "Key versions:")


def _section(text: str, title: str) -> str:
    """One section of the text report, up to the next one."""
    start = text.index(title)
    later = [text.index(t, start) for t in TEXT_SECTIONS[TEXT_SECTIONS.index(title) + 1:]]
    return text[start:min(later, default=len(text))]


def test_git_build_added_to_mcore_headlines_source_builds_plus_one(tmp_path: Path) -> None:
    """The upstream change the issue names: a git package, built from source, joins the mcore extra (here
    emerging-optimizers, which the committed lock holds for mcore only; OLD is the lock without it)."""
    data = committed()
    key = next(k for k, p in data["lock"]["packages"].items() if p["name"] == "emerging-optimizers")
    pkg = data["lock"]["packages"][key]
    assert pkg["source_kind"] == "git" and pkg["source_built"]
    assert sorted(_sets_holding(data, key)) == ["mcore", "mcore+modelopt"]
    _drop_package(data, key)
    old = write_json(data, tmp_path / "old.json")

    report = diff_json(old, COMMITTED)
    assert report["summary"]["source_builds_gained"] == 1
    assert report["summary"]["source_builds_lost"] == report["summary"]["source_builds_changed"] == 0
    assert report["source_builds"] == [{
        "change": "gained", "name": "emerging-optimizers", "version": pkg["version"],
        "source": f"git {_git_commit(pkg['source'])}", "extras": ["mcore"], "venvs": [MEGATRON],
        "every_venv": False}]
    text = docgen("diff", str(old), str(COMMITTED)).stdout
    headline = text.splitlines()[3]
    assert "source builds +1 -0 ~0" in headline, headline
    section = _section(text, "Source builds per prefetched venv")
    assert f"  + emerging-optimizers {pkg['version']} (git {_git_commit(pkg['source'])})  in mcore: " \
           "MegatronPolicyWorker" in section, section
    md = docgen("diff", str(old), str(COMMITTED), "--format", "markdown").stdout
    assert "#### Source builds per prefetched venv: +1 -0 ~0" in md
    assert f"- gained `emerging-optimizers {pkg['version']} (git {_git_commit(pkg['source'])})` in mcore: " \
           "MegatronPolicyWorker" in md


def test_a_second_te_version_shows_beside_the_first(tmp_path: Path) -> None:
    """Builds are told apart by (name, version, source): fsdp gaining another Transformer-Engine, while
    automodel and mcore keep theirs, is a gain, not hidden behind "TE is already built"."""
    data = committed()
    [old_key] = _keys_named(data, TE)
    te = data["lock"]["packages"][old_key]
    new_version, commit = "2.16.0+0a1b2c3", "0a1b2c3" + "d" * 33
    new_key = f"{TE}=={new_version}"
    data["lock"]["packages"][new_key] = {**te, "version": new_version,
                                         "source": te["source"].rsplit("#", 1)[0] + "#" + commit}
    data["lock"]["install_sets"]["fsdp"] = sorted([*data["lock"]["install_sets"]["fsdp"], new_key])
    new = write_json(data, tmp_path / "new.json")

    report = diff_json(COMMITTED, new)
    assert [(b["change"], b["name"], b["version"], b["source"], b["extras"]) for b in report["source_builds"]] == [
        ("gained", TE, new_version, f"git {commit[:12]}", ["fsdp"])]
    key_te = next(k for k in report["key_versions"] if k["name"] == TE)
    assert [v["version"] for v in key_te["new"]] == sorted([te["version"], new_version])
    text = docgen("diff", str(COMMITTED), str(new)).stdout
    assert f"  + {TE} {new_version} (git {commit[:12]})  in fsdp: DTensorPolicyWorker" in text


def test_same_version_from_another_commit_is_a_changed_build_on_one_line(tmp_path: Path) -> None:
    """causal-conv1d moves to another git commit and keeps 1.5.4, so its lock key stays the same; the build
    changed all the same, in three venvs, and is reported once naming them."""
    data = committed()
    [key] = _keys_named(data, "causal-conv1d")
    pkg = data["lock"]["packages"][key]
    new_commit = "c" * 40
    data["lock"]["packages"][key] = {**pkg, "source": pkg["source"].replace(pkg["source"].rsplit("#", 1)[1],
                                                                             new_commit)}
    new = write_json(data, tmp_path / "new.json")

    report = diff_json(COMMITTED, new)
    [build] = report["source_builds"]
    assert build["change"] == "changed" and build["name"] == "causal-conv1d"
    assert build["old"] == {"version": pkg["version"], "source": f"git {_git_commit(pkg['source'])}"}
    assert build["new"] == {"version": pkg["version"], "source": f"git {new_commit[:12]}"}
    prefetched = {p["extras"] for p in report["packages"]}
    assert build["extras"] == sorted(s for s in _sets_holding(committed(), key) if s in prefetched)
    assert len(build["extras"]) > 1 and report["summary"]["source_builds_changed"] == 1
    [change] = report["package_changes"]
    assert change["extras"] == build["extras"] and report["summary"]["packages_changed"] == 1
    text = docgen("diff", str(COMMITTED), str(new)).stdout
    for title in ("Source builds per prefetched venv", "Packages per prefetched venv"):
        [line] = _lines_naming(_section(text, title), "causal-conv1d")
        assert "1.5.4 (git " in line and all(f"{e}: " in line for e in build["extras"]), line


@pytest.mark.parametrize("name", ["wget", "flash-attn"])
def test_sdist_and_url_wheel_builds_count(tmp_path: Path, name: str) -> None:
    """An sdist-only registry package (wget) and a wheel from a URL (flash-attn, with its builder's local
    tag) are source builds; removing either is a lost build naming its venvs."""
    data = committed()
    [key] = _keys_named(data, name)
    pkg = data["lock"]["packages"][key]
    _drop_package(data, key)
    new = write_json(data, tmp_path / "new.json")

    report = diff_json(COMMITTED, new)
    [build] = report["source_builds"]
    assert (build["change"], build["name"], build["version"]) == ("lost", name, pkg["version"])
    assert build["source"] == ("sdist" if pkg["source_kind"] == "registry" else f"url {pkg['source'].rsplit('/', 1)[1]}")
    assert report["summary"]["source_builds_lost"] == 1 and report["summary"]["packages_removed"] == 1


def test_registry_wheels_are_not_source_builds(tmp_path: Path) -> None:
    """torch from its index carries a local tag (+cu130) but is downloaded as a wheel: a re-version is a
    package change in every venv, on one line, and no source build."""
    data = committed()
    [key] = _keys_named(data, "torch")
    _replace_package(data, key, "torch==2.12.0+cu130", version="2.12.0+cu130")
    new = write_json(data, tmp_path / "new.json")

    report = diff_json(COMMITTED, new)
    assert report["source_builds"] == [] and "source builds +0 -0 ~0" in docgen("diff", str(COMMITTED), str(new)).stdout
    [change] = report["package_changes"]
    assert change["every_venv"] and len(change["venvs"]) == report["venvs"]["new_count"]
    text = docgen("diff", str(COMMITTED), str(new)).stdout
    assert _lines_naming(text, "~ torch") == [
        f"    ~ torch 2.11.0+cu130 -> 2.12.0+cu130  in every venv ({report['venvs']['new_count']})"]


def test_an_addition_in_several_venvs_is_one_line_naming_them(tmp_path: Path) -> None:
    data = committed()
    data["lock"]["packages"]["tiny-tokenizer==0.3.1"] = {
        "name": "tiny-tokenizer", "version": "0.3.1", "source": "registry+https://index.invalid/simple",
        "source_kind": "registry", "source_built": False, "editable": False}
    for key in ("vllm", "modelopt+vllm", "mcore", "mcore+modelopt"):
        data["lock"]["install_sets"][key] = sorted([*data["lock"]["install_sets"][key], "tiny-tokenizer==0.3.1"])
    new = write_json(data, tmp_path / "new.json")

    report = diff_json(COMMITTED, new)
    assert report["summary"]["packages_added"] == 1 and report["source_builds"] == []
    [added] = report["package_changes"]
    assert (added["change"], added["name"], added["extras"]) == ("added", "tiny-tokenizer", ["mcore", "vllm"])
    vllm_venvs = next(p["new_venvs"] for p in report["packages"] if p["extras"] == "vllm")
    assert added["venvs"] == [MEGATRON, *vllm_venvs]
    rows = {p["extras"]: p for p in report["packages"]}
    assert len(rows["mcore"]["added"]) == len(rows["vllm"]["added"]) == 1   # still counted per install set
    for fmt, sign in (("text", "+"), ("markdown", "+")):
        out = docgen("diff", str(COMMITTED), str(new), "--format", fmt).stdout
        [line] = _lines_naming(out, "tiny-tokenizer")
        assert line.strip().startswith(f"{sign} tiny-tokenizer 0.3.1  in mcore: MegatronPolicyWorker; vllm: ")
        assert all(v.rsplit(".", 1)[1] in line for v in vllm_venvs), line


def test_a_removal_in_several_venvs_is_one_line(tmp_path: Path) -> None:
    data = committed()
    [key] = _keys_named(data, "deep-ep")[:1] if len(_keys_named(data, "deep-ep")) == 1 else [
        k for k in _keys_named(data, "deep-ep") if "mcore" in _sets_holding(data, k)]
    _drop_package(data, key)
    new = write_json(data, tmp_path / "new.json")

    report = diff_json(COMMITTED, new)
    [lost] = report["source_builds"]
    assert lost["change"] == "lost" and lost["name"] == "deep-ep" and len(lost["extras"]) == 3
    assert report["summary"]["source_builds_lost"] == 1 and report["summary"]["shared_builds_lost"] == 1
    text = docgen("diff", str(COMMITTED), str(new)).stdout
    for title in ("Source builds per prefetched venv", "Packages per prefetched venv"):
        [line] = _lines_naming(_section(text, title), "deep-ep")   # once each, not once per install set
        assert line.lstrip().startswith("- deep-ep 1.2.1+29d31c0") and "; vllm: " in line, line


@pytest.mark.parametrize("key_changes", [False, True])
def test_a_change_of_index_alone_is_left_out(tmp_path: Path, key_changes: bool) -> None:
    """triton 3.6.0 served from another index (the lock key may then carry the source, when the lock holds
    the version twice): nothing a reviewer can act on, so nothing printed."""
    data = committed()
    [key] = _keys_named(data, "triton")
    pkg = data["lock"]["packages"][key]
    new_key = f"{key}@registry:mirror.invalid" if key_changes else key
    _replace_package(data, key, new_key, source="registry+https://mirror.invalid/simple")
    new = write_json(data, tmp_path / "new.json")
    assert data["lock"]["packages"][new_key]["version"] == pkg["version"]

    report = diff_json(COMMITTED, new)
    assert report["package_changes"] == [] and report["source_builds"] == []
    assert all(not (p["added"] or p["removed"] or p["changed"]) for p in report["packages"])
    for fmt in ("text", "markdown"):
        assert "triton" not in docgen("diff", str(COMMITTED), str(new), "--format", fmt).stdout


def test_an_sdist_from_another_index_is_left_out_too(tmp_path: Path) -> None:
    data = committed()
    [key] = _keys_named(data, "wget")
    _replace_package(data, key, f"{key}@registry:mirror.invalid", source="registry+https://mirror.invalid/simple")
    report = diff_json(COMMITTED, write_json(data, tmp_path / "new.json"))
    assert report["source_builds"] == [] and report["package_changes"] == []


def test_conflict_groups_counted_and_named(tmp_path: Path) -> None:
    data = committed()
    groups = data["project"]["conflicts"]
    assert len(groups) > 12
    data["project"]["conflicts"] = groups[:12]
    old = write_json(data, tmp_path / "old.json")

    def label(group: list[dict]) -> str:
        return " / ".join(f"{item['package'] or data['project']['name']}[{item['extra']}]" for item in group)

    report = diff_json(old, COMMITTED)
    assert report["conflicts"] == {"old_count": 12, "new_count": len(groups),
                                   "added": [label(g) for g in groups[12:]], "removed": []}
    assert report["summary"]["conflict_groups_added"] == len(groups) - 12
    text = docgen("diff", str(old), str(COMMITTED)).stdout
    assert f"conflict groups 12 -> {len(groups)}" in text.splitlines()[3]
    section = _section(text, "Conflict groups:")
    assert section.splitlines()[0] == f"Conflict groups: 12 -> {len(groups)}"
    assert [line[4:] for line in section.splitlines()[1:] if line.startswith("  + ")] == report["conflicts"]["added"]
    md = docgen("diff", str(old), str(COMMITTED), "--format", "markdown").stdout
    assert f"#### Conflict groups: 12 -> {len(groups)}" in md and f"- added `{label(groups[12])}`" in md
    # the same groups with their items in another order are the same groups
    data = committed()
    data["project"]["conflicts"] = [list(reversed(g)) for g in reversed(data["project"]["conflicts"])]
    report = diff_json(COMMITTED, write_json(data, tmp_path / "reordered.json"))
    assert report["conflicts"]["added"] == report["conflicts"]["removed"] == []
    assert "conflict groups 17 (unchanged)".replace("17", str(len(groups))) in docgen(
        "diff", str(COMMITTED), str(tmp_path / "reordered.json")).stdout


def test_paths_are_printed_as_typed(tmp_path: Path) -> None:
    """OLD, NEW and --dockerfile keep their spelling (`./`, `..`); the configured Dockerfile is named as the
    configuration names it, even outside the root; no absolute path docgen made up reaches a report."""
    (tmp_path / "sub").mkdir()
    shutil.copy(COMMITTED, tmp_path / "old.json")
    shutil.copy(COMMITTED, tmp_path / "new.json")
    for fmt in ("text", "markdown"):
        out = docgen("diff", "--root", str(REPO), "./old.json", "sub/../new.json", "--format", fmt, cwd=tmp_path).stdout
        assert "./old.json (snapshot" in out and "sub/../new.json (snapshot" in out, out[:400]
        assert str(tmp_path) not in out and str(REPO) not in out
    out = docgen("diff", "./old.json", "new.json", "--dockerfile", "sub/../Dockerfile.copy", "--format", "markdown",
                 cwd=tmp_path) if shutil.copy(REPO / "Dockerfile.nmp-rl-base", tmp_path / "Dockerfile.copy") else None
    assert out.returncode == 0, out.stderr
    assert "- Dockerfile: `sub/../Dockerfile.copy`" in out.stdout and str(tmp_path) not in out.stdout

    # run from a folder below a project root: the configured Dockerfile as its configuration names it
    project = tmp_path / "project"
    (project / "images").mkdir(parents=True)
    (project / "work").mkdir()
    shutil.copy(REPO / "Dockerfile.nmp-rl-base", project / "images" / "Dockerfile")
    (project / "docgen.toml").write_text('dockerfile = "images/Dockerfile"\n')
    run = docgen("diff", "../../old.json", "../../new.json", cwd=project / "work")
    assert run.returncode == 0, run.stderr
    assert "\nDockerfile images/Dockerfile: " in run.stdout and str(tmp_path) not in run.stdout
    md = docgen("diff", "../../old.json", "../../new.json", "--format", "markdown", cwd=project / "work").stdout
    assert "- Dockerfile: `images/Dockerfile`" in md and "- OLD: ../../old.json (snapshot" in md
