"""Fixtures every test folder shares: this repository, its project (as docgen finds it) and its model."""

import compileall
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RAM_SCRATCH = Path("/dev/shm")
RAM_SCRATCH_NEEDED = 4 << 30   # bytes free: the run's scratch (about 1.1 GiB at its largest), with room to spare


def checkout_copy(dst: Path) -> str:
    """This checkout's files (tracked, and untracked ones git does not ignore, with any uncommitted edits) as a
    fresh one-commit repository at `dst`; its commit. Install or build from such a copy, never from the checkout
    itself: a build writes into the tree it builds (setuptools-scm's docgen/_version.py), and the version a test
    process imported would then differ from what a `docgen` process started later reports."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c",
                               "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=dst,
                              capture_output=True, text=True, check=True).stdout.strip()
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    dst.mkdir(parents=True, exist_ok=True)
    for rel in filter(None, files):
        src = REPO / rel
        if src.is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "docgen")
    return git("rev-parse", "HEAD")


def ram_scratch() -> Path | None:
    """/dev/shm, when it is a tmpfs with room to spare that lets programs run from it (venvs are made there)."""
    try:
        with open("/proc/self/mounts") as mounts:
            options = next((fields[3].split(",") for fields in map(str.split, mounts)
                            if fields[1] == str(RAM_SCRATCH) and fields[2] == "tmpfs"), None)
        free = os.statvfs(RAM_SCRATCH)
    except OSError:
        return None
    if options is None or "noexec" in options or free.f_bavail * free.f_frsize < RAM_SCRATCH_NEEDED:
        return None
    return RAM_SCRATCH


# Scratch in memory, unless TMPDIR names a place: the suite makes and throws away about 1.1 GiB of trees,
# venvs and engine state per run (copies of this repository, site builds, a private Docker engine's data),
# and docgen syncs each page it writes to disk. This machine's virtual disk is shared: a run with 53 s of
# iowait took 180 s, the same code 126 s on a quiet disk; in memory, a run writes about 400 MiB to disk (the
# shared engine's builds) instead of 1.5 GiB. Set here, at import, so that pytest's own temporary folders,
# the xdist workers and every child process take it.
if "TMPDIR" not in os.environ and (_ram := ram_scratch()) is not None:
    os.environ["TMPDIR"] = str(_ram)
    tempfile.tempdir = None   # recomputed from TMPDIR on next use

ENGINE_FOLDERS = ("tests/console/", "tests/image/", "tests/docs/")
# The tests that build this checkout's targets on the shared engine, one of them with --no-cache: one at a time
SHARED_ENGINE_BUILDS = {f"tests/image/{name}.py" for name in ("test_build_log", "test_layers", "test_verification_step")}
# tests/site/conftest.py's session fixtures: the one site build, its server, the one Chromium and the tours
SHARED_SITE_FIXTURES = {"site_build", "site", "site_server", "chromium", "browser", "plain_tour", "diagram_tour"}


def pytest_configure(config):
    """Bytecode: the suite starts docgen (and child pytest sessions) in hundreds of fresh interpreters, and
    each one compiled docgen from source again where the environment forbids writing bytecode
    (PYTHONDONTWRITEBYTECODE, set on this machine): 0.20 s for a `docgen check` against 0.10 s with its
    bytecode at hand. So the run first compiles docgen's modules, as pip does for a package it installs
    (a no-op when they are current); an interpreter reads bytecode that exists whatever that setting.

    SIGINT: a suite started as a background job of a non-interactive shell inherits SIGINT ignored, and
    passes that on to every process it starts; the console tests interrupt their child sessions as a
    terminal's Ctrl-C would, so such children would sleep through it. Handled here, SIGINT reaches each
    child with its default action (a handled signal is reset by exec; an ignored one is not)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not os.environ.get("PYTEST_XDIST_WORKER"):   # the controller, or a run without workers
        compileall.compile_dir(REPO / "docgen", quiet=1)


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject.toml): one worker more than the cores this process may use. Much of the suite
    waits on the Docker engine, Chromium and child processes: on 2 cores, 2 workers kept 1.2 cores busy,
    3 kept both (bench/suite_wall.py)."""
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(tryfirst=True)   # before xdist reads the groups into the node ids
def pytest_collection_modifyitems(config, items):
    """The suite runs on every core (pytest-xdist, `--dist loadgroup` in pyproject.toml). Tests that share
    one resource keep to one worker, in one group. A file that uses the Docker engine is a group of its own
    (its module fixtures start what they share once; a page's console blocks share one shell, in order),
    except the files that build this checkout's targets on the shared engine, which are one group: a build
    that joins another's --no-cache build of the same steps is left with new layers under the image's
    own (test_layers then fails). The tests that use the site's shared fixtures are one group: one site build,
    one Chromium, port 80. A site test that builds its own (a fresh venv's, a hostile copy's) shares nothing and
    is spread: in that group, 5 minutes of such builds ran one after another on one worker. Everything else is
    spread.

    This hook, not pytest_itemcollected: that one reaches a conftest only for items under its folder, and
    the docs' pages are collected from outside tests/ (a page split over two workers loses its shell)."""
    for item in items:
        where = Path(str(item.path)).resolve()
        shown = where.relative_to(REPO).as_posix() if where.is_relative_to(REPO) else str(where)
        if shown in SHARED_ENGINE_BUILDS:
            item.add_marker(pytest.mark.xdist_group("engine:shared-engine-builds"))
        elif (item.get_closest_marker("docker") or item.get_closest_marker("image")
                or shown.startswith(ENGINE_FOLDERS) or not shown.startswith("tests/")):
            item.add_marker(pytest.mark.xdist_group(f"engine:{shown}"))
        elif SHARED_SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("site"))


@pytest.fixture(scope="session")
def repo_project():
    from docgen.project import find_project
    return find_project(root=REPO)


@pytest.fixture(scope="session")
def repo_model(repo_project):
    from docgen.model.build import load_model
    return load_model(repo_project.dockerfile, repo_project.snapshot)
