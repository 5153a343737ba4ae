"""The one reader on small files: exact bytes, the size cap (also for a file that grows after its stat),
regular files only, and the page reader's refusal of symlinks (also one put in place after its lstat)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from docgen.check import pipeline
from docgen.errors import InputError
from docgen.io import read_bytes
from docgen.project import find_project

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("data", [b"", b"a", b"line\r\nother\rlast", bytes(range(256)) * 600])  # the last: chunks
def test_read_bytes_returns_the_file_as_it_is(tmp_path, data):
    path = tmp_path / "f"
    path.write_bytes(data)
    assert read_bytes(path) == data
    assert read_bytes(path, lstat=os.lstat(path)) == data


def test_the_cap_counts_every_byte(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_bytes(path, limit=10) == b"x" * 10
    with pytest.raises(InputError, match="cannot read the page: 10 bytes, over docgen's cap of 9 bytes"):
        read_bytes(path, "the page", limit=9)


def test_a_file_that_grows_after_its_stat_is_over_the_cap(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    before = os.lstat(path)
    path.write_bytes(b"x" * 100_000)   # larger than one read of the size the stat saw, and than the cap
    with pytest.raises(InputError, match="over docgen's cap of 50000 bytes"):
        read_bytes(path, limit=50_000, lstat=before)
    assert read_bytes(path, limit=100_000, lstat=before) == b"x" * 100_000


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


def test_the_facts_record_is_not_read_through_a_symlink(tmp_path):
    root = scratch_project(tmp_path / "project")
    (root / "docs" / "page.md").write_text("text\n")
    (tmp_path / "facts.json").write_text("{}\n")
    (root / "docs" / ".docgen-facts.json").symlink_to(tmp_path / "facts.json")
    with pytest.raises(InputError) as err:
        prepare_page(root, "page.md")
    assert err.value.path == "docs/.docgen-facts.json"
    assert "the facts record docgen owns is a symlink" in err.value.message


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
