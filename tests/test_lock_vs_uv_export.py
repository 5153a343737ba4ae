"""Lock.install_set against real uv: the same package set as `uv export --frozen` for every
extra combination uv accepts.

The workspace under tests/fixtures/lockws is copied to a temp dir, its git dependency is pointed at a
local git repo made there, and real uv writes the uv.lock. uv export prints universal requirements
with markers; those markers are evaluated with packaging's own evaluator (not docgen's) for the
same target platform, so the two sides share no marker code.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from packaging.markers import Marker

from docgen.errors import InputError
from docgen.snapshot.lockfile import LockPackage, read_lock
from docgen.snapshot.markers import DEFAULT_ENV

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
UV = REPO / ".venv" / "bin" / "uv"
FIXTURE = REPO / "tests" / "fixtures" / "lockws"
from tests.reference import NEMO_RL_REF, needs_reference  # noqa: E402

EXTRAS = ("old_tools", "new_tools", "gym", "legacy", "plain")
# Declared in the fixture's [tool.uv] conflicts (legacy activates lockws-member[slow]).
CONFLICTING = {frozenset({"old_tools", "new_tools"}), frozenset({"new_tools", "legacy"})}
DARWIN_ARM = {"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "arm64"}
WINDOWS_PY311 = {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt",
                 "platform_machine": "AMD64", "python_version": "3.11", "python_full_version": "3.11.7"}


def _uv_env() -> dict[str, str]:
    # The machine's trust store holds the CA this network's TLS goes through; uv's bundled roots do not.
    return {"UV_NATIVE_TLS": "1", **os.environ, "UV_PYTHON_DOWNLOADS": "never", "NO_COLOR": "1"}


def _run_uv(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(UV), *args], cwd=cwd, env=_uv_env(), capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture workspace, locked by real uv in a temp dir."""
    if not UV.exists():
        pytest.skip(f"uv not installed at {UV}")
    base = tmp_path_factory.mktemp("lockws")
    shutil.copytree(FIXTURE, base, dirs_exist_ok=True)
    git = base / "gitpkg"
    for cmd in (["init", "-q"], ["add", "-A"],
                ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "fixture"],
                ["tag", "v1.0"]):
        subprocess.run(["git", *cmd], cwd=git, check=True, capture_output=True)
    ws = base / "ws"
    pyproject = ws / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("@GITREPO@", f"git+{git.as_uri()}"))
    done = _run_uv(["lock"], ws)
    if done.returncode != 0:
        if re.search(r"(?i)connect|network|dns|timed out|failed to fetch|error sending request", done.stderr):
            pytest.skip(f"uv cannot reach the package index: {done.stderr.strip()[-300:]}")
        pytest.fail(f"uv lock failed:\n{done.stderr}")
    return ws


def _identity(pkg: LockPackage) -> str:
    value = pkg.source_value
    if pkg.source_kind == "git":
        return f"{pkg.name} @ git:{value.rsplit('#', 1)[1]}"
    if pkg.source_kind == "url":
        return f"{pkg.name} @ {value}"
    if pkg.source_kind in ("editable", "directory", "path", "virtual"):
        return f"path:{os.path.normpath(value)}"
    return f"{pkg.name}=={pkg.version}"


def _export_set(text: str, env: dict[str, str]) -> set[str]:
    """Package identities from `uv export` output whose markers hold on `env`."""
    found = set()
    for line in text.splitlines():
        if not line.strip() or line.startswith((" ", "#")):
            continue
        requirement, _, marker = line.partition(" ; ")
        if marker and not Marker(marker).evaluate(env):
            continue
        requirement = requirement.strip().removeprefix("-e ").strip()
        if requirement.startswith("."):
            found.add(f"path:{os.path.normpath(requirement)}")
        elif git := re.fullmatch(r"(\S+) @ git\+\S+@([0-9a-f]{40})", requirement):
            found.add(f"{git[1].lower()} @ git:{git[2]}")
        elif url := re.fullmatch(r"(\S+) @ (\S+)", requirement):
            found.add(f"{url[1].lower()} @ {url[2]}")
        else:
            name, version = requirement.split("==")
            found.add(f"{name.lower()}=={version}")
    return found


def _uv_export(ws: Path, extras, group_args=()) -> subprocess.CompletedProcess[str]:
    args = ["export", "--frozen", "--no-hashes", "--no-emit-project", *group_args]
    for extra in extras:
        args += ["--extra", extra]
    return _run_uv(args, ws)


def _combos():
    for size in range(0, 3):
        yield from itertools.combinations(EXTRAS, size)
    yield ("old_tools", "gym", "legacy", "plain")


def _uv_sync_refuses(ws: Path, extras) -> bool:
    args = ["sync", "--frozen", "--dry-run"]
    for extra in extras:
        args += ["--extra", extra]
    done = _run_uv(args, ws)
    refusal = re.search(r"conflicting|incompatible\s+with\s+the\s+declared\s+conflicts", done.stderr)   # uv wraps its message to the terminal
    assert done.returncode == 0 or refusal, done.stderr
    return done.returncode != 0


def test_install_set_equals_uv_export_for_every_accepted_combination(workspace: Path) -> None:
    lock = read_lock(workspace / "uv.lock")
    refused, compared = set(), 0
    for extras in _combos():
        try:
            lock.install_set(extras)
        except InputError as err:
            # Like `uv sync`, install_set refuses conflicting extras, also when an edge activates one
            # (legacy -> lockws-member[slow]); `uv export` only catches the directly requested ones.
            assert "conflicting" in err.message
            assert _uv_sync_refuses(workspace, extras), extras
            refused.add(frozenset(extras))
            continue
        assert not _uv_sync_refuses(workspace, extras), extras
        done = _uv_export(workspace, extras)
        assert done.returncode == 0, done.stderr
        for platform in (None, DARWIN_ARM, WINDOWS_PY311):
            env = {**DEFAULT_ENV, **(platform or {})}
            mine = {_identity(p) for p in lock.install_set(extras, platform=platform)}
            assert mine == _export_set(done.stdout, env), (extras, platform)
            compared += 1
    assert refused == CONFLICTING  # uv refuses exactly the declared conflicts
    assert compared == 3 * (sum(1 for _ in _combos()) - len(CONFLICTING))


@pytest.mark.parametrize(("group_args", "groups"), [
    ((), None),
    (("--no-default-groups",), ()),
    (("--group", "docs"), ("dev", "build", "docs")),
    (("--all-groups",), ("dev", "build", "docs", "lint")),
])
@pytest.mark.parametrize("extras", [(), ("old_tools",), ("gym", "plain")])
def test_groups_match_uv_export(workspace: Path, group_args, groups, extras) -> None:
    lock = read_lock(workspace / "uv.lock")
    done = _uv_export(workspace, extras, group_args)
    assert done.returncode == 0, done.stderr
    mine = {_identity(p) for p in lock.install_set(extras, groups)}
    assert mine == _export_set(done.stdout, dict(DEFAULT_ENV))


def test_group_conflict_marker_is_honoured(workspace: Path) -> None:
    """six 1.15.0 comes with the `lint` group; uv refuses lint together with new_tools."""
    lock = read_lock(workspace / "uv.lock")
    assert _uv_export(workspace, ("new_tools",), ("--group", "lint")).returncode != 0
    with_lint = {p.key for p in lock.install_set((), ("lint",))}
    assert "six==1.15.0" in with_lint and "six==1.16.0" not in with_lint
    assert "six==1.16.0" in {p.key for p in lock.install_set(("new_tools",), ())}


def test_fixture_lock_shape(workspace: Path) -> None:
    lock = read_lock(workspace / "uv.lock")
    assert lock.root == "lockws-root" and lock.default_groups == ("dev", "build")
    kinds = {p.name: p.source_kind for p in lock.packages}
    assert kinds["localgit"] == "git" and kinds["edit-lib"] == "editable"
    assert kinds["plain-lib"] == "directory" and kinds["lockws-member"] == "editable"
    assert [p.key for p in lock.find("six")] == ["six==1.15.0", "six==1.16.0"]
    shared = {p.name: extras for p, extras in lock.shared_source_builds(["old_tools", "new_tools"])}
    # git and non-editable path packages are built from source once and reused; editables are not.
    assert shared == {"localgit": ("old_tools", "new_tools"), "plain-lib": ("old_tools", "new_tools")}


@pytest.fixture(scope="module")
def nemo_rl_lock(tmp_path_factory: pytest.TempPathFactory):
    """NeMo-RL's pyproject.toml and uv.lock in a temp dir, with docgen's reading of that lock (read once: the
    cases differ only in the extras and the machine asked of it)."""
    where = tmp_path_factory.mktemp("nemo-rl-lock")
    for name in ("pyproject.toml", "uv.lock"):
        shutil.copy(NEMO_RL_REF / name, where / name)
    return where, read_lock(where / "uv.lock")


@needs_reference
@pytest.mark.parametrize("extras", [(), ("vllm",), ("fsdp",), ("automodel",), ("mcore",), ("modelopt",),
                                    ("nemo_gym",), ("sglang",), ("trtllm",), ("nvrx",), ("modelopt", "vllm"),
                                    ("modelopt", "automodel"), ("modelopt", "mcore"), ("fsdp", "vllm")])
@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_nemo_rl_lock_matches_uv_export(nemo_rl_lock, extras, machine) -> None:
    """uv export --frozen needs only pyproject.toml and uv.lock, so the real lock is checked too."""
    where, lock = nemo_rl_lock
    done = _uv_export(where, extras)
    assert done.returncode == 0, done.stderr
    platform = {"platform_machine": machine}
    mine = {_identity(p) for p in lock.install_set(extras, platform=platform)}
    assert mine == _export_set(done.stdout, {**DEFAULT_ENV, **platform})
