"""Every script under bench/ is named by a page, a test or the workflow, which says what its figure is for; a
script nothing names is not kept."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_bench_script_is_named_by_a_doc_a_test_or_the_workflow():
    readers = [REPO / "README.md", *(REPO / "docs").rglob("*.md"), *(REPO / ".github" / "workflows").glob("*.yml"),
               *(p for p in (REPO / "tests").rglob("*.py") if p != Path(__file__))]
    text = "\n".join(p.read_text(encoding="utf-8") for p in readers)
    scripts = sorted(p.name for p in (REPO / "bench").glob("*.py"))
    assert len(scripts) >= 10   # the folder was found
    assert [name for name in scripts if name not in text] == []
