"""The one reader on small files: exact bytes, the size cap (also for a file that grows after its stat),
regular files only, and the page reader's refusal of symlinks (also one put in place after its lstat). The one
writer: each file whole after a write cut short, and only the files docgen owns."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from docgen.check import pipeline
from docgen.errors import InputError
from docgen.io import (MAX_INPUT_BYTES, MAX_LOCK_BYTES, STAGE_SUFFIX, Output, excerpt, read_bytes, read_input,
                       write_files)
from docgen.project import find_project

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("data", [b"", b"a", b"line\r\nother\rlast", bytes(range(256)) * 600])  # the last: chunks
def test_read_bytes_returns_the_file_as_it_is(tmp_path, data):
    path = tmp_path / "f"
    path.write_bytes(data)
    assert read_bytes(path) == data
    assert read_bytes(path, lstat=os.lstat(path)) == data


@pytest.mark.probe("malformed input")
def test_the_cap_counts_every_byte(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_bytes(path, limit=10) == b"x" * 10
    with pytest.raises(InputError, match="cannot read the page: 10 bytes, over docgen's cap of 9 bytes"):
        read_bytes(path, "the page", limit=9)


@pytest.mark.probe("malformed input")
def test_a_file_that_grows_after_its_stat_is_over_the_cap(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    before = os.lstat(path)
    path.write_bytes(b"x" * 100_000)   # larger than one read of the size the stat saw, and than the cap
    with pytest.raises(InputError, match="over docgen's cap of 50000 bytes"):
        read_bytes(path, limit=50_000, lstat=before)
    assert read_bytes(path, limit=100_000, lstat=before) == b"x" * 100_000


@pytest.mark.probe("symlinks and special files")
@pytest.mark.parametrize("kind", ["fifo", "directory", "missing"])
def test_only_regular_files_are_read(tmp_path, kind):
    path = tmp_path / "odd"
    if kind == "fifo":
        os.mkfifo(path)   # opening it would wait for a writer
    elif kind == "directory":
        path.mkdir()
    message = {"fifo": "not a regular file", "directory": "a directory", "missing": "No such file"}[kind]
    with pytest.raises(InputError, match=f"cannot read the page: {message}"):
        read_bytes(path, "the page")
    if kind != "missing":
        with pytest.raises(InputError, match=f"cannot read the page: {message}"):
            read_bytes(path, "the page", lstat=os.lstat(path))


@pytest.mark.probe("symlinks and special files")
def test_a_symlink_put_in_place_after_the_lstat_is_not_followed(tmp_path):
    path, target = tmp_path / "page.md", tmp_path / "elsewhere.md"
    path.write_text("mine\n")
    target.write_text("not mine\n")
    before = os.lstat(path)
    path.unlink()
    path.symlink_to(target)
    with pytest.raises(InputError, match="cannot read"):
        read_bytes(path, lstat=before)
    assert read_bytes(path) == b"not mine\n"   # without an lstat, the reader follows links as before


def scratch_project(root: Path) -> Path:
    """A project of this repository's Dockerfile and snapshot whose pages are docs/*.md and need no generator."""
    (root / "snapshot").mkdir(parents=True)
    (root / "docs").mkdir()
    shutil.copy(REPO / "Dockerfile.nmp-rl-base", root / "Dockerfile.nmp-rl-base")
    shutil.copy(REPO / "snapshot" / "nemo-rl.json", root / "snapshot" / "nemo-rl.json")
    (root / "docgen.toml").write_text('pages = ["docs/*.md"]\nrequired = []\n')
    return root


def prepare_page(root: Path, name: str):
    return pipeline.prepare(find_project(root=root), [root / "docs" / name])


@pytest.mark.probe("symlinks and special files")
@pytest.mark.parametrize("dangling", [False, True])
def test_the_page_reader_refuses_symlinks(tmp_path, dangling):
    root = scratch_project(tmp_path / "project")
    target = tmp_path / "target.md"
    if not dangling:
        target.write_text("text\n")
    (root / "docs" / "link.md").symlink_to(target)
    with pytest.raises(InputError) as err:
        prepare_page(root, "link.md")
    assert err.value.path == "docs/link.md"
    assert "a page docgen owns is a symlink" in err.value.message


@pytest.mark.probe("symlinks and special files")
def test_the_facts_record_is_not_read_through_a_symlink(tmp_path):
    root = scratch_project(tmp_path / "project")
    (root / "docs" / "page.md").write_text("text\n")
    (tmp_path / "facts.json").write_text("{}\n")
    (root / "docs" / ".docgen-facts.json").symlink_to(tmp_path / "facts.json")
    with pytest.raises(InputError) as err:
        prepare_page(root, "page.md")
    assert err.value.path == "docs/.docgen-facts.json"
    assert "the facts record docgen owns is a symlink" in err.value.message


@pytest.mark.probe("malformed input")
def test_the_page_reader_keeps_line_endings_and_names_a_bad_byte_s_line(tmp_path):
    root = scratch_project(tmp_path / "project")
    page = root / "docs" / "page.md"
    page.write_bytes(b"one\r\ntwo\n")
    (read,) = prepare_page(root, "page.md").pages
    assert (read.raw, read.doc.text, read.new_text) == (b"one\r\ntwo\n", "one\r\ntwo\n", "one\r\ntwo\n")
    page.write_bytes(b"one\r\ntwo \xff\n")
    with pytest.raises(InputError) as err:
        prepare_page(root, "page.md")
    assert (err.value.path, err.value.line) == ("docs/page.md", 2)
    assert "not UTF-8 (byte 0xff)" in err.value.message
    with pytest.raises(InputError, match="No such file"):
        prepare_page(root, "gone.md")


# ------------------------------------------------------------------------------- a write cut short

def _pages(root: Path, n: int = 5) -> list[Path]:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    pages = [root / "docs" / f"p{i}.md" for i in range(n)]
    for page in pages:
        page.write_text(f"old {page.name}\n")
    return pages


def _die_after(renames: int, root: Path, pages: list[Path]) -> int:
    """Fork a writer of every page that is killed (os._exit, no clean-up) after `renames` of its renames;
    returns its exit status."""
    pid = os.fork()
    if pid == 0:   # the child: never returns into pytest
        real = os.replace
        done = [0]

        def replace(src, dst):
            if done[0] == renames:
                os._exit(9)
            done[0] += 1
            real(src, dst)

        os.replace = replace
        try:
            write_files(root, [Output(p, f"new {p.name}\n") for p in pages])
        finally:
            os._exit(0)
    return os.waitpid(pid, 0)[1]


def _left(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*" + STAGE_SUFFIX))


@pytest.mark.probe("interrupted writes")
@pytest.mark.parametrize("renames", [0, 1, 3, 4])
def test_a_write_killed_between_renames_leaves_each_file_whole_and_the_next_write_finishes(tmp_path, renames):
    root = tmp_path / "r"
    pages = _pages(root)
    _die_after(renames, root, pages)
    assert [p.read_text() for p in pages] == ([f"new {p.name}\n" for p in pages[:renames]]
                                              + [f"old {p.name}\n" for p in pages[renames:]])
    assert len(_left(root)) == 5 - renames   # the temporary files of the pages not yet replaced
    write_files(root, [Output(p, f"new {p.name}\n") for p in pages])
    assert [p.read_text() for p in pages] == [f"new {p.name}\n" for p in pages]
    assert _left(root) == []


# Killed after one rename, a writer of two pages leaves the second page's temporary file; git ignores it.
@pytest.mark.probe("interrupted writes")
def test_temporary_files_are_ignored_by_git(tmp_path):
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    root = tmp_path / "r"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    shutil.copy(REPO / ".gitignore", root / ".gitignore")
    pages = _pages(root, 2)
    _die_after(1, root, pages)
    left = _left(root)
    assert len(left) == 1, left
    ignored = subprocess.run(["git", "-C", str(root), "check-ignore", *left], capture_output=True, text=True)
    assert sorted(ignored.stdout.split()) == left, ignored
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert STAGE_SUFFIX not in status and "p0.md" in status, status


# ------------------------------------------------------------------------------- what the writer owns

@pytest.mark.probe("writes outside what docgen owns")
@pytest.mark.parametrize("path, kind, message", [
    (".git/hooks/pre-commit", "page", "inside .git"),
    ("sub/.GIT/config.json", "facts", "inside .git"),
    ("notes.txt", "page", "not named *.md"),
    ("facts.toml", "facts", "not named *.json"),
    ("snap", "snapshot", "not named *.json"),
    ("../outside.md", "page", "outside the repository root"),
])
def test_the_writer_refuses_files_it_does_not_own(tmp_path, path, kind, message):
    root = tmp_path / "r"
    (root / ".git/hooks").mkdir(parents=True)
    with pytest.raises(InputError, match=re.escape(message)):
        write_files(root, [Output(root / path, "x\n", kind=kind)])
    assert not (root / path).exists()


@pytest.mark.probe("writes outside what docgen owns")
@pytest.mark.parametrize("kind", ["facts", "snapshot", "image-size"])
def test_a_record_is_written_only_over_a_record_of_its_kind(tmp_path, kind):
    root = tmp_path / "r"
    root.mkdir()
    target = root / "record.json"
    target.write_text('{"format": 1}\n')
    with pytest.raises(InputError, match="refusing to overwrite it"):
        write_files(root, [Output(target, "{}\n", kind=kind)])
    assert target.read_text() == '{"format": 1}\n'
    keys = {"facts": ["format", "filters"], "snapshot": ["format", "lock", "registry"],
            "image-size": ["image_id", "layers"]}[kind]
    target.write_text(json.dumps(dict.fromkeys(keys, 1)))
    write_files(root, [Output(target, "{}\n", kind=kind)])
    assert target.read_text() == "{}\n"
    # a file there that is not JSON at all: the facts record, derived whole from the inputs, is written anew;
    # a snapshot or image-size record is never guessed to be docgen's
    target.write_text('<<<<<<< HEAD\n{"format": 1}\n')
    if kind == "facts":
        write_files(root, [Output(target, "{}\n", kind=kind)])
        assert target.read_text() == "{}\n"
    else:
        with pytest.raises(InputError, match="refusing to overwrite it"):
            write_files(root, [Output(target, "{}\n", kind=kind)])


@pytest.mark.probe("symlinks and special files")
def test_the_console_updater_refuses_a_symlinked_docs_folder(tmp_path):
    from docgen.console.evaluator import update_block

    root = scratch_project(tmp_path / "project")
    shutil.rmtree(root / "docs")
    real = tmp_path / "elsewhere"
    real.mkdir()
    text = "# P\n\n```console\n$ echo hi\nold\n```\n"
    (real / "page.md").write_text(text)
    (root / "docs").symlink_to(real)
    start = text.index("$ echo")
    document = SimpleNamespace(namespace={}, text=text, path=str(root / "docs" / "page.md"))
    block = SimpleNamespace(body_start=start, body_end=text.index("```\n", start), line=3)
    with pytest.raises(InputError, match="refusing to write through a symlink"):
        update_block(document, block, [])
    assert (real / "page.md").read_text() == text


# ------------------------------------------------------------------------------- the readers

@pytest.mark.probe("malformed input")
def test_the_lock_reader_s_cap_is_the_stated_one(tmp_path):
    from docgen.snapshot.lockfile import read_lock

    lock = tmp_path / "uv.lock"
    with open(lock, "wb") as fh:
        fh.truncate(MAX_LOCK_BYTES + 1)
    with pytest.raises(InputError, match=f"over docgen's cap of {MAX_LOCK_BYTES} bytes"):
        read_lock(lock, root="x")
    assert MAX_LOCK_BYTES == 64 * 2**20
    lock.write_text("version = 1\n# " + "x" * (MAX_INPUT_BYTES + 10) + "\n")   # over the general cap only
    try:
        read_lock(lock, root="x")
    except InputError as exc:
        assert "cap" not in exc.message, exc


@pytest.mark.probe("malformed input")
def test_nul_bytes_are_not_text_and_are_never_quoted(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"FROM x\nSECRET=hunter2\0OTHER=1\0")
    with pytest.raises(InputError) as err:
        read_input(path, "the Dockerfile")
    assert err.value.line == 2 and "hunter2" not in str(err.value)


@pytest.mark.probe("escaping and markers")
def test_excerpt_is_short_and_escaped():
    assert excerpt("a\x1b[2Jb" + "x" * 100) == repr("a\x1b[2Jb" + "x" * 34) + "..."
    assert excerpt(b"\xff\x00") == repr("\ufffd\x00")
