"""The reporters on literal items: annotation escaping, the cap and its last annotation, summary layout."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from docgen.check.report import Item, annotation, workflow_annotations, summary_markdown


def items(n: int, path: str = "docs/a.md") -> list[Item]:
    return [Item(path, i + 1, "stale block", f"block `b{i}` is stale", "drift") for i in range(n)]


def test_annotation_escapes_properties_and_data():
    line = annotation(Item("docs/a,b.md", 3, "count-statement", "50% of it:\nsecond line", "finding"))
    assert line == "::error file=docs/a%2Cb.md,line=3,title=docgen%3A count-statement::50%25 of it:%0Asecond line\n"
    assert annotation(Item("README.md", None, "stale value", "v", "drift")).endswith("::v. Run `docgen write`.\n")


def test_no_cap_needed_prints_every_annotation():
    assert len(workflow_annotations(items(10), 10)) == 10


def test_cap_keeps_the_first_and_names_the_rest_by_file():
    lines = workflow_annotations(items(9) + items(3, "README.md") + items(1, "docs/b.md"), 10)
    assert len(lines) == 10 and all(ln.startswith("::error file=docs/a.md") for ln in lines[:9])
    assert lines[-1] == ("::error title=docgen%3A 4 more::4 more not annotated (GitHub shows 10 per step): "
                         "3 in README.md, 1 in docs/b.md. All of them are in this step's log and in the job summary.\n")
    assert len(workflow_annotations(items(5), 1)) == 1 and "5 more" in workflow_annotations(items(5), 1)[0]


def fake_run(facts_changed: bool):
    project = SimpleNamespace(root=Path("/r"), how="found docgen.toml", config_file=None, facts=Path("/r/f.json"),
                              display=lambda p: Path(p).name)
    return SimpleNamespace(project=project, pages=[1, 2], recorded_facts_raw=b"same",
                           recorded_facts={"counts": {"venvs": 9 if facts_changed else 8}},
                           recorded_facts_unreadable=None,
                           facts_text="same" if not facts_changed else "new", facts={"counts": {"venvs": 8}})


def test_summary_orders_facts_findings_stale_docs_and_folds_the_diff():
    run = fake_run(True)
    found = [Item("f.json", None, "facts changed", "venvs 9 -> 8", "facts"),
             Item("Dockerfile", 4, "verify-list", "a <tag> & more", "finding"),
             Item("docs/a.md", 2, "stale block", "block `x` is stale", "drift", "--- a\n+++ b\n-```\n+new\n")]
    text = summary_markdown(run, found, True, frozenset({"Dockerfile"}))
    assert text.startswith("## docgen check: failed\n\n**To fix the docs:** run `docgen write`")
    order = [text.index(s) for s in ("- venvs 9 -&gt; 8", "### Findings", "### Stale docs", "<details>")]
    assert order == sorted(order)
    assert "`Dockerfile:4` (changed in this pull request): [verify-list] a &lt;tag&gt; &amp; more" in text
    assert "````diff\n--- a\n+++ b\n-```\n+new\n````" in text   # a longer fence than any in the diff


def test_summary_of_a_clean_run_and_of_findings_only():
    assert summary_markdown(fake_run(False), [], True, frozenset()).startswith("## docgen check: passed")
    only = summary_markdown(fake_run(False), [Item("D", 1, "c", "m", "finding")], True, frozenset())
    assert "docgen write" not in only and "### Findings (edit the inputs): 1" in only
