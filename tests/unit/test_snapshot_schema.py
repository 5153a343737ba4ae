"""Every wrong type anywhere in the snapshot is bad input naming its key path: exit 2, no traceback."""

from __future__ import annotations

import copy
import io
import json
from contextlib import redirect_stderr
from pathlib import Path

import pytest

from docgen.cli import main
from docgen.errors import InputError
from docgen.snapshot.load import SCHEMA, MapOf, key_path, load_snapshot, schema_errors
from tests.reference import NEMO_RL_REF, needs_reference

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "snapshot/nemo-rl.json"
DOCKERFILE = ROOT / "tests/fixtures/dockerfiles/eight-filters.Dockerfile"
SUBSTITUTES = ["fsdp", 7, True, None, 1.5, [], ["x", 1], {}, {"k": "v"}]
# string-or-null fields (null states an absence); every other null is a wrong type
NULLABLE = {"version", "marker", "detail", "member", "package", "requires_python"}


def _paths(data, schema=SCHEMA, path=()):
    """Every key path of the committed snapshot the schema describes (first item of each list, first two
    entries of each map), the free-form provenance excepted."""
    yield path
    if isinstance(schema, MapOf):
        if schema.value is object:
            return
        for key in list(data)[:2]:
            yield from _paths(data[key], schema.value, (*path, key))
    elif isinstance(schema, list) and data:
        yield from _paths(data[0], schema[0], (*path, 0))
    elif isinstance(schema, dict):
        for key in schema:
            if key in data:   # a key older snapshots may lack (MayLack) is walked where it is present
                yield from _paths(data[key], schema[key], (*path, key))


def _set(data, path, value):
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


@pytest.fixture(scope="module")
def original():
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def test_the_committed_snapshot_fits_the_schema(original):
    assert list(schema_errors(original)) == []


def test_every_wrong_type_is_an_input_error_naming_the_key_path(original, tmp_path):
    tried = errors = 0
    text = json.dumps(original)
    for path in list(_paths(original))[1:]:
        current = original
        for part in path:
            current = current[part]
        for substitute in SUBSTITUTES:
            if type(substitute) is type(current) and not isinstance(current, (list, dict)):
                continue
            if substitute == current:
                continue
            data = json.loads(text)   # a fresh copy: the C decoder is many times faster than copy.deepcopy
            _set(data, path, substitute)
            target = tmp_path / "snap.json"
            # one item per line, as in the committed file, from the C encoder (indent= takes the pure-Python one)
            target.write_text(json.dumps(data, separators=(",\n", ": ")), encoding="utf-8")
            tried += 1
            try:
                load_snapshot(target)
            except InputError as exc:
                errors += 1
                assert exc.line and exc.line >= 1
                if path == ("format",):
                    assert "unsupported snapshot format" in exc.message
                    continue
                assert "malformed snapshot" in exc.message
                if not isinstance(current, (list, dict)) or not isinstance(substitute, type(current)):
                    assert key_path(path) in exc.message, (path, substitute, exc.message)
                continue
            # accepted: only a null where null is meaningful, or a container of the right shape
            assert (isinstance(substitute, (str, type(None))) and path[-1] in NULLABLE) \
                or isinstance(substitute, type(current)), \
                (key_path(path), substitute)
    assert tried > 400 and errors > 350, (tried, errors)


@pytest.mark.parametrize("path, value, named", [
    (("lock", "shared_builds", 0, "extras"), "fsdp", 'lock.shared_builds[0].extras is a string ("fsdp"), expected a list of strings'),
    (("project", "extras", "vllm"), "cuda-python", "project.extras.vllm is a string"),
    (("lock", "version"), True, "lock.version is a boolean (true), expected an integer"),
    (("registry", "actors", 0, "member"), 3, "registry.actors[0].member is an integer (3), expected a string or null"),
    (("project", "conflicts", 0, 0), "nemo-rl", "project.conflicts[0][0] is a string"),
])
def test_the_cli_exits_2_without_a_traceback(original, tmp_path, path, value, named):
    data = copy.deepcopy(original)
    _set(data, path, value)
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(data, indent=1), encoding="utf-8")
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["inventory", "--dockerfile", str(DOCKERFILE), "--snapshot", str(snap)])
    assert code == 2
    assert "Traceback" not in err.getvalue()
    message = err.getvalue().strip()
    assert message.startswith(f"docgen: error: {snap}:") and named in message, message


def test_missing_and_unknown_keys_are_named(original, tmp_path):
    data = copy.deepcopy(original)
    del data["lock"]["packages"][next(iter(data["lock"]["packages"]))]["source_kind"]
    assert any("lacks key 'source_kind'" in m for _, m in schema_errors(data))
    data = copy.deepcopy(original)
    data["registry"]["actors"][0]["extra_field"] = 1
    assert [(key_path(p), m) for p, m in schema_errors(data)] == [("registry.actors[0]", "has unknown key 'extra_field'")]


def test_deep_nesting_is_checked_without_recursion():
    deep: object = "x"
    for _ in range(100_000):
        deep = [deep]
    problems = list(schema_errors({**json.loads(SNAPSHOT.read_text()), "provenance": {}, "format": deep}))
    assert [key_path(p) for p, _ in problems] == ["format"]


def test_a_registry_over_the_actor_cap_is_bad_input(original, tmp_path):
    from docgen.snapshot.load import MAX_ACTORS

    data = copy.deepcopy(original)
    first = data["registry"]["actors"][0]
    data["registry"]["actors"] = [{**first, "actor": f"{first['actor']}{i}"} for i in range(MAX_ACTORS + 1)]
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(data, indent=1), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_snapshot(snap)
    assert f"holds {MAX_ACTORS + 1} actors, over docgen's cap of {MAX_ACTORS}" in err.value.message
    data["registry"]["actors"] = data["registry"]["actors"][:MAX_ACTORS]
    snap.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert len(load_snapshot(snap).registry.entries) == MAX_ACTORS


def test_uv_required_version_may_be_absent_and_is_a_string_when_present(original, tmp_path):
    data = copy.deepcopy(original)
    data["project"].pop("uv_required_version", None)              # a snapshot written before the key
    target = tmp_path / "snap.json"
    target.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert load_snapshot(target).uv_required_version is None
    data["project"]["uv_required_version"] = ">=0.11"
    target.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert load_snapshot(target).uv_required_version == ">=0.11"
    for wrong in (None, 11, [">=0.11"]):
        data["project"]["uv_required_version"] = wrong
        target.write_text(json.dumps(data, indent=1), encoding="utf-8")
        with pytest.raises(InputError) as info:
            load_snapshot(target)
        assert "project.uv_required_version is" in info.value.message and "expected a string" in info.value.message


@needs_reference
def test_docgen_snapshot_records_uv_required_version_only_when_nemo_rl_states_it(tmp_path):
    import shutil

    from docgen.snapshot.build import build_snapshot, dump_snapshot

    checkout = tmp_path / "rl"
    checkout.mkdir()
    for name in ("pyproject.toml", "uv.lock", "registry.json"):
        shutil.copyfile(NEMO_RL_REF / name, checkout / name)
    plain = build_snapshot(checkout, checkout / "registry.json", repo="o/RL", ref="r")
    assert "uv_required_version" not in plain["project"]
    text = (checkout / "pyproject.toml").read_text()
    assert text.count("\n[tool.uv]\n") == 1
    (checkout / "pyproject.toml").write_text(text.replace("\n[tool.uv]\n", '\n[tool.uv]\nrequired-version = ">=0.9"\n'))
    stated = build_snapshot(checkout, checkout / "registry.json", repo="o/RL", ref="r")
    assert stated["project"]["uv_required_version"] == ">=0.9"
    # nothing else moves but the pyproject digest; the written form loads back with the field
    stated["provenance"]["inputs"]["pyproject.toml"] = plain["provenance"]["inputs"]["pyproject.toml"]
    stated["provenance"]["files"]["pyproject.toml"] = plain["provenance"]["files"]["pyproject.toml"]
    del stated["project"]["uv_required_version"]
    assert stated == plain
    stated["project"]["uv_required_version"] = ">=0.9"
    (tmp_path / "snap.json").write_text(dump_snapshot(stated))
    assert load_snapshot(tmp_path / "snap.json").uv_required_version == ">=0.9"


def test_line_of_names_the_first_line_of_each_string_escaped_quotes_and_backslashes_included():
    """`Snapshot.line_of` finds a string as the snapshot writes it between its quotes; a string with escaped
    quotes and backslashes is one string, not several, and the strings after it keep their lines."""
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    tricky = ['say "hi" \\ then', "C:\\tmp\\", '\\"', "tail"]
    data["provenance"]["note"] = tricky
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    snap = load_snapshot(SNAPSHOT, text=text)
    lines = text.splitlines()
    for value in [*tricky, "provenance", "note", *data["lock"]["packages"]]:
        written = json.dumps(value)[1:-1]
        expected = next(n for n, line in enumerate(lines, 1) if f'"{written}"' in line)
        assert snap.line_of(written) == expected, value
    assert snap.line_of("hi") is None and snap.line_of("say ") is None
