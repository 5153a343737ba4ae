"""Run a synthetic Markdown page through the console Sybil in a child pytest; read per-block outcomes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

CONFTEST = textwrap.dedent(
    """
    import json
    from pathlib import Path
    from docgen.console.pytest_plugin import console_session, docs_collector

    HERE = Path(__file__).resolve().parent
    pytest_collect_file = docs_collector(anchor=Path(__file__), root=HERE, pages=lambda: sorted(HERE.glob("*.md")))

    def pytest_runtest_logreport(report):
        if report.when == "call" or report.outcome != "passed":
            key = report.nodeid if report.when != "teardown" else report.nodeid + "@teardown"
            message = report.longrepr[2] if report.skipped else report.longreprtext
            with open(HERE / "outcomes.jsonl", "a") as out:
                out.write(json.dumps({"id": key, "outcome": report.outcome, "message": message}) + "\\n")
    """
)


@dataclass
class Outcome:
    outcome: str        # passed, failed, skipped, error
    message: str


def run_page(workdir: Path, page: str, env: dict[str, str] | None = None) -> tuple[dict[str, Outcome], subprocess.CompletedProcess[str]]:
    """Outcomes keyed by node id (`page.md::<heading>::<n>`; teardown problems get `@teardown`)."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "conftest.py").write_text(CONFTEST)
    (workdir / "page.md").write_text(page)
    (workdir / "outcomes.jsonl").unlink(missing_ok=True)
    if not (workdir / ".git").exists():   # where=host copies the git worktree
        subprocess.run(["git", "init", "-q"], cwd=workdir, check=True)
    child_env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCGEN_CONSOLE", "NMP_"))}
    child_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", str(workdir), str(workdir)],
        cwd=workdir, env=child_env, capture_output=True, text=True, timeout=600,
    )
    outcomes: dict[str, Outcome] = {}
    results = workdir / "outcomes.jsonl"
    for line in results.read_text().splitlines() if results.exists() else []:
        entry = json.loads(line)
        outcomes[entry["id"]] = Outcome(entry["outcome"], entry["message"])
    return outcomes, proc
