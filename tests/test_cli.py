"""The docgen CLI contract: inventory on the committed snapshot, snapshot determinism and provenance, and the
bad-input corpus (exit 2, a message naming file and line, no traceback, nothing written)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docgen_cli import docgen, docgen_process
from tests.expected import Truth

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_DOCKERFILE = ROOT / "tests/fixtures/dockerfiles/eight-filters.Dockerfile"
SNAPSHOT = ROOT / "snapshot/nemo-rl.json"


def shared_ref() -> Path | None:
    from tests.reference import NEMO_RL_REF, reference_present
    return NEMO_RL_REF if reference_present() else None


@pytest.mark.parametrize("dockerfile", [FIXTURE_DOCKERFILE, ROOT / "Dockerfile.nmp-rl-base"], ids=["fixture", "image"])
def test_inventory_json_on_the_committed_snapshot(dockerfile):
    run = docgen("inventory", "--dockerfile", str(dockerfile), "--json")
    assert run.returncode == 0, run.stderr
    inv = json.loads(run.stdout)
    truth = Truth(dockerfile)   # the Dockerfile's text, the snapshot's JSON and the stand-in's selection rules
    assert truth.prefetched_venvs and truth.shared_builds, "the reading of the raw inputs found nothing"
    assert [f["filter"] for f in inv["filters"]] == list(truth.filters)
    assert {v["actor"]: tuple(v["extras"]) for v in inv["venvs"]} == truth.prefetched_venvs
    assert len(inv["venvs"]) == len(truth.prefetched_venvs) == inv["counts"]["venvs"]
    assert inv["venv_dir"] == truth.venv_dir
    assert all(v["path"] == f"{truth.venv_dir}/{v['actor']}" for v in inv["venvs"])
    assert inv["warm_extras"] == list(truth.warm_extras)
    assert {s["package"]: (s["version"], tuple(s["extras"])) for s in inv["shared_builds"]} == truth.shared_builds
    for f in inv["filters"]:
        assert tuple(f["actors"]) == truth.filter_actors(f["filter"]), f["filter"]


def test_inventory_text_is_a_readable_table():
    run = docgen("inventory", "--dockerfile", str(FIXTURE_DOCKERFILE))
    assert run.returncode == 0, run.stderr
    truth = Truth(FIXTURE_DOCKERFILE)
    for actor, extras in truth.prefetched_venvs.items():
        assert actor.rsplit(".", 1)[1] in run.stdout and all(e in run.stdout for e in extras), actor
    for package, (version, _) in truth.shared_builds.items():
        assert package in run.stdout and version in run.stdout, package


def test_committed_snapshot_is_the_pinned_reference_and_deterministic(tmp_path):
    ref = shared_ref()
    if ref is None:
        from tests.reference import REASON
        pytest.skip(REASON)
    outs = []
    for name in ("a.json", "b.json"):
        run = docgen("snapshot", "--from", str(ref), "--registry-facts", str(ref / "registry.json"),
                     "--root", str(tmp_path), "-o", str(tmp_path / name))
        assert run.returncode == 0, run.stderr
        outs.append((tmp_path / name).read_text())
    assert outs[0] == outs[1]
    # the version of docgen that made it comes from git (setuptools-scm) and moves with every commit: it says
    # which tool wrote the file, nothing about NeMo-RL, so the comparison with the committed file leaves it out
    made, committed = json.loads(outs[0]), json.loads(SNAPSHOT.read_text())
    for data in (made, committed):
        assert data["provenance"].pop("docgen_version")
    assert made == committed, "snapshot/nemo-rl.json is stale: re-run `docgen snapshot`"


def test_snapshot_provenance_and_structure():
    data = json.loads(SNAPSHOT.read_text())
    prov = data["provenance"]
    assert prov["repo"] == "soluwalana/RL" and prov["ref"] == "nmp/customizer"
    assert prov["commit"] == "7ea279abfbeb698b092856d0dab61e7cf39bc909"
    assert set(prov["inputs"]) == {"pyproject.toml", "uv.lock", "registry"}
    assert all(v.startswith("sha256:") and len(v) == 71 for v in prov["inputs"].values())
    assert data["lock"]["version"] == 1
    assert len(data["registry"]["actors"]) == 29
    # sorted and one item per line: a lock bump shows up as a readable diff
    for members in data["lock"]["install_sets"].values():
        assert members == sorted(members)
    assert "deep-ep==1.2.1+29d31c0@git:29d31c0" in data["lock"]["packages"]


# ------------------------------------------------------------------------------------ bad-input corpus

PYPROJECT = """\
[project]
name = "nemo-rl"
version = "0.1.0"
dependencies = ["six"]

[project.optional-dependencies]
vllm = ["six"]
"""

LOCK = """\
version = 1
revision = 3
requires-python = ">=3.11"

[[package]]
name = "nemo-rl"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "six" },
]

[package.optional-dependencies]
vllm = [
    { name = "six" },
]

[[package]]
name = "six"
version = "1.17.0"
source = { registry = "https://index.invalid/simple" }
wheels = [
    { url = "https://files.index.invalid/six-1.17.0-py2.py3-none-any.whl", hash = "sha256:00", size = 1 },
]
"""

REGISTRY = {
    "py_executables": {"SYSTEM": "sys.executable", "VLLM": "uv run --locked --extra vllm --directory {git_root}"},
    "registry": [
        {"actor": "nemo_rl.models.generation.vllm.vllm_worker.VllmGenerationWorker", "py_executable": "VLLM",
         "command": "uv run --locked --extra vllm --directory {git_root}",
         "with_NEMO_RL_PY_EXECUTABLES_SYSTEM=1": "sys.executable", "source": "upstream"},
    ],
}


def rl_dir(tmp_path: Path, *, pyproject=PYPROJECT, lock=LOCK, registry=REGISTRY) -> Path:
    d = tmp_path / "rl"
    d.mkdir()
    (d / "pyproject.toml").write_text(pyproject)
    if lock is not None:
        (d / "uv.lock").write_text(lock)
    (d / "registry.json").write_text(json.dumps(registry, indent=1) if isinstance(registry, dict) else registry)
    return d


def snapshot_case(**kw):
    def run(tmp_path: Path):
        d = rl_dir(tmp_path, **kw)
        return ["snapshot", "--from", str(d), "--registry-facts", str(d / "registry.json"),
                "-o", str(tmp_path / "out.json")], tmp_path / "out.json"
    return run


def dockerfile_case(old: str, new: str):
    def run(tmp_path: Path):
        text = FIXTURE_DOCKERFILE.read_text()
        assert old in text, old
        path = tmp_path / "Dockerfile"
        path.write_text(text.replace(old, new, 1))
        return ["inventory", "--dockerfile", str(path)], None
    return run


def snapshot_file_case(text: str):
    def run(tmp_path: Path):
        path = tmp_path / "snap.json"
        path.write_text(text)
        return ["inventory", "--dockerfile", str(FIXTURE_DOCKERFILE), "--snapshot", str(path)], None
    return run


def registry_source_case(module_text: str):
    def run(tmp_path: Path):
        d = rl_dir(tmp_path)
        pkg = d / "nemo_rl/distributed"
        pkg.mkdir(parents=True)
        (pkg / "virtual_cluster.py").write_text(
            'import sys\ngit_root = "/x"\nclass PY_EXECUTABLES:\n    SYSTEM = sys.executable\n'
            '    VLLM = f"uv run --locked --extra vllm --directory {git_root}"\n')
        (pkg / "ray_actor_environment_registry.py").write_text(module_text)
        return ["snapshot", "--from", str(d), "-o", str(tmp_path / "out.json")], tmp_path / "out.json"
    return run


def not_utf8_case(name: str):
    """An RL input with a Latin-1 byte where UTF-8 is expected."""
    def run(tmp_path: Path):
        d = rl_dir(tmp_path)
        (d / name).write_bytes((d / name).read_bytes() + "# caf\u00e9\n".encode("latin-1"))
        return ["snapshot", "--from", str(d), "--registry-facts", str(d / "registry.json"),
                "-o", str(tmp_path / "out.json")], tmp_path / "out.json"
    return run


def snapshot_edit_case(edit):
    """The committed snapshot, changed by `edit` (on its parsed JSON) before docgen reads it."""
    def run(tmp_path: Path):
        data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
        edit(data)
        path = tmp_path / "snap.json"
        path.write_text(json.dumps(data, indent=1), encoding="utf-8")
        return ["inventory", "--dockerfile", str(FIXTURE_DOCKERFILE), "--snapshot", str(path)], None
    return run


def _snapshot_not_utf8(tmp_path: Path):
    path = tmp_path / "snap.json"
    path.write_bytes(SNAPSHOT.read_bytes().replace(b'"provenance": {', b'"provenance": {\n  "note": "caf\xe9",', 1))
    return ["inventory", "--dockerfile", str(FIXTURE_DOCKERFILE), "--snapshot", str(path)], None


def _drop_first_base_package(data: dict) -> None:
    del data["lock"]["packages"][data["lock"]["install_sets"][""][0]]


REG_HEAD = "from nemo_rl.distributed.virtual_cluster import PY_EXECUTABLES\n"

CORPUS = {
    "unterminated heredoc": lambda tmp: _write_dockerfile(tmp, "EOX\n".join(FIXTURE_DOCKERFILE.read_text().rsplit("EOF\n", 1))),
    # (no prefetch call, or one without filters, is read: see tests/test_dockerfile_corpus.py)
    "open quote in the prefetch call": dockerfile_case("prefetch_venvs.py \\", "prefetch_venvs.py 'x \\"),
    "invalid escape directive": lambda tmp: _write_dockerfile(tmp, "# escape=x\n" + FIXTURE_DOCKERFILE.read_text()),
    "unknown instruction": dockerfile_case("WORKDIR", "WORKDIRR"),
    "continuation at end of file": lambda tmp: _append(tmp, "RUN echo \\\n"),
    "FROM without image": dockerfile_case("FROM scratch AS nemo-rl", "FROM"),
    "duplicate stage name": dockerfile_case("AS builder", "AS base"),
    "uv sync --extra without a value": dockerfile_case("--extra vllm", "--extra"),
    "extra used but not defined": dockerfile_case("--extra fsdp", "--extra fsdpx"),
    "unbalanced quote in a uv sync line": dockerfile_case("--extra vllm", "--extra 'vllm"),
    "snapshot is not JSON": snapshot_file_case("{\n  \"format\": 1,\n  oops\n}\n"),
    "snapshot of an unknown format": snapshot_file_case('{"format": 99}\n'),
    "snapshot missing its registry": snapshot_file_case('{"format": 1, "project": {}}\n'),
    "unknown lock version": snapshot_case(lock=LOCK.replace("version = 1\n", "version = 2\n", 1)),
    "lock is not TOML": snapshot_case(lock=LOCK.replace("[[package]]", "[[package]", 1)),
    "lock names a package it does not hold": snapshot_case(lock=LOCK.replace('{ name = "six" },\n]\n\n[package.opt',
                                                                            '{ name = "seven" },\n]\n\n[package.opt')),
    "lock missing": snapshot_case(lock=None),
    "pyproject is not TOML": snapshot_case(pyproject=PYPROJECT.replace("[project]", "[project")),
    "registry facts malformed": snapshot_case(registry='{"py_executables": {}, "registry": [{"actor": 1}]}'),
    "registry runs an extra pyproject lacks": snapshot_case(registry={
        **REGISTRY, "py_executables": {**REGISTRY["py_executables"],
                                       "FSDP": "uv run --locked --extra fsdp --directory {git_root}"},
        "registry": REGISTRY["registry"] + [{
            "actor": "nemo_rl.x.Y", "py_executable": "FSDP", "command": "uv run --locked --extra fsdp --directory {git_root}",
            "with_NEMO_RL_PY_EXECUTABLES_SYSTEM=1": "uv run --locked --extra fsdp --directory {git_root}",
            "source": "upstream"}]}),
    "pyproject not UTF-8": not_utf8_case("pyproject.toml"),
    "lock not UTF-8": not_utf8_case("uv.lock"),
    "snapshot not UTF-8": _snapshot_not_utf8,
    "snapshot extras not a table": snapshot_edit_case(
        lambda d: d["project"].update(extras=list(d["project"]["extras"]))),
    "snapshot install set names a package it lacks": snapshot_edit_case(_drop_first_base_package),
    "snapshot shared build names a package it lacks": snapshot_edit_case(
        lambda d: d["lock"]["shared_builds"].append({"package": "nope==1", "extras": ["vllm", "fsdp"]})),
    "snapshot shared build names an extra it lacks": snapshot_edit_case(
        lambda d: d["lock"]["shared_builds"][0]["extras"].append("nope")),
    "snapshot install set names an extra it lacks": snapshot_edit_case(
        lambda d: d["lock"]["install_sets"].__setitem__("nope+vllm", d["lock"]["install_sets"]["vllm"])),
    "snapshot actor command not a string": snapshot_edit_case(
        lambda d: d["registry"]["actors"][0].update(command=None)),
    "registry dict absent": registry_source_case(REG_HEAD + "OTHER = {}\n"),
    "unknown PY_EXECUTABLES member": registry_source_case(
        REG_HEAD + 'ACTOR_ENVIRONMENT_REGISTRY = {\n    "a.B": PY_EXECUTABLES.NOPE,\n}\n'),
    "registry module syntax error": registry_source_case(REG_HEAD + "ACTOR_ENVIRONMENT_REGISTRY = {\n"),
}


def _append(tmp_path: Path, text: str):
    return _write_dockerfile(tmp_path, FIXTURE_DOCKERFILE.read_text() + text)


def _write_dockerfile(tmp_path: Path, text: str):
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    return ["inventory", "--dockerfile", str(path)], None


@pytest.mark.parametrize("case", sorted(CORPUS), ids=lambda c: c.replace(" ", "-"))
def test_bad_input_exits_2_naming_file_and_line(case, tmp_path):
    args, output = CORPUS[case](tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    run = docgen(*args)
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    message = run.stderr.strip().splitlines()[-1]
    assert message.startswith("docgen: error: "), message
    where = message[len("docgen: error: "):].split(": ", 1)[0]
    assert str(tmp_path) in where, f"the message must name the bad file: {message}"
    if case != "lock missing":  # a missing file has no line to name
        assert ":" in where and where.rsplit(":", 1)[1].isdigit(), f"the message must name a line: {message}"
    if output is not None:
        assert not output.exists(), "bad input must write nothing"
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 20


IMAGE_SIZE_PAGE = "# Size\n\n<!-- docgen:begin image-size -->\n<!-- docgen:end image-size -->\n"


@pytest.mark.parametrize("measurement", [
    '{"parts": [1, 2]}',
    '{"size_bytes": "big"}',
    '{"size_bytes": NaN}',
    '{"size_bytes": 1e400}',
    '{"parts": {"/opt": "1 GB"}}',
    '{"production": {"size_bytes": "big"}}',
    '{"production": [1]}',
], ids=["parts-list", "size-string", "size-nan", "size-inf", "part-string", "production-size-string",
        "production-list"])
def test_malformed_image_size_measurement_is_bad_input(measurement, tmp_path):
    (tmp_path / "docs/data").mkdir(parents=True)
    (tmp_path / "docs/size.md").write_text(IMAGE_SIZE_PAGE)
    (tmp_path / "docs/data/image-size.json").write_text(measurement + "\n")
    for command in ("check", "write"):
        run = docgen(command, "--root", str(tmp_path), "--dockerfile", str(FIXTURE_DOCKERFILE),
                     "--snapshot", str(SNAPSHOT))
        assert run.returncode == 2, (command, run.returncode, run.stderr)
        assert "Traceback" not in run.stderr
        assert run.stderr.strip().splitlines()[-1].startswith(
            "docgen: error: docs/data/image-size.json:1: "), run.stderr
    assert (tmp_path / "docs/size.md").read_text() == IMAGE_SIZE_PAGE
    assert not (tmp_path / "docs/.docgen-facts.json").exists()


# ------------------------------------------------------------------------------- the process's exit
# `docgen.cli.run` leaves through os._exit once main returns (skipping the interpreter's teardown); these pin
# that nothing a normal exit would give is lost: the output in full, the exit code, the exit handlers, and
# the usual traceback when something escapes.

def _run_with(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_fast_exit_keeps_all_output_exit_code_and_exit_handlers(tmp_path):
    snapshot = json.loads(SNAPSHOT.read_text())
    diff = docgen_process("diff", str(SNAPSHOT), str(SNAPSHOT), "--format", "json")   # through a pipe, whole
    assert diff.returncode == 0, diff.stderr
    assert json.loads(diff.stdout)["venvs"] is not None
    inventory = _run_with(
        "import atexit, sys\n"
        "atexit.register(lambda: print('exit handler ran', file=sys.stderr))\n"
        "sys.argv = ['docgen', 'inventory', '--json']\n"
        "from docgen.cli import run\n"
        "run()\n")
    assert inventory.returncode == 0, inventory.stderr
    assert len(json.loads(inventory.stdout)["venvs"]) == 9
    assert inventory.stderr.strip().endswith("exit handler ran")
    snapshot["format"] = 99
    (tmp_path / "bad.json").write_text(json.dumps(snapshot))
    bad = docgen_process("diff", str(SNAPSHOT), str(tmp_path / "bad.json"))
    assert bad.returncode == 2 and "unsupported snapshot format 99" in bad.stderr


def test_an_escaping_exception_still_unwinds_with_a_traceback():
    crash = _run_with("import docgen.cli\n"
                      "def broken(argv=None):\n"
                      "    raise RuntimeError('boom')\n"
                      "docgen.cli.main = broken\n"
                      "docgen.cli.run()\n")
    assert crash.returncode == 1
    assert "Traceback" in crash.stderr and "RuntimeError: boom" in crash.stderr


# ------------------------------------------------------------------------------ global options, either side

@pytest.mark.parametrize("argv", [
    ["--verbose", "lint"], ["-v", "lint"], ["lint", "--verbose"], ["--root", str(ROOT), "-v", "lint"],
    [f"--root={ROOT}", "lint", "-v"], ["--config", str(ROOT / "pyproject.toml"), "--verbose", "lint"]])
def test_global_options_are_accepted_before_and_after_the_command(argv, tmp_path):
    explicit = any(a.startswith(("--root", "--config")) for a in argv)
    run = docgen(*argv, cwd=tmp_path if explicit else ROOT)   # outside the repository only they can find it
    assert run.returncode == 0, run.stderr
    assert f"root {ROOT}" in run.stderr


def test_an_unknown_option_before_the_command_is_still_refused():
    run = docgen("--bogus", "lint")
    assert run.returncode == 2 and "unrecognized arguments: --bogus" in run.stderr


def test_build_docs_says_what_it_needs_before_doing_anything(tmp_path):
    (tmp_path / "scripts").mkdir()
    import shutil
    shutil.copy2(ROOT / "scripts/build-docs", tmp_path / "scripts/build-docs")
    shutil.copy2(ROOT / "package.json", tmp_path / "package.json")
    bin_dir = tmp_path / "bin"   # npm that would leave a trace if it were reached
    bin_dir.mkdir()
    (bin_dir / "npm").write_text(f"#!/bin/sh\ntouch {tmp_path}/npm-ran\n")
    (bin_dir / "npm").chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run([str(tmp_path / "scripts/build-docs")], capture_output=True, text=True, env=env,
                         timeout=60)
    assert run.returncode == 2
    assert "mkdocs is not installed" in run.stderr and '.venv/bin/pip install ".[site]"' in run.stderr
    assert not (tmp_path / "npm-ran").exists() and not (tmp_path / "site").exists()


# ------------------------------------------------------------------ in this interpreter and as a process
# Most tests run docgen in the test's own interpreter (tests/docgen_cli.py), which is only worth it while that
# answers as the real process does. Each subcommand, and each way out of main (findings, bad input, a usage
# error, --help and --version, standard input read, the environment given), is run both ways on the same
# fresh inputs: same exit code, same output, same files left behind.

IN_BOTH_WAYS = {
    "inventory": ("inventory", "--json"),
    "snapshot": ("snapshot", "--from", "{work}/rl", "--registry-facts", "{work}/rl/registry.json", "-o", "-"),
    "standin": ("standin", "--out", "{work}/standin", "--no-lock"),
    "write": ("write", "--root", "{work}/repo"),
    "check-stale": ("check", "--root", "{work}/repo", "--diff"),
    "check-changed-on-stdin": ("check", "--root", "{work}/repo", "--format", "json", "--changed-files-from", "-"),
    "check-summary-from-env": ("check", "--root", "{work}/repo", "--format", "github"),
    "lint": ("lint", "--verbose"),
    "diff": ("diff", str(SNAPSHOT), str(SNAPSHOT), "--format", "markdown"),
    "bad-input": ("diff", str(SNAPSHOT), "{work}/absent.json"),
    "usage-error": ("check", "--bogus"),
    "help": ("check", "--help"),
    "version": ("--version",),
}


@pytest.mark.parametrize("case", IN_BOTH_WAYS)
def test_in_process_runs_answer_as_the_process_does(case, tmp_path):
    from tests.test_drift import small_repo

    work = tmp_path / "work"

    def fresh() -> list[str]:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        small_repo(work / "repo")
        rl_dir(work)
        return [a.format(work=work) for a in IN_BOTH_WAYS[case]]

    def files() -> dict[str, bytes]:
        return {p.relative_to(work).as_posix(): p.read_bytes() for p in sorted(work.rglob("*")) if p.is_file()}

    # the environment replaced as a whole: GITHUB_STEP_SUMMARY, where `--format github` appends its summary
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(work / "summary.md")}
    inside = docgen(*fresh(), input="README.md\n", env=env)
    inside_files = files()
    real = docgen_process(*fresh(), input="README.md\n", env=env)
    assert (inside.returncode, inside.stdout, inside.stderr) == (real.returncode, real.stdout, real.stderr)
    assert inside_files == files()
    assert inside.stdout or inside.stderr, "every case says something"


def test_an_exception_escaping_main_in_process_is_exit_1_with_its_traceback(monkeypatch, tmp_path):
    """The in-process runner turns an exception nothing caught into what the interpreter prints (compare
    test_an_escaping_exception_still_unwinds_with_a_traceback, the real process), and leaves the test's
    working directory, environment and streams as they were."""
    from docgen import cli

    seen = []

    def broken(argv=None):
        seen.append((os.getcwd(), dict(os.environ)))
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "main", broken)
    before = (os.getcwd(), dict(os.environ), sys.stdin, sys.stdout, sys.stderr)
    crash = docgen("lint", cwd=tmp_path, env={"ONLY": "this"})
    assert crash.returncode == 1 and crash.stdout == ""
    assert crash.stderr.startswith("Traceback (most recent call last):\n")
    assert crash.stderr.endswith("RuntimeError: boom\n") and "in broken" in crash.stderr
    assert seen == [(str(tmp_path), {"ONLY": "this"})]   # where and with what it ran ...
    assert (os.getcwd(), dict(os.environ), sys.stdin, sys.stdout, sys.stderr) == before   # ... all put back
