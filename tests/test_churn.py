"""Three changes a maintainer makes, each in a copy of this repository with no Docker engine reachable:
a UV_VERSION bump, a CUDA architecture change and a snapshot change. Each ends with `docgen write` and then
`docgen check` at exit 0, every line `write` changes carries content or closes a block whose text changed
(none changed only for a stamp), and the size page says its figures were measured from the inputs before
the change. bench/churn.py makes the changes and counts the lines; this holds it to the figures."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.docgen_cli import docgen

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import churn  # noqa: E402

SIZE_PAGE = "docs/image/layering.md"


@pytest.fixture(autouse=True)
def no_engine(monkeypatch, tmp_path):
    # an engine address nothing listens on: whatever docgen did with Docker would fail here
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    # and no CI variable, as bench/churn.py runs docgen (the tests run it here, in this interpreter)
    monkeypatch.delenv("CI", raising=False)


@pytest.mark.parametrize("change, needle, moved", [
    ("uv", "0.11.", "Dockerfile"),
    ("cuda-arch", "12.0", "Dockerfile"),
    ("snapshot", "ray", "NeMo-RL snapshot"),
])
def test_a_change_ends_green_and_changes_only_lines_with_content(change, needle, moved, tmp_path):
    root = churn.copy_tree(REPO, tmp_path / "repo")
    record = json.loads((root / "docs/data/image-size.json").read_text())
    assert "**Not current:**" not in (root / SIZE_PAGE).read_text(), "the committed figures should be current"
    described = churn.CHANGES[change](root)
    before = churn.files(root)

    first = docgen("check", cwd=root)
    assert first.returncode == 1, described   # the docs are stale now: the check notices
    assert "[image-size-record]" not in first.stdout
    write = docgen("write", cwd=root)
    assert write.returncode == 0, write.stderr
    check = docgen("check", cwd=root)
    # a sentence naming a fact that moved (the architectures, for one) waits for a person: confirm each
    reviews = sorted(set(re.findall(r"^(\S+?:\d+): \[review\] ", check.stdout, re.M)))
    if reviews:
        assert set(re.findall(r"^\S+?: \[([\w-]+)\] ", check.stdout, re.M)) == {"review"}, check.stdout
        assert docgen("review", *reviews, cwd=root).returncode == 0
        check = docgen("check", cwd=root)
    assert check.returncode == 0, (described, check.stdout, check.stderr)
    assert docgen("write", cwd=root).stdout == "" and churn.files(root) != before

    lines = churn.changed_lines(before, churn.files(root))
    kinds = [kind for per_file in lines.values() for kind, _ in per_file]
    assert kinds.count("stamp") == 0, {p: v for p, v in lines.items() if any(k == "stamp" for k, _ in v)}
    assert kinds.count("content") > 0
    assert any(needle in line for per_file in lines.values() for kind, line in per_file if kind == "content")
    # the size page: the same figures, marked as measured from the inputs before the change
    size_page = (root / SIZE_PAGE).read_text()
    assert (f"**Not current:** these figures were measured on {record['measured_at']} at ") in size_page
    assert f", from an earlier {moved}; it has changed since" in size_page
    assert f"{record['size_bytes']:,} bytes" in size_page


def test_bench_reports_no_line_changed_only_for_a_stamp():
    result = churn.measure(REPO, "uv")
    assert result["check_exit"] == 0 and result["stamp_only"] == 0
    assert result["lines"] == result["content"] + result["markers"] and result["content"] > 0
