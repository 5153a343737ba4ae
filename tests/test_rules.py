"""Rules as declared data (docgen/rules.py): every finding docgen reports names a declared rule, each rule's own
example fires it on a copy of this repository, and an allow marker silences exactly the rule it names."""

from __future__ import annotations

import json
import re

import pytest

from docgen.errors import EXIT_BAD_INPUT
from docgen.rules import RULES, rule
from tests.docgen_cli import docgen
from tests.test_mutations import copy_repo

PAGE = "docs/index.md"


def _apply(root, edits) -> None:
    for rel, old, new in edits:
        path = root / rel
        text = path.read_text()
        if old:
            assert old in text, f"{rel} no longer holds {old!r}: update the rule's example"
            text = text.replace(old, new, 1)
        else:
            text = text.rstrip("\n") + "\n\n" + new + "\n"
        path.write_text(text)


def _lint(root, command: str = "lint") -> tuple[int, dict]:
    result = docgen(command, "--format", "json", "--root", str(root))
    return result.returncode, json.loads(result.stdout)


def test_every_rule_is_declared_whole():
    for r in RULES.values():
        assert r.id and r.summary and r.why and r.fix, r.id
        assert r.example, f"rule {r.id} has no example that fires it"
    with pytest.raises(KeyError, match="undeclared rule"):
        rule("no-such-rule")


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_each_rules_example_fires_it(rule_id, tmp_path):
    root = copy_repo(tmp_path / "repo")
    _apply(root, RULES[rule_id].example)
    code, report = _lint(root, "check" if RULES[rule_id].write else "lint")   # lint reports no drift
    fired = set(report["rules"])
    assert fired >= {f["check"] for f in report["findings"]}
    assert code == 1 and rule_id in fired, (rule_id, fired)
    assert fired <= set(RULES), f"findings of undeclared rules: {fired - set(RULES)}"


def test_the_repository_fires_no_rule():
    code, report = _lint(copy_repo_root())
    assert code == 0 and report["findings"] == []


def copy_repo_root():
    from tests.test_mutations import REPO
    return REPO


def test_an_allow_marker_silences_only_the_rule_it_names(tmp_path):
    root = copy_repo(tmp_path / "repo")
    sentence = "vLLM 0.0.1 generates the rollouts."
    _apply(root, ((PAGE, "", sentence + " <!-- docgen:allow prose the example of a stale version -->"),))
    _, report = _lint(root)
    fired = {f["check"] for f in report["findings"] if f["path"] == PAGE}
    assert "prose" not in fired and "stated-value" in fired   # the marker names prose, not stated-value
    (root / PAGE).write_text((root / PAGE).read_text().replace(
        "docgen:allow prose ", "docgen:allow prose,stated-value,unrecorded-sentence "))
    _, report = _lint(root)
    assert not [f for f in report["findings"] if f["path"] == PAGE]


def test_an_allow_marker_shown_in_a_code_span_silences_nothing(tmp_path):
    """A page that shows the marker's syntax in inline code, on a line with a false sentence: the shown marker is
    text, as the block engine reads it, so the finding stands; the same marker in the page's flow silences it."""
    root = copy_repo(tmp_path / "repo")
    shown = "`<!-- docgen:allow prose,stated-value the example of a stale version -->`"
    _apply(root, ((PAGE, "", f"vLLM 0.0.1 generates the rollouts; a line that must keep it ends in {shown}."),))
    code, report = _lint(root)
    assert code == 1 and "stated-value" in {f["check"] for f in report["findings"] if f["path"] == PAGE}, report
    (root / PAGE).write_text((root / PAGE).read_text().replace(f"ends in {shown}.", f"ends in it. {shown.strip('`')}"))
    _, report = _lint(root)
    assert not [f for f in report["findings"] if f["path"] == PAGE]


@pytest.mark.parametrize("marker, says", [
    ("<!-- docgen:allow -->", "names no rule"),
    ("<!-- docgen:allow because I say so -->", "'because'"),
    ("<!-- docgen:allow prose -->", "needs a reason"),
])
def test_a_malformed_allow_marker_is_bad_input(marker, says, tmp_path):
    root = copy_repo(tmp_path / "repo")
    _apply(root, ((PAGE, "", "Some sentence. " + marker),))
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    result = docgen("check", "--root", str(root))
    assert result.returncode == EXIT_BAD_INPUT
    assert re.search(rf"{PAGE}:\d+: .*{re.escape(says)}", result.stderr), result.stderr
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
