"""The hostile-input corpus (issue 28): every payload in every string field of the snapshot, the Dockerfile's
comments and the configuration's paths. A name, a version, a path or a URL that is not one is bad input where it
enters (exit 2, the key path named, no traceback, nothing written); free text (a requirement, a marker) is let
in and reaches a page, a diagram, a console block or a log only through the escaper of that context.

`python -m pytest tests/test_hostile_corpus.py -q -s` prints the corpus size by field and by payload."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path

import markdown
import pytest

from docgen.errors import InputError, escape_controls
from docgen.render.markdown import Label, Markdown, ShellWord, label, literal, shell, text
from docgen.render.site import left_out_note, nav_title, page_stems
from docgen.snapshot.load import key_path, load_snapshot
from tests.docgen_cli import docgen
from tests.test_cli import REGISTRY as REGISTRY_FACTS
from tests.test_cli import snapshot_case
from tests.test_hostile_inputs import files_of, small_project
from tests.unit.blocks_fixtures import snapshot_data

ROOT = Path(__file__).resolve().parent.parent

PAYLOADS = {
    "html": "<img src=x onerror=alert(1)>",
    "script": "<script>window.__pwned=1</script>",
    "md-link": "[x](javascript:alert(1))",
    "md-image": "![i](https://outside.invalid/i.png)",
    "attr-list": '{: onerror="alert(1)"}',
    "mermaid-directive": '%%{init: {"theme": "base", "themeCSS": "x"}}%%',
    "dotdot": "../../../../tmp/escaped",
    "newline": "a\n$ touch /tmp/pwned",
    "nul": "a\x00b",
    "control": "\x1b[2J\x07",
    "bidi": "a\u202eb",
    "workflow-command": "x\n::error::injected",
    "huge": "x" * 100_000,
}


def _full_snapshot() -> dict:
    """The small test snapshot with one realistic item in every list, so every field of the format is there."""
    data = snapshot_data()
    data["provenance"].update(repo="NVIDIA-NeMo/RL", ref="main", commit="0" * 40, docgen_version="0.1.0",
                              platform="linux x86_64, CPython 3.13",
                              inputs={"uv.lock": "sha256:" + "0" * 64})
    project = data["project"]
    project["extras"]["vllm"] = ["vllm==0.25.1"]
    project["requires_python"] = ">=3.13,<3.14"
    project["uv_required_version"] = ">=0.9"
    project["conflicts"] = [[{"package": "nemo-rl", "extra": "vllm"}, {"package": None, "extra": "sglang"}]]
    project["default_groups"] = ["dev"]
    project["groups"] = ["dev"]
    project["overrides"] = ["torch==2.11.0"]
    project["sources"] = [{"name": "nemo-run", "kind": "git", "detail": "https://example.invalid/run@1", "marker": None},
                          {"name": "megatron-core", "kind": "editable", "detail": "3rdparty/Megatron-LM",
                           "marker": "sys_platform == 'linux'"}]
    project["workspace_members"] = ["3rdparty/Gym-workspace/Gym"]
    data["registry"]["executables"]["VLLM"] = "uv run --locked --extra vllm --directory {git_root}"
    return data


BASE = _full_snapshot()
FIRST_ACTOR = ("registry", "actors", 0)


def _rename_key(mapping: dict, old: str, new: str) -> None:
    items = [(new if k == old else k, v) for k, v in mapping.items()]
    mapping.clear()
    mapping.update(items)


# field -> (what it holds, how to put a payload there: returns the key path a refusal names)
def _set(path: tuple, prefix: str = ""):
    def put(data: dict, payload: str) -> tuple:
        node = data
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = prefix + payload
        return path
    return put


def _key(path: tuple, old: str, prefix: str = ""):
    def put(data: dict, payload: str) -> tuple:
        node = data
        for part in path:
            node = node[part]
        _rename_key(node, old, prefix + payload)
        return (*path, prefix + payload)
    return put


def _package_key(data: dict, payload: str) -> tuple:
    key = "tiny-dep==1.0" + payload
    _rename_key(data["lock"]["packages"], "tiny-dep==1.0", key)
    data["lock"]["install_sets"]["mcore"] = [key if k == "tiny-dep==1.0" else k for k in data["lock"]["install_sets"]["mcore"]]
    return ("lock", "packages", key)


IDENTITY, FREE = "identity", "free text"
FIELDS = {
    "provenance.repo": (IDENTITY, _set(("provenance", "repo"), "NVIDIA/RL")),
    "provenance.ref": (IDENTITY, _set(("provenance", "ref"), "main")),
    "provenance.commit": (IDENTITY, _set(("provenance", "commit"), "0" * 40)),
    "provenance.docgen_version": (IDENTITY, _set(("provenance", "docgen_version"), "0.1.0")),
    "provenance.platform": (IDENTITY, _set(("provenance", "platform"), "linux")),
    "provenance.inputs key": (IDENTITY, _key(("provenance", "inputs"), "uv.lock", "uv.lock")),
    "provenance (a key of its own)": (FREE, _set(("provenance", "note"))),
    "project.name": (IDENTITY, _set(("project", "name"), "nemo-rl")),
    "project.extras key": (IDENTITY, _key(("project", "extras"), "sglang", "sglang")),
    "project.extras requirement": (FREE, _set(("project", "extras", "vllm", 0), "vllm==0.25.1 ; ")),
    "project.conflicts package": (IDENTITY, _set(("project", "conflicts", 0, 0, "package"), "nemo-rl")),
    "project.conflicts extra": (IDENTITY, _set(("project", "conflicts", 0, 0, "extra"), "vllm")),
    "project.default_groups": (IDENTITY, _set(("project", "default_groups", 0), "dev")),
    "project.groups": (IDENTITY, _set(("project", "groups", 0), "dev")),
    "project.overrides": (FREE, _set(("project", "overrides", 0), "torch==2.11.0 ; ")),
    "project.sources name": (IDENTITY, _set(("project", "sources", 0, "name"), "nemo-run")),
    "project.sources kind": (IDENTITY, _set(("project", "sources", 0, "kind"), "git")),
    "project.sources detail (URL)": (IDENTITY, _set(("project", "sources", 0, "detail"), "https://example.invalid/")),
    "project.sources detail (path)": (IDENTITY, _set(("project", "sources", 1, "detail"), "3rdparty/")),
    "project.sources marker": (FREE, _set(("project", "sources", 1, "marker"), "sys_platform == ")),
    "project.workspace_members": (IDENTITY, _set(("project", "workspace_members", 0), "3rdparty/")),
    "project.requires_python": (IDENTITY, _set(("project", "requires_python"), ">=3.13")),
    "project.uv_required_version": (IDENTITY, _set(("project", "uv_required_version"), ">=0.9")),
    "registry.executables key": (IDENTITY, _key(("registry", "executables"), "VLLM", "VLLM")),
    "registry.executables command": (IDENTITY, _set(("registry", "executables", "VLLM"), "uv run ")),
    "registry.actors actor": (IDENTITY, _set((*FIRST_ACTOR, "actor"), "rl.models.X")),
    "registry.actors member": (IDENTITY, _set((*FIRST_ACTOR, "member"), "VLLM")),
    "registry.actors command": (IDENTITY, _set((*FIRST_ACTOR, "command"), "uv run ")),
    "registry.actors command_system": (IDENTITY, _set((*FIRST_ACTOR, "command_system"), "uv run ")),
    "registry.actors source": (IDENTITY, _set((*FIRST_ACTOR, "source"), "upstream")),
    "lock.packages key": (IDENTITY, _package_key),
    "lock.packages name": (IDENTITY, _set(("lock", "packages", "tiny-dep==1.0", "name"), "tiny-dep")),
    "lock.packages version": (IDENTITY, _set(("lock", "packages", "tiny-dep==1.0", "version"), "1.0")),
    "lock.packages source_kind": (IDENTITY, _set(("lock", "packages", "tiny-dep==1.0", "source_kind"), "registry")),
    "lock.packages source": (IDENTITY, _set(("lock", "packages", "tiny-dep==1.0", "source"), "registry+https://x.invalid/")),
    "lock.install_sets key": (IDENTITY, _key(("lock", "install_sets"), "sglang", "sglang")),
    "lock.install_sets member": (IDENTITY, _set(("lock", "install_sets", "mcore", 2), "tiny-dep==1.0")),
    "lock.shared_builds package": (IDENTITY, _set(("lock", "shared_builds", 0, "package"), "transformer-engine")),
    "lock.shared_builds extras": (IDENTITY, _set(("lock", "shared_builds", 0, "extras", 0), "automodel")),
}
# free text holding nothing but printable characters is let in (it is escaped where it lands); a control
# character or a string over the cap is refused in any field
LET_IN = {"html", "script", "md-link", "md-image", "attr-list", "mermaid-directive", "dotdot"}
# `../` is only characters where a field is neither a name nor a path: a URL, a command, a label, a package key
DOTDOT_IS_TEXT = {"project.sources detail (URL)", "lock.packages source", "registry.executables command",
                  "registry.actors command", "registry.actors command_system", "registry.actors source",
                  "lock.packages key"}
CASES = [(field, payload) for field in FIELDS for payload in PAYLOADS]


def _load(data: dict, tmp_path: Path):
    text = json.dumps(data, indent=1)
    return load_snapshot(tmp_path / "snap.json", text=text, data=json.loads(text))


def _string_fields(data: object, path: tuple = ()) -> set[tuple]:
    """Every place a string sits in a snapshot, list indexes and map keys as `*`."""
    if isinstance(data, dict):
        out = {(*path, "*key")} if path and path[-1] == "*" else set()
        for key, value in data.items():
            out |= _string_fields(value, (*path, key if path[-1:] not in (("extras",), ("packages",), ("install_sets",),
                                                                         ("executables",), ("inputs",)) else "*"))
        return out
    if isinstance(data, list):
        return set().union(*(_string_fields(v, (*path, "*")) for v in data)) if data else set()
    return {path} if isinstance(data, str) else set()


def test_the_corpus_base_loads_and_every_string_field_of_the_format_is_in_the_corpus(tmp_path):
    _load(BASE, tmp_path)
    # each field of the format holding a string (or a map keyed by strings) has a line in FIELDS
    fields = {p for p in _string_fields(BASE) if p[0] != "format"}
    assert len(fields) <= len(FIELDS), sorted(fields)
    assert len(CASES) == len(FIELDS) * len(PAYLOADS) >= 500


@pytest.mark.probe("malformed input")
@pytest.mark.parametrize("field", sorted(FIELDS))
def test_every_payload_in_every_snapshot_field_is_refused_or_let_in_as_free_text(field, tmp_path):
    kind, put = FIELDS[field]
    for name, payload in PAYLOADS.items():
        data = copy.deepcopy(BASE)
        where = put(data, payload)
        try:
            _load(data, tmp_path)
        except InputError as exc:
            assert exc.line is not None and exc.line >= 1, (field, name)
            assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", str(exc)), (field, name, str(exc))
            if kind == IDENTITY or name not in LET_IN:
                shown = key_path(where)
                named = shown in exc.message or escape_controls(shown) in exc.message
                # a renamed set member is refused by the reference check, which names the package instead
                # a renamed package key is in an install set too: either place may be named first
                named = named or (field == "lock.packages key" and "lock.install_sets" in exc.message)
                assert named or "which lock.packages lacks" in exc.message, (field, name, exc.message)
            continue
        assert (kind == FREE and name in LET_IN) or (name == "dotdot" and field in DOTDOT_IS_TEXT), \
            f"{field} let {name} in"


def test_a_hostile_actor_from_docgen_snapshot_is_exit_2_naming_the_key_path_and_writes_nothing(tmp_path):
    registry = json.loads(json.dumps(REGISTRY_FACTS))
    registry["registry"][0]["actor"] = "nemo_rl.x.Y" + PAYLOADS["html"]
    args, output = snapshot_case(registry=registry)(tmp_path)
    before = files_of(tmp_path)
    run = docgen(*args, cwd=tmp_path)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    assert "registry.actors[0].actor" in run.stderr and "not a dotted Python name" in run.stderr, run.stderr
    assert not output.exists() and files_of(tmp_path) == before


@pytest.mark.probe("malformed input")
@pytest.mark.parametrize("payload", ["newline", "nul", "control", "html", "dotdot"])
def test_a_hostile_snapshot_is_exit_2_with_the_key_path_and_no_traceback(payload, tmp_path):
    root = small_project(tmp_path / "p")
    snapshot = root / "snapshot/nemo-rl.json"
    data = json.loads(snapshot.read_text())
    data["registry"]["actors"][3]["actor"] += PAYLOADS[payload]
    snapshot.write_text(json.dumps(data, indent=1))
    before = files_of(root)
    for command in ("check", "write"):
        run = docgen(command, cwd=root)
        assert run.returncode == 2, (command, run.stdout, run.stderr)
        assert "Traceback" not in run.stderr
        assert "malformed snapshot: registry.actors[3].actor" in run.stderr, run.stderr
        assert "\x00" not in run.stderr and "\x1b" not in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr   # a newline in the input adds no line
    assert files_of(root) == before


# ------------------------------------------------------------------------------ configuration paths

CONFIG_PAYLOADS = {"nul": "snap\x00shot.json", "newline": "snap\nshot.json", "control": "snap\x1b[2Jshot.json",
                   "bidi": "snap\u202eshot.json", "dotdot": "../outside.json", "absolute": "/etc/passwd"}


@pytest.mark.probe("malformed input")
@pytest.mark.parametrize("key", ["snapshot", "dockerfile", "facts", "image-size", "pages"])
@pytest.mark.parametrize("payload", sorted(CONFIG_PAYLOADS))
def test_a_hostile_path_in_the_configuration_is_exit_2_naming_its_line(key, payload, tmp_path):
    value = json.dumps(CONFIG_PAYLOADS[payload])   # a TOML basic string: JSON's escapes are TOML's
    value = f"[{value}]" if key == "pages" else value
    root = small_project(tmp_path / "p")
    (root / "docgen.toml").write_text(f'required = []\n{key} = {value}\n')
    before = files_of(root)
    run = docgen("check", cwd=root)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    assert f"docgen: error: {root / 'docgen.toml'}:2: {key}: " in run.stderr, run.stderr
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f\u202e]", run.stderr), run.stderr
    assert files_of(root) == before


@pytest.mark.probe("malformed input")
def test_a_nul_in_a_tool_docgen_path_of_pyproject_is_exit_2_naming_its_line(tmp_path):
    root = small_project(tmp_path / "p")
    (root / "docgen.toml").unlink()
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.docgen]\npages = ["page.md"]\n'
                                         'snapshot = "snapshot/nemo\\u0000rl.json"\n')
    run = docgen("check", cwd=root)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith(f"docgen: error: {root / 'pyproject.toml'}:6: snapshot: 'snapshot/nemo\\x00rl.json' "
                                 "holds a control character"), run.stderr


# ---------------------------------------------------------------- Dockerfile comments on a rendered page

MD = markdown.Markdown(extensions=["attr_list", "def_list", "tables", "admonition", "toc"])


def _html(page: str) -> str:
    MD.reset()
    return MD.convert(page)


def _no_live_markup(html: str) -> None:
    """No element the payloads aim at, no event handler attribute, no link or image the text made."""
    assert not re.search(r"<(img|script|iframe|svg|a|em|strong|del)\b", html), html
    assert not re.search(r"<[^>]*\son[a-z]+=", html), html


PAGE = "# Options\n\n<!-- docgen:begin build-options -->\n<!-- docgen:end build-options -->\n"


@pytest.mark.probe("escaping and markers")
def test_every_payload_in_a_dockerfile_comment_renders_as_inert_text(tmp_path):
    root = small_project(tmp_path / "p")
    (root / "page.md").write_text(PAGE)
    dockerfile = root / "Dockerfile.nmp-rl-base"
    anchor = "ARG UV_VERSION="
    text_ = dockerfile.read_text()
    assert anchor in text_
    printable = {k: v for k, v in PAYLOADS.items() if k in LET_IN}
    comment = "".join(f"# {name}: {payload} *em* _em_ ~~s~~\n" for name, payload in printable.items())
    dockerfile.write_text(text_.replace(anchor, comment + anchor, 1))
    run = docgen("write", cwd=root)
    assert run.returncode == 0, run.stderr
    page = (root / "page.md").read_text()
    for payload in printable.values():
        assert payload not in page or payload == PAYLOADS["dotdot"], payload
    html = _html(page)
    _no_live_markup(html)
    assert "onerror=alert(1)" in html.replace("&lt;", "<")   # shown, as text
    assert docgen("check", cwd=root).returncode == 0


# ------------------------------------------------------------------------------------- the escapers

@pytest.mark.probe("escaping and markers")
@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_each_escaper_neutralises_each_payload(name):
    payload = PAYLOADS[name]
    for escaped in (text(payload), literal(payload)):
        assert isinstance(escaped, Markdown)
        assert "\n" not in text(payload)
        if name != "huge":
            _no_live_markup(_html(f"| a |\n|---|\n| {escaped} |\n\n{escaped}\n"))
    mermaid = label(payload)
    assert isinstance(mermaid, Label)
    assert "%%" not in mermaid and "{" not in mermaid and "\n" not in mermaid and '"' not in mermaid
    word = shell(payload)
    assert isinstance(word, ShellWord) and "\n" not in word and "\x00" not in word
    for line in (escape_controls(payload), escape_controls("x" + payload, lines=True)):
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f\u202e]", line)
    assert "\n" not in escape_controls(payload)


def test_a_shell_word_holding_a_line_break_is_one_word_to_bash(tmp_path):
    import subprocess
    word = shell(PAYLOADS["newline"])
    out = subprocess.run(["bash", "-c", f"printf '%s|' {word}"], capture_output=True, text=True, check=True,
                         cwd=tmp_path)
    assert out.stdout == PAYLOADS["newline"] + "|"
    assert not (tmp_path / "pwned").exists()


def test_escaping_twice_is_escaping_once():
    for payload in PAYLOADS.values():
        assert text(text(payload)) == text(payload)
        assert label(label(payload)) == label(payload)
        assert shell(shell(payload)) == shell(payload)


# ------------------------------------------------------------------------------------ site page names

def test_a_page_stem_comes_from_a_safe_name_and_a_bad_one_is_left_out_with_a_note():
    names = {"a.B": "B", "x.Up": "../../Up", "x.Html": "<img src=x onerror=alert(1)>", "x.Nl": "N\nl",
             "x.Index": "index", "c.b": "b", "d.C": "C"}
    stems, left_out = page_stems(names, "reference/venvs")
    assert stems == {"a.B": "B", "d.C": "C"}
    assert left_out == ["x.Up", "x.Html", "x.Nl", "x.Index", "c.b"]   # `b` takes `B`'s file on a case-blind disk
    note = left_out_note(left_out)
    assert "5 venvs without a page" in note and "<img" not in _html(note)
    assert nav_title("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"


# ------------------------------------------------------------------------------------------ the figures

def test_corpus_figures(capsys):
    """The corpus size by field and by payload (printed with -s)."""
    by_field = Counter(field for field, _ in CASES)
    by_payload = Counter(payload for _, payload in CASES)
    by_payload_config = Counter(p for p in CONFIG_PAYLOADS for _ in range(5))
    with capsys.disabled():
        print(f"\nhostile corpus: {len(CASES)} snapshot cases ({len(FIELDS)} fields x {len(PAYLOADS)} payloads), "
              f"{sum(by_payload_config.values())} configuration cases ({len(CONFIG_PAYLOADS)} payloads x 5 keys), "
              f"{len([p for p in PAYLOADS if p in LET_IN])} payloads in one Dockerfile comment")
        print("by payload:", dict(sorted(by_payload.items())))
    assert all(n == len(PAYLOADS) for n in by_field.values())


# ------------------------------------------------------------------------------------------ logs

INJECTED = ("::error title=injected::from a page", "  ::set-output name=x::y", "::add-mask::secret")
HAND_EDITED = ("# Page\n\n<!-- docgen:begin quick-inventory -->\n" + "\n".join(INJECTED)
               + "\n\x1b[2Jcleared\n<!-- docgen:end quick-inventory body=00000000 -->\n")


@pytest.mark.probe("escaping and markers")
def test_a_page_quoting_workflow_commands_cannot_inject_them_into_the_github_log(tmp_path):
    root = small_project(tmp_path / "p")
    (root / "page.md").write_text(HAND_EDITED)
    run = docgen("check", "--format", "github", "--diff", cwd=root)
    assert run.returncode == 1, (run.stdout, run.stderr)
    lines = run.stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("::stop-commands::")]
    assert len(starts) == 1, run.stdout
    token = lines[starts[0]].split("::")[2]
    assert len(token) == 32 and token not in HAND_EDITED
    end = lines.index(f"::{token}::")
    # outside the fence, every command is docgen's own annotation; the page's lines are all inside it
    for i, line in enumerate(lines):
        if line.lstrip().startswith("::") and not starts[0] <= i <= end:
            assert line.startswith("::error file=") or line.startswith("::error title="), line
    quoted = [i for i, line in enumerate(lines) if "from a page" in line or "name=x::y" in line]
    assert quoted and all(starts[0] < i < end for i in quoted), run.stdout
    assert "\x1b" not in run.stdout + run.stderr and "\\x1b[2Jcleared" in run.stdout
    again = docgen("check", "--format", "github", "--diff", cwd=root)
    assert again.stdout == run.stdout   # the token is the log's digest: the same log, the same output


@pytest.mark.probe("escaping and markers")
def test_an_input_error_is_one_line_whatever_the_input_holds():
    err = InputError("a\nb.json", 3, "value 'x\n::error::y\x1b[2J' is wrong")
    assert str(err) == "a\\nb.json:3: value 'x\\n::error::y\\x1b[2J' is wrong"


@pytest.mark.probe("malformed input")
@pytest.mark.parametrize("option,payload", [("--repo", "html"), ("--repo", "dotdot"), ("--ref", "md-link"),
                                            ("--ref", "dotdot"), ("--ref", "newline")])
def test_a_hostile_repository_or_ref_is_refused_before_the_snapshot_is_written(option, payload, tmp_path):
    """What `docgen snapshot` is told or reads from git (a remote URL, a tag) is untrusted text too."""
    args, output = snapshot_case()(tmp_path)
    run = docgen(*args, option, "main" + PAYLOADS[payload], cwd=tmp_path)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and "\n" not in run.stderr.strip()
    # refused by the identity rules, or before them by the checkout's own verification of a --ref
    assert (f"provenance.{option[2:]} " in run.stderr and "not a snapshot docgen writes" in run.stderr) or \
        f"{option} " in run.stderr, run.stderr
    assert not output.exists()


# ------------------------------------------------------------------------------------ diagrams

@pytest.mark.probe("escaping and markers")
def test_a_mermaid_directive_in_a_dockerfile_path_reaches_the_diagram_as_entities(tmp_path):
    """A COPY path is drawn on the image graph's arrow: `%%{init}%%` there would restyle the diagram (CSS,
    outside URLs); as entities it is text."""
    root = small_project(tmp_path / "p")
    (root / "page.md").write_text("# Graph\n\n<!-- docgen:begin image-graph -->\n<!-- docgen:end image-graph -->\n")
    dockerfile = root / "Dockerfile.nmp-rl-base"
    old = "COPY --from=uv /uv /uvx /usr/local/bin/"
    text_ = dockerfile.read_text()
    assert old in text_
    directive = '/%%{init:{"themeCSS":"x{background:url(https://outside.invalid/c.png)}"}}%%'
    dockerfile.write_text(text_.replace(old, f"COPY --from=uv /uv /uvx {directive} /usr/local/bin/", 1))
    run = docgen("write", cwd=root)
    assert run.returncode == 0, run.stderr
    page = (root / "page.md").read_text()
    graph = page[page.index("```mermaid"):page.index("```\n", page.index("```mermaid") + 3)]
    assert "%%" not in graph and "{" not in graph, graph
    assert "#37;#37;#123;init:#123;" in graph
