"""uv.lock reader: the real NeMo-RL lock (when the reference is there, tests/reference.py), small hand-written locks,
the marker evaluator, and bad input that must fail with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.markers import Marker

from docgen.errors import InputError
from docgen.snapshot import markers
from docgen.snapshot.lockfile import KNOWN_LOCK_VERSIONS, Dependency, read_lock
from docgen.snapshot.pyproject import read_pyproject

from tests.reference import NEMO_RL_REF, needs_reference as needs_ref  # noqa: E402
IMAGE_EXTRAS = ("vllm", "fsdp", "automodel", "mcore", "modelopt", "nemo_gym")
REGISTRY = 'source = { registry = "https://index.example/simple" }'

# A small lock in uv's shape: a root with two conflicting extras pinning different `six`, a member
# reached with one of its extras, a git package and a platform-gated package.
SMALL_LOCK = f"""\
version = 1
revision = 3
requires-python = ">=3.11"
conflicts = [[
    {{ package = "app", extra = "new" }},
    {{ package = "app", extra = "old" }},
]]

[[package]]
name = "app"
version = "0.1.0"
source = {{ editable = "." }}
dependencies = [
    {{ name = "member", extra = ["fast"] }},
    {{ name = "mac-only", marker = "sys_platform == 'darwin'" }},
    {{ name = "six", version = "1.15.0", {REGISTRY}, marker = "extra != 'extra-3-app-new'" }},
    {{ name = "six", version = "1.16.0", {REGISTRY}, marker = "extra == 'extra-3-app-new'" }},
]

[package.optional-dependencies]
new = [
    {{ name = "gitdep" }},
]
old = [
    {{ name = "six", version = "1.15.0", {REGISTRY} }},
]

[package.dev-dependencies]
dev = [
    {{ name = "pluggy" }},
]

[[package]]
name = "gitdep"
version = "1.0.0"
source = {{ git = "https://git.example/gitdep?rev=v1#0123456789abcdef0123456789abcdef01234567" }}

[[package]]
name = "mac-only"
version = "2.0"
{REGISTRY}
wheels = [
    {{ url = "https://files.example/mac_only-2.0-py3-none-any.whl", hash = "sha256:{'a' * 64}", size = 10 }},
]

[[package]]
name = "member"
version = "0.2.0"
source = {{ editable = "packages/member" }}

[package.optional-dependencies]
fast = [
    {{ name = "speedups", marker = "platform_machine == 'x86_64'" }},
]

[[package]]
name = "pluggy"
version = "1.5.0"
{REGISTRY}
sdist = {{ url = "https://files.example/pluggy-1.5.0.tar.gz", hash = "sha256:{'b' * 64}", size = 10 }}

[[package]]
name = "six"
version = "1.15.0"
{REGISTRY}

[[package]]
name = "six"
version = "1.16.0"
{REGISTRY}

[[package]]
name = "speedups"
version = "3.0"
{REGISTRY}
"""


def _write(tmp_path: Path, text: str, name: str = "uv.lock") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def _keys(packages) -> list[str]:
    return [p.key for p in packages]


# ---------------------------------------------------------------- small lock semantics


def test_small_lock_walk(tmp_path: Path) -> None:
    lock = read_lock(_write(tmp_path, SMALL_LOCK), root="app")
    assert (lock.version, lock.revision, lock.requires_python) == (1, 3, ">=3.11")
    assert lock.default_groups == ("dev",)  # uv's default when no pyproject says otherwise
    assert _keys(lock.install_set()) == ["member==0.2.0", "pluggy==1.5.0", "six==1.15.0", "speedups==3.0"]
    assert _keys(lock.install_set(["new"], groups=())) == ["gitdep==1.0.0", "member==0.2.0", "six==1.16.0",
                                                           "speedups==3.0"]
    darwin_arm = {"sys_platform": "darwin", "platform_machine": "arm64"}
    assert _keys(lock.install_set(["old"], groups=(), platform=darwin_arm)) == ["mac-only==2.0", "member==0.2.0",
                                                                                 "six==1.15.0"]


def test_small_lock_facts(tmp_path: Path) -> None:
    text = SMALL_LOCK
    lock = read_lock(_write(tmp_path, text), root="app")
    by_name = {p.name: p for p in lock.packages}
    assert by_name["gitdep"].line == text.splitlines().index('name = "gitdep"') + 1
    assert by_name["gitdep"].id.source.startswith("git+https://git.example/gitdep?rev=v1#0123")
    assert by_name["gitdep"].source_built and by_name["pluggy"].source_built  # git; sdist without wheel
    assert not by_name["mac-only"].source_built and by_name["mac-only"].has_wheels
    assert by_name["member"].key == "member==0.2.0"
    assert _keys(lock.find("six")) == ["six==1.15.0", "six==1.16.0"]
    edge = by_name["app"].dependencies[2]
    assert edge == Dependency("six", "1.15.0", "registry+https://index.example/simple", (),
                              "extra != 'extra-3-app-new'")
    assert lock.get(edge).key == "six==1.15.0"
    assert lock.conflicts[0][0].extra == "new"


def test_root_and_default_groups_come_from_the_pyproject_beside_the_lock(tmp_path: Path) -> None:
    _write(tmp_path, SMALL_LOCK)
    _write(tmp_path, '[project]\nname = "app"\n[dependency-groups]\ndev = ["pluggy"]\n'
                     '[tool.uv]\ndefault-groups = []\n', "pyproject.toml")
    lock = read_lock(tmp_path / "uv.lock")
    assert lock.root == "app" and lock.default_groups == ()
    assert "pluggy==1.5.0" not in _keys(lock.install_set())


def test_conflicting_extras_are_refused_like_uv_sync(tmp_path: Path) -> None:
    path = _write(tmp_path, SMALL_LOCK)
    lock = read_lock(path, root="app")
    with pytest.raises(InputError) as caught:
        lock.install_set(["old", "new"])
    assert caught.value.line == _line_of(SMALL_LOCK, 'name = "app"')
    assert "app[new] and app[old]" in caught.value.message


def test_repeated_name_and_version_get_source_in_key(tmp_path: Path) -> None:
    text = SMALL_LOCK.replace('name = "six"\nversion = "1.16.0"', 'name = "six"\nversion = "1.15.0"', 1)
    text = text.replace('version = "1.15.0"\nsource = { registry = "https://index.example/simple" }\n\n'
                        '[[package]]\nname = "speedups"',
                        'version = "1.15.0"\nsource = { url = "https://files.example/six-1.15.0-py3-none-any.whl" }'
                        '\n\n[[package]]\nname = "speedups"')
    text = text.replace('{ name = "six", version = "1.16.0", source = { registry = "https://index.example/simple" }, '
                        'marker', '{ name = "six", version = "1.15.0", source = { url = "https://files.example/'
                        'six-1.15.0-py3-none-any.whl" }, marker')
    lock = read_lock(_write(tmp_path, text), root="app")
    assert _keys(lock.find("six")) == ["six==1.15.0@registry:index.example/simple",
                                       "six==1.15.0@url:six-1.15.0-py3-none-any.whl"]


# ---------------------------------------------------------------- markers


@pytest.mark.parametrize(("marker", "activated", "expected"), [
    ("extra == 'extra-7-nemo-rl-vllm'", {"extra-7-nemo-rl-vllm"}, True),
    ("extra == 'extra-7-nemo-rl-vllm'", set(), False),
    ("extra != 'extra-7-nemo-rl-vllm'", set(), True),
    ("extra == 'extra-7-nemo-rl-vllm' and extra == 'extra-7-nemo-rl-mcore'", {"extra-7-nemo-rl-vllm"}, False),
    ("extra == 'extra-7-nemo-rl-vllm' or extra == 'extra-7-nemo-rl-mcore' and extra == 'x'",
     {"extra-7-nemo-rl-vllm"}, True),  # 'and' binds tighter than 'or'
    ("(extra == 'a' or extra == 'b') and platform_machine == 'x86_64'", {"b"}, True),
    ("(extra == 'a' or extra == 'b') and platform_machine == 'aarch64'", {"b"}, False),
    ("platform_machine != 'x86_64' and extra == 'extra-7-nemo-rl-vllm'", {"extra-7-nemo-rl-vllm"}, False),
    ("group == 'group-7-nemo-rl-build'", {"group-7-nemo-rl-build"}, True),
    ("extra == 'group-7-nemo-rl-build'", set(), False),
    ("python_full_version < '3.12'", set(), False),
    ("python_full_version >= '3.13.14' and python_version == '3.13'", set(), True),
    ("'linux' == sys_platform", set(), True),
    ("'x86' in platform_machine", set(), True),
])
def test_marker_evaluation(marker: str, activated: set[str], expected: bool) -> None:
    assert markers.evaluate(marker, markers.env_for(None), frozenset(activated)) is expected


@needs_ref
@pytest.mark.parametrize("machine", ["x86_64", "aarch64", "arm64"])
def test_markers_agree_with_packaging(machine: str) -> None:
    """Every marker in the real lock, with no conflict item or exactly one switched on: packaging's
    single-`extra` evaluation answers that case too, so docgen's set evaluation must agree."""
    import re

    text = (NEMO_RL_REF / "uv.lock").read_text()
    found = set(re.findall(r'marker = "([^"]*)"', text))
    assert len(found) > 100
    env = {**markers.DEFAULT_ENV, "platform_machine": machine}
    checked = 0
    for marker in found:
        for item in ("", *set(re.findall(r"extra == '([^']*)'", marker))):
            mine = markers.evaluate(marker, markers.env_for(env), frozenset({item} - {""}))
            assert mine == Marker(marker).evaluate({**env, "extra": item}), (marker, item)
            checked += 1
    assert checked > 300


def test_conflict_item_encoding() -> None:
    assert markers.conflict_item("extra", "nemo-rl", "vllm") == "extra-7-nemo-rl-vllm"
    assert markers.conflict_item("group", "nemo-gym", "dev") == "group-8-nemo-gym-dev"
    assert markers.conflict_item("project", "nemo-rl") == "project-7-nemo-rl"


# ---------------------------------------------------------------- bad input


BAD_LOCKS = {
    "version 2": (SMALL_LOCK.replace("version = 1\n", "version = 2\n", 1), "version = 2",
                  "unsupported uv.lock version 2"),
    "version 0": (SMALL_LOCK.replace("version = 1\n", "version = 0\n", 1), "version = 0",
                  "unsupported uv.lock version 0"),
    "no version": (SMALL_LOCK.replace("version = 1\n", "", 1), None, "no top-level version"),
    "invalid toml": (SMALL_LOCK.replace('name = "pluggy"', 'name = "pluggy'), 'name = "pluggy', "not valid TOML"),
    "package without name": (SMALL_LOCK.replace('name = "speedups"\n', ""), "SPEEDUPS", "without a name"),
    "missing package": (SMALL_LOCK.replace('{ name = "pluggy" }', '{ name = "pluggyx" }'), '{ name = "pluggyx" }',
                        "not in the lock"),
    "ambiguous edge": (SMALL_LOCK.replace('{ name = "six", version = "1.15.0", ' + REGISTRY + " }",
                                          '{ name = "six" }'), '    { name = "six" }', "ambiguous"),
}


@pytest.mark.parametrize("case", sorted(BAD_LOCKS))
def test_bad_lock_names_file_and_line(tmp_path: Path, case: str) -> None:
    text, needle, message = BAD_LOCKS[case]
    if needle == "SPEEDUPS":  # the [[package]] header whose name was removed
        lines = text.splitlines()
        needle_line = next(i for i, line in enumerate(lines, 1)
                           if line == "[[package]]" and lines[i].startswith("version = \"3.0\""))
    else:
        needle_line = 1 if needle is None else _line_of(text, needle)
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        read_lock(path, root="app")
    assert caught.value.path == str(path)
    assert caught.value.line == needle_line, caught.value
    assert message in caught.value.message
    assert str(caught.value).startswith(f"{path}:{needle_line}: ")


def test_unsupported_version_message(tmp_path: Path) -> None:
    path = _write(tmp_path, SMALL_LOCK.replace("version = 1\n", "version = 2\n", 1))
    with pytest.raises(InputError, match=r"unsupported uv.lock version 2 \(docgen knows 1\)"):
        read_lock(path, root="app")
    assert KNOWN_LOCK_VERSIONS == {1}


def test_unknown_extra_names_lock_and_root_line(tmp_path: Path) -> None:
    path = _write(tmp_path, SMALL_LOCK)
    lock = read_lock(path, root="app")
    with pytest.raises(InputError) as caught:
        lock.install_set(["nope"])
    assert (caught.value.path, caught.value.line) == (str(path), _line_of(SMALL_LOCK, 'name = "app"'))
    assert "unknown extra 'nope'" in caught.value.message


BAD_PYPROJECTS = {
    "conflict names undefined extra": (
        '[project]\nname = "app"\n[project.optional-dependencies]\nold = ["six"]\n'
        '[tool.uv]\nconflicts = [\n  [\n    { extra = "old" },\n    { extra = "neww" },\n  ],\n]\n',
        'extra = "neww"', "conflict names extra 'neww'"),
    "invalid toml": ('[project]\nname = "app"\ndependencies = [\n  "six",\n  oops\n]\n', "oops", "not valid TOML"),
    "no project table": ('[tool.uv]\nmanaged = true\n', None, "no [project] table"),
}


@pytest.mark.parametrize("case", sorted(BAD_PYPROJECTS))
def test_bad_pyproject_names_file_and_line(tmp_path: Path, case: str) -> None:
    text, needle, message = BAD_PYPROJECTS[case]
    path = _write(tmp_path, text, "pyproject.toml")
    with pytest.raises(InputError) as caught:
        read_pyproject(path)
    assert caught.value.path == str(path)
    assert caught.value.line == (1 if needle is None else _line_of(text, needle))
    assert message in caught.value.message


# ---------------------------------------------------------------- the real NeMo-RL lock


@pytest.fixture(scope="module")
def nemo_lock():
    from tests.reference import REASON, reference_present
    if not reference_present():
        pytest.skip(REASON)
    return read_lock(NEMO_RL_REF / "uv.lock")


def test_nemo_rl_lock_header(nemo_lock) -> None:
    assert (nemo_lock.version, nemo_lock.revision) == (1, 3)
    assert len(nemo_lock.packages) == 549
    assert nemo_lock.root == "nemo-rl" and nemo_lock.default_groups == ("dev", "build")
    assert len(nemo_lock.conflicts) == 17
    assert len({p.key for p in nemo_lock.packages}) == 549  # keys are unique
    assert len(nemo_lock.find("vllm")) == 3 and len(nemo_lock.find("deep_ep")) == 2


def test_nemo_rl_deep_ep_same_version_different_revisions(nemo_lock) -> None:
    deep_ep = nemo_lock.find("deep-ep")
    assert {p.version for p in deep_ep} == {"1.2.1+29d31c0"}
    assert len({p.id.source for p in deep_ep}) == 2
    assert all(p.source_kind == "git" and p.key.startswith("deep-ep==1.2.1+29d31c0@git:") for p in deep_ep)
    with pytest.raises(InputError, match="ambiguous"):
        nemo_lock.get(Dependency("deep-ep", None, None, (), None))


def _named(packages, name: str):
    return [p for p in packages if p.name == name]


def test_nemo_rl_install_sets(nemo_lock) -> None:
    sizes = {}
    for extras in ((), *((e,) for e in IMAGE_EXTRAS), ("modelopt", "vllm"), ("modelopt", "automodel"),
                   ("modelopt", "mcore")):
        sizes["+".join(extras) or "base"] = len(nemo_lock.install_set(extras))
    print("install set sizes:", sizes)

    for extra in ("automodel", "mcore"):
        te = _named(nemo_lock.install_set([extra]), "transformer-engine")
        assert [(p.version, p.source_kind) for p in te] == [("2.15.0+42b8400", "git")]
        assert "rev=release_v2.15#" in te[0].id.source and te[0].source_built
    vllm_set = nemo_lock.install_set(["vllm"])
    vllm = _named(vllm_set, "vllm")
    assert [(p.version, p.source_kind) for p in vllm] == [("0.25.1", "url")]
    assert vllm[0].source_value.endswith("manylinux_2_28_x86_64.whl") and not vllm[0].source_built
    assert not _named(vllm_set, "transformer-engine")
    assert not _named(nemo_lock.install_set(["fsdp"]), "transformer-engine")
    aarch64 = _named(nemo_lock.install_set(["vllm"], platform={"platform_machine": "aarch64"}), "vllm")
    assert aarch64[0].source_value.endswith("manylinux_2_28_aarch64.whl")
    assert not any(p.name == "nemo-rl" for p in vllm_set)  # the root itself is not listed
    assert _named(nemo_lock.install_set(["nemo_gym"]), "nemo-gym")[0].source_kind == "editable"


def test_nemo_rl_conflicting_extras_refused(nemo_lock) -> None:
    with pytest.raises(InputError, match=r"nemo-rl\[automodel\] and nemo-rl\[mcore\]"):
        nemo_lock.install_set(["automodel", "mcore"])


def test_nemo_rl_shared_source_builds(nemo_lock) -> None:
    shared = {p.key: extras for p, extras in nemo_lock.shared_source_builds(IMAGE_EXTRAS)}
    print("shared source builds:", shared)
    assert shared["transformer-engine==2.15.0+42b8400"] == ("automodel", "mcore")
    assert all(not key.startswith(("nemo-rl", "nemo-gym", "megatron")) for key in shared)  # no editables


def test_lock_line_index_matches_text(nemo_lock) -> None:
    lines = (NEMO_RL_REF / "uv.lock").read_text().splitlines()
    assert all(lines[p.line - 1] == f'name = "{p.name}"' for p in nemo_lock.packages)


def test_wheel_placeholders_keep_facts(nemo_lock) -> None:
    """Parsing skips wheel URLs; whether a package has wheels/sdist must still be exact."""
    import tomllib

    raw = tomllib.loads((NEMO_RL_REF / "uv.lock").read_text())["package"]
    assert [(p.has_wheels, p.has_sdist) for p in nemo_lock.packages] == \
        [(bool(r.get("wheels")), "sdist" in r) for r in raw]


# ------------------------------------------------------------- marker evaluation (packaging, set-valued extra)

LINUX = markers.env_for(None)
MAC = markers.env_for({"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "arm64"})
EVAL_CASES = [  # marker, platform, activated conflict items, expected
    ("extra == 'extra-7-nemo-rl-vllm'", LINUX, {"extra-7-nemo-rl-vllm"}, True),
    ("extra == 'extra-7-nemo-rl-vllm'", LINUX, {"extra-7-nemo-rl-mcore"}, False),
    ("extra != 'extra-7-nemo-rl-vllm'", LINUX, {"extra-7-nemo-rl-mcore", "project-7-nemo-rl"}, True),
    ("platform_machine == 'x86_64' and sys_platform == 'linux'", LINUX, set(), True),
    ("platform_machine == 'x86_64' and sys_platform == 'linux'", MAC, set(), False),
    ("(platform_machine != 'x86_64' and extra == 'a') or (extra == 'b' and extra != 'c') or extra == 'd'",
     LINUX, {"b"}, True),
    ("(platform_machine != 'x86_64' and extra == 'a') or (extra == 'b' and extra != 'c') or extra == 'd'",
     LINUX, {"a", "b", "c"}, False),
    ("(platform_machine != 'x86_64' and extra == 'a') or (extra == 'b' and extra != 'c') or extra == 'd'",
     MAC, {"a"}, True),
    ("python_full_version >= '3.13.14' and python_version < '3.14'", LINUX, set(), True),
    ("python_full_version < '3.13.14'", LINUX, set(), False),
    ("'linux' == sys_platform or 'x86' in platform_machine", MAC, set(), False),
    ("platform_machine not in 'arm64 aarch64'", MAC, set(), False),
    ("((extra == 'a'))", LINUX, {"a"}, True),
    ("group == 'group-7-nemo-rl-build'", LINUX, {"group-7-nemo-rl-build"}, True),  # uv never writes it; accepted
]


@pytest.mark.parametrize("marker, env, activated, expected", EVAL_CASES)
def test_markers_evaluate_with_the_set_of_activated_conflict_items(marker, env, activated, expected) -> None:
    assert markers.evaluate(marker, env, activated) is expected


@pytest.mark.parametrize("marker", [
    "extra ==", "extra == 'a' and", "(extra == 'a'", "extra == 'a')", "extra 'a'", "'a' == 'b'",
    "extra == 'a' xor extra == 'b'", "extra == 'unterminated",
])
def test_a_marker_that_is_not_pep_508_is_a_marker_error(marker: str) -> None:
    with pytest.raises(markers.MarkerError):
        markers.evaluate(marker, LINUX, set())


def test_a_bad_marker_in_the_lock_names_file_and_line(tmp_path: Path) -> None:
    text = SMALL_LOCK.replace("marker = \"sys_platform == 'darwin'\"", "marker = \"sys_platform = 'darwin'\"")
    assert text != SMALL_LOCK
    path = _write(tmp_path, text)
    lock = read_lock(path, root="app")
    with pytest.raises(InputError) as err:
        lock.install_set()
    assert err.value.path == str(path) and err.value.line == _line_of(text, 'name = "app"')
    assert "mac-only" in err.value.message
