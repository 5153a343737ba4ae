"""docgen works on the tree it runs in: root discovery, the configuration, and the refusals of its reader and writer.

Every case runs the CLI from a working directory, the way users and hooks run it: in this interpreter, moved
to that directory for the call (tests/docgen_cli.py), or as a process where the process is the point.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import packaging
import pytest

from docgen.errors import InputError
from docgen.project import find_project
from tests.conftest import REPO
from tests.docgen_cli import docgen, docgen_process

SNAPSHOT = REPO / "snapshot" / "nemo-rl.json"
DOCKERFILE = REPO / "Dockerfile.nmp-rl-base"


def _readme_config() -> str:
    """The consumer configuration exactly as the README shows it: the tests use what users copy."""
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("### Adopt docgen in another repository"):]
    return section[section.index("```toml\n") + len("```toml\n"):section.index("```\n", section.index("```toml"))]


CONSUMER_CONFIG = _readme_config()


def assert_judged(cwd: Path, root: Path, how: str) -> None:
    """`docgen inventory --verbose` run in `cwd` works on `root`, found the way `how` starts."""
    run = docgen("inventory", "--verbose", cwd=cwd)
    assert run.returncode == 0, run.stderr
    assert f"root {root.resolve()} ({how}" in run.stderr


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def consumer_repo(root: Path) -> Path:
    """A repository laid out like the image's real home: Dockerfile and README under docker/rl/, docs elsewhere,
    configured with the five-line table the README shows."""
    (root / "docker" / "rl").mkdir(parents=True)
    (root / "docs" / "rl").mkdir(parents=True)
    shutil.copy(DOCKERFILE, root / "docker/rl/Dockerfile.nmp-rl-base")
    shutil.copy(SNAPSHOT, root / "docker/rl/nemo-rl.json")
    (root / "pyproject.toml").write_text('[project]\nname = "consumer"\nversion = "1"\n\n' + CONSUMER_CONFIG)
    (root / "docker/rl/README.md").write_text(
        "# RL image\n\n<!-- docgen:begin quick-inventory -->\n<!-- docgen:end quick-inventory -->\n")
    (root / "docs/rl/venvs.md").write_text(
        "# Venvs\n\nThere are <!-- docgen:value venvs.count --><!-- docgen:end-value --> venvs.\n\n"
        "<!-- docgen:begin filter-table -->\n<!-- docgen:end filter-table -->\n")
    (root / "docs/other.md").write_text("# Not docgen's business\n\n<!-- docgen:begin bogus -->\n")
    return root


def drop_mcore_filter(dockerfile: Path) -> None:
    lines = dockerfile.read_text().splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.strip().rstrip("\\").strip()
            == "megatron_policy_worker.MegatronPolicyWorker"]
    assert len(hits) == 1
    del lines[hits[0]]
    dockerfile.write_text("".join(lines))


# ------------------------------------------------------------------------------------------ discovery

def test_consumer_layout_works_with_the_five_line_config(tmp_path):
    root = consumer_repo(tmp_path / "consumer")
    sub = root / "docs" / "rl"
    assert docgen("check", cwd=sub).returncode == 1          # never rendered
    written = docgen("write", cwd=sub)
    assert written.returncode == 0, written.stderr
    assert "| Worker venvs | 9 in `/opt/ray_venvs`" in (root / "docker/rl/README.md").read_text()
    assert "There are <!-- docgen:value venvs.count -->9<!-- docgen:end-value --> venvs." in (
        root / "docs/rl/venvs.md").read_text()
    assert (root / "docs/.docgen-facts.json").is_file()
    assert (root / "docs/other.md").read_text().endswith("bogus -->\n")   # outside `pages`: untouched, unread
    clean = docgen("check", cwd=root / "docker")
    assert clean.returncode == 0, clean.stdout + clean.stderr  # required names only the two generators it uses


def test_the_drifted_tree_is_the_one_reported_and_written(tmp_path):
    root = consumer_repo(tmp_path / "consumer")
    assert docgen("write", cwd=root).returncode == 0
    drop_mcore_filter(root / "docker/rl/Dockerfile.nmp-rl-base")
    before = (root / "docs/rl/venvs.md").read_text()
    report = docgen("check", "--format", "json", cwd=root / "docs")
    assert report.returncode == 1
    data = json.loads(report.stdout)
    assert data["judged"]["root"] == str(root.resolve())
    assert data["judged"]["dockerfile"] == "docker/rl/Dockerfile.nmp-rl-base"
    assert sorted(data["judged"]["pages_read"]) == ["docker/rl/README.md", "docs/rl/venvs.md"]
    assert any("venvs 9 -> 8" in c for c in data["facts_changes"])
    assert docgen("write", cwd=root / "docs").returncode == 0
    assert (root / "docs/rl/venvs.md").read_text() != before
    assert "-->8<!--" in (root / "docs/rl/venvs.md").read_text()


def test_verbose_states_the_root_the_config_and_the_inputs(tmp_path):
    root = consumer_repo(tmp_path / "consumer")
    run = docgen("inventory", "--verbose", cwd=root / "docker" / "rl")
    assert run.returncode == 0, run.stderr
    assert f"root {root.resolve()} (found pyproject.toml upwards from the working directory)" in run.stderr
    assert "dockerfile docker/rl/Dockerfile.nmp-rl-base; snapshot docker/rl/nemo-rl.json" in run.stderr
    quiet = docgen("inventory", cwd=root)
    assert quiet.stderr == "" and quiet.stdout == run.stdout


def test_docgen_toml_is_found_upwards_and_wins_over_the_git_top(tmp_path):
    top = tmp_path / "mono"
    (top / ".git").mkdir(parents=True)
    root = consumer_repo(top / "services" / "rl")
    (root / "pyproject.toml").unlink()
    (root / "docgen.toml").write_text(CONSUMER_CONFIG.replace("[tool.docgen]\n", ""))
    run = docgen("inventory", "--json", "--verbose", cwd=root / "docs" / "rl")
    assert run.returncode == 0, run.stderr
    assert f"root {root.resolve()} (found docgen.toml" in run.stderr
    assert json.loads(run.stdout)["counts"]["venvs"] == 9


@pytest.mark.parametrize("spelling", [
    '[tool]\ndocgen.dockerfile = "docker/rl/Dockerfile.nmp-rl-base"\ndocgen.snapshot = "docker/rl/nemo-rl.json"\n',
    'tool.docgen.dockerfile = "docker/rl/Dockerfile.nmp-rl-base"\ntool.docgen.snapshot = "docker/rl/nemo-rl.json"\n',
    '[tool."docgen"]\ndockerfile = "docker/rl/Dockerfile.nmp-rl-base"\nsnapshot = "docker/rl/nemo-rl.json"\n',
], ids=["dotted-keys-in-tool", "dotted-keys-at-top", "quoted-key"])
def test_the_table_is_found_however_toml_spells_it(tmp_path, spelling):
    """TOML can name the docgen table without the text `[tool.docgen]`; none of those may be skipped
    (the repository would silently be judged by the git top level and the defaults)."""
    top = tmp_path / "mono"
    (top / ".git").mkdir(parents=True)
    root = consumer_repo(top / "rl")
    (root / "pyproject.toml").write_text(spelling)
    assert_judged(root / "docs", root, "found pyproject.toml")


def test_a_pyproject_that_only_mentions_docgen_is_not_a_configuration(tmp_path):
    top = tmp_path / "mono"
    (top / ".git").mkdir(parents=True)
    shutil.copy(DOCKERFILE, top / "Dockerfile.nmp-rl-base")
    (top / "snapshot").mkdir()
    shutil.copy(SNAPSHOT, top / "snapshot/nemo-rl.json")
    (top / "app").mkdir()
    (top / "app" / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = ["docgen"]\n'
                                                '[tool.other]\ndocgen = "mentioned, not configured"\n')
    assert_judged(top / "app", top, "git top level")


def test_without_config_the_git_top_level_and_the_defaults_apply(tmp_path):
    root = tmp_path / "plain"
    (root / "snapshot").mkdir(parents=True)
    (root / ".git").write_text("gitdir: /elsewhere/worktrees/plain\n")   # what a `git worktree` has
    shutil.copy(DOCKERFILE, root / "Dockerfile.nmp-rl-base")
    shutil.copy(SNAPSHOT, root / "snapshot/nemo-rl.json")
    (root / "deep" / "er").mkdir(parents=True)
    assert_judged(root / "deep" / "er", root, "git top level")


@pytest.mark.probe("malformed input")
def test_no_config_and_no_git_is_bad_input_not_a_guess(tmp_path):
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    for command in ("check", "write", "lint", "inventory"):
        run = docgen(command, cwd=lonely)
        assert run.returncode == 2, (command, run.stderr)
        assert "not inside a git work tree; run docgen in the repository or pass --root" in run.stderr
        assert "Traceback" not in run.stderr
    assert list(lonely.iterdir()) == []


@pytest.mark.probe("malformed input")
@pytest.mark.parametrize("config, line, message", [
    ('[tool.docgen]\ndockerfile = "D"\nfacts = 3\n', 3, "facts: expected a path relative to the root"),
    ('[tool.docgen]\n\nsnapshots = "x.json"\n', 3, "unknown docgen setting 'snapshots'"),
    ('[tool.docgen]\npages = []\n', 2, "pages: expected a non-empty list of strings"),
    ('[tool.docgen]\ndockerfile = "../outside/Dockerfile"\n', 2, "must stay inside the root"),
    ('[tool.docgen]\ndockerfile = "D\n', 2, "not valid TOML"),
    ('[tool]\nother = 1\ndocgen.facts = 3\n', 3, "facts: expected a path relative to the root"),
], ids=["wrong-type", "unknown-key", "empty-pages", "outside-root", "bad-toml", "dotted-key"])
def test_a_bad_configuration_is_bad_input_with_its_line(tmp_path, config, line, message):
    (tmp_path / "pyproject.toml").write_text(config)
    run = docgen("check", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith(f"docgen: error: {tmp_path / 'pyproject.toml'}:{line}: "), run.stderr
    assert message in run.stderr


@pytest.mark.probe("malformed input")
def test_required_names_an_unknown_generator(tmp_path):
    root = consumer_repo(tmp_path / "c")
    text = (root / "pyproject.toml").read_text().replace('"filter-table"]', '"filter-tabel"]')
    (root / "pyproject.toml").write_text(text)
    run = docgen("check", cwd=root)
    assert run.returncode == 2 and "unknown generator(s) filter-tabel" in run.stderr


def test_root_and_config_flags_on_every_subcommand(tmp_path):
    root = consumer_repo(tmp_path / "c")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for command in ("inventory", "write", "check", "lint"):
        by_root = docgen(command, "--root", str(root), cwd=elsewhere)
        by_config = docgen(command, "--config", str(root / "pyproject.toml"), cwd=elsewhere)
        assert by_root.returncode == by_config.returncode == 0, (command, by_root.stderr, by_config.stderr)
    out = tmp_path / "standin"
    run = docgen("standin", "--root", str(root), "--out", str(out), "--no-lock", cwd=elsewhere)
    assert run.returncode == 0, run.stderr
    assert (out / "nemo_rl" / "distributed" / "ray_actor_environment_registry.py").is_file()
    assert list(elsewhere.iterdir()) == []


def test_version():
    run = docgen("--version", cwd=REPO)
    from docgen import __version__
    assert run.returncode == 0 and run.stdout.strip() == f"docgen {__version__}"


# ------------------------------------------------------------------------------------ refusals on disk

@pytest.mark.probe("symlinks and special files")
def test_write_refuses_a_page_that_is_a_symlink(tmp_path):
    root = consumer_repo(tmp_path / "c")
    outside = tmp_path / "outside.md"
    outside.write_text("<!-- docgen:begin filter-table -->\n<!-- docgen:end filter-table -->\n")
    (root / "docs/rl/linked.md").symlink_to(outside)
    before, outside_before = tree(root), outside.read_text()
    for command in ("write", "check"):
        run = docgen(command, cwd=root)
        assert run.returncode == 2, (command, run.stderr)
        assert "docs/rl/linked.md: a page docgen owns is a symlink" in run.stderr, run.stderr
    assert tree(root) == before and outside.read_text() == outside_before


@pytest.mark.probe("symlinks and special files")
def test_write_refuses_a_facts_file_that_is_a_symlink(tmp_path):
    root = consumer_repo(tmp_path / "c")
    victim = tmp_path / "victim.json"
    (root / "docs/.docgen-facts.json").symlink_to(victim)   # dangling: write would create it outside the root
    before = tree(root)
    run = docgen("write", cwd=root)
    assert run.returncode == 2, run.stderr
    assert "docs/.docgen-facts.json: the facts record docgen owns is a symlink" in run.stderr
    assert not victim.exists() and tree(root) == before


@pytest.mark.probe("writes outside what docgen owns")
def test_snapshot_output_outside_the_root_is_refused(tmp_path):
    root = consumer_repo(tmp_path / "c")
    from tests.reference import NEMO_RL_REF, reference_present
    if not reference_present():
        pytest.skip("needs the NeMo-RL reference")
    run = docgen("snapshot", "--from", str(NEMO_RL_REF), "--registry-facts", str(NEMO_RL_REF / "registry.json"),
                 "-o", str(tmp_path / "stray.json"), cwd=root)
    assert run.returncode == 2 and "refusing to write outside the repository root" in run.stderr
    assert not (tmp_path / "stray.json").exists()


@pytest.mark.probe("symlinks and special files")
@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "directory"])
def test_a_page_that_is_not_a_regular_file_is_bad_input(tmp_path, kind):
    root = consumer_repo(tmp_path / "c")
    page = root / "docs/rl/odd.md"
    if kind == "dev-zero":
        page.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(page)
    else:
        page.mkdir()
    # a real process, with a time limit: a FIFO must not hang, /dev/zero must not grow (a hang in this
    # interpreter would hold the test until pytest-timeout's limit)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = docgen_process("check", cwd=root, env=env, timeout=20)
    if kind == "directory":   # a folder named *.md is not a page: the glob skips it
        assert run.returncode == 1, run.stderr
        return
    assert run.returncode == 2, run.stderr
    assert "docs/rl/odd.md" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.probe("malformed input")
def test_an_input_over_the_size_cap_is_bad_input(tmp_path):
    from docgen.io import MAX_INPUT_BYTES
    root = consumer_repo(tmp_path / "c")
    with open(root / "docs/rl/huge.md", "wb") as fh:
        fh.truncate(MAX_INPUT_BYTES + 1)   # sparse: costs no disk
    run = docgen("check", cwd=root)
    assert run.returncode == 2
    assert f"over docgen's cap of {MAX_INPUT_BYTES} bytes" in run.stderr and "docs/rl/huge.md" in run.stderr


@pytest.mark.probe("interrupted writes")
def test_a_page_changed_while_writing_is_not_overwritten(tmp_path):
    from docgen.check import pipeline

    root = consumer_repo(tmp_path / "c")
    page = root / "docs/rl/venvs.md"
    run = pipeline.prepare(find_project(root=root))   # what `docgen write` does: read and render, then write
    page.write_text(page.read_text() + "\nA late edit.\n")   # someone saves the page after docgen read it
    with pytest.raises(InputError, match="changed on disk while docgen was writing"):
        pipeline.write(run)
    assert page.read_text().endswith("A late edit.\n")
    assert "<!-- docgen:end quick-inventory -->" in (root / "docker/rl/README.md").read_text()
    assert not (root / "docs/.docgen-facts.json").exists()   # all or nothing
    assert not [p for p in root.rglob("*") if "docgen-tmp" in p.name]


@pytest.mark.probe("interrupted writes")
def test_write_clears_staged_files_of_dead_writers_only(tmp_path):
    root = consumer_repo(tmp_path / "c")
    page = root / "docs/rl/venvs.md"
    alive = subprocess.Popen(["sleep", "60"])
    dead = subprocess.Popen(["true"])
    dead.wait()
    try:
        live_tmp = page.parent / f".venvs.md.{alive.pid}.abc.docgen-tmp"
        dead_tmp = page.parent / f".venvs.md.{dead.pid}.xyz.docgen-tmp"
        dead_bak = page.parent / f".venvs.md.{dead.pid}.xyz.docgen-tmp.bak"
        for leftover in (live_tmp, dead_tmp, dead_bak):
            leftover.write_text("half")
        assert docgen("write", cwd=root).returncode == 0
        assert live_tmp.exists()                    # a concurrent writer's staging is never touched
        assert not dead_tmp.exists() and not dead_bak.exists()
    finally:
        alive.kill()
        alive.wait()


@pytest.mark.probe("symlinks and special files")
def test_a_pages_folder_docgen_cannot_list_is_bad_input(tmp_path, monkeypatch):
    """Permissions do not stop root, so the refusal to list is simulated at os.scandir."""
    root = tmp_path / "p"
    (root / "docs/locked").mkdir(parents=True)
    (root / "docs/a.md").write_text("# A\n")
    (root / "docgen.toml").write_text('pages = ["docs/**/*.md"]\n')
    project = find_project(root=root)
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == root / "docs/locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(InputError) as err:
        project.page_paths()
    assert err.value.path == str(root / "docs/locked") and "Permission denied" in err.value.message


@pytest.mark.probe("symlinks and special files")
def test_a_git_file_naming_another_checkout_records_no_commit(tmp_path):
    import subprocess

    from docgen.snapshot.build import git_provenance

    def git(*args, cwd):
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)

    other = tmp_path / "other"
    other.mkdir()
    git("init", "-q", cwd=other)
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x", cwd=other)
    rl = tmp_path / "rl"
    rl.mkdir()
    (rl / ".git").write_text(f"gitdir: {other / '.git'}\n")
    assert git_provenance(rl)["commit"] is None
    wt = tmp_path / "wt"
    git("worktree", "add", "-q", str(wt), cwd=other)   # a real linked worktree's .git file is its own
    assert git_provenance(wt)["commit"] is not None


# -------------------------------------------------------------------- the oldest Python docgen claims

FLOOR_PYTHON = Path("/usr/bin/python3")   # Debian bookworm's own python3 (3.11.2): the floor CI runs on


def _floor_python_version() -> str:
    """The version of the floor Python (`docgen check` needs nothing beyond its standard library); skips where
    the host has none."""
    if not FLOOR_PYTHON.exists():
        pytest.skip(f"no {FLOOR_PYTHON} on this host")
    probe = subprocess.run([str(FLOOR_PYTHON), "-c", "import sys; print(*sys.version_info[:3], sep='.')"],
                           capture_output=True, text=True, timeout=60, check=True)
    return probe.stdout.strip()


@pytest.mark.probe("python floor")
def test_requires_python_admits_the_floor_python_and_nothing_older_than_3_11():
    import tomllib
    from packaging.specifiers import SpecifierSet
    claimed = SpecifierSet(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"])
    floor = _floor_python_version()
    assert claimed.contains(floor), (str(claimed), floor)
    assert not claimed.contains("3.10.99"), str(claimed)


@pytest.mark.probe("python floor")
def test_check_passes_on_the_floor_python():
    """`docgen check` on this repository under the floor Python: no regex or library difference of 3.11.2 (a
    possessive quantifier once hit a CPython bug fixed in 3.11.5) may turn the clean tree into bad input."""
    _floor_python_version()
    # docgen and its one dependency (packaging, pure Python: the copy this test runs with) on the floor Python
    dependency = Path(packaging.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{dependency}"}
    run = docgen_process("check", cwd=REPO, env=env, python=str(FLOOR_PYTHON), timeout=300)
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr
