"""scripts/build-docs run as several builds of one checkout at once (the suite's site tests do, on separate
workers): each stages the self-hosted mermaid under a name of its own, so none moves another's copy away."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.site.conftest import REPO


def test_builds_of_one_checkout_at_once_each_place_the_mermaid(tmp_path):
    # mkdocs itself stood in for by a script that builds nothing: what is tested is the script's own steps
    # before it (the tools checked, the pinned mermaid copied into docs/assets/js); its interpreter is the
    # venv's, so the check for the site's plugins passes as it does for the real mkdocs
    stub = tmp_path / "mkdocs"
    stub.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(0)\n")
    stub.chmod(0o755)
    env = {**os.environ, "MKDOCS": str(stub)}
    builds = [subprocess.Popen(["bash", str(REPO / "scripts/build-docs"), str(tmp_path / f"site{n}")], cwd=REPO,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for n in range(8)]
    outcomes = [(b.wait(timeout=300), b.stdout.read()) for b in builds]
    assert [code for code, _ in outcomes] == [0] * 8, [out for code, out in outcomes if code]
    placed = REPO / "docs/assets/js/mermaid.min.js"
    assert placed.read_bytes() == (REPO / "node_modules/mermaid/dist/mermaid.min.js").read_bytes()
    assert oct(placed.stat().st_mode & 0o777) == "0o644"
    assert not [p.name for p in placed.parent.iterdir() if p.name != placed.name and "mermaid" in p.name]
