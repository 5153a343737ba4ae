"""Every set-up script a test or a skip message names exists: a hint that points at a missing script (a
provision-docker script under scripts/ was named once) sends the reader nowhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMED = re.compile(r"\b((?:scripts|bench)/[A-Za-z0-9_.-]*[A-Za-z0-9_])")


def named_paths() -> dict[str, list[str]]:
    """Each scripts/... or bench/... path named in tests/ or docgen/, with where it is named; the generalisation
    cases (`tests/mutations_*.py`, `tests/planted_*.py`) are left out: a mutation may name the script it creates."""
    found: dict[str, list[str]] = {}
    for tree in ("tests", "docgen"):
        for source in sorted((ROOT / tree).rglob("*.py")):
            if source.parent.name == "tests" and source.name.startswith(("mutations_", "planted_")):
                continue
            for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
                for name in NAMED.findall(line):
                    found.setdefault(name, []).append(f"{source.relative_to(ROOT)}:{number}")
    return found


def test_named_scripts_exist():
    named = named_paths()
    assert "scripts/bootstrap" in named   # the scan sees the hints at all
    missing = {name: where for name, where in named.items() if not (ROOT / name).exists()}
    assert missing == {}
