"""What the site's plugins cost: `mkdocs build --strict` of the real site vs the same Markdown with
gen-files and mermaid2 switched off (a temporary mkdocs.yml, same docs dir), median of 3 runs each.

The plain build has no generated reference pages, so its config drops their nav entries and only notes
(rather than fails on) links to them; everything else, theme and Markdown extensions included, is equal.

Usage: .venv/bin/python bench/site_build.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import report, summary, wall  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = str(ROOT / ".venv" / "bin" / "mkdocs")
PLUGINS_UNDER_TEST = ("gen-files", "mermaid2")


def _drop_generated(nav: list) -> list:
    """The nav without entries for pages only gen-files writes (they do not exist in docs/)."""
    out = []
    for item in nav:
        title, value = next(iter(item.items())) if isinstance(item, dict) else (None, item)
        if isinstance(value, list):
            value = _drop_generated(value)
            if value:
                out.append({title: value})
        elif (ROOT / "docs" / value).exists():
            out.append(item)
    return out


def plain_config(dest: Path) -> Path:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.Loader)  # our own file: python tags ok
    config["docs_dir"] = str(ROOT / "docs")
    config["plugins"] = [p for p in config["plugins"]
                         if not (isinstance(p, dict) and set(p) & set(PLUGINS_UNDER_TEST)) and p not in PLUGINS_UNDER_TEST]
    config["nav"] = _drop_generated(config["nav"])
    config["validation"]["links"]["not_found"] = "info"
    path = dest / "mkdocs-plain.yml"
    path.write_text(yaml.dump(config, Dumper=yaml.Dumper, sort_keys=False))
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    env = {**os.environ, "DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # Once through the real script: installs the pinned mermaid and puts it where mermaid2 looks.
        subprocess.run(["bash", str(ROOT / "scripts" / "build-docs"), str(tmp / "prep")], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        full = wall([MKDOCS, "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp / "full")],
                    runs=args.runs, cwd=ROOT, env=env)
        plain = wall([MKDOCS, "build", "--strict", "-q", "-f", str(plain_config(tmp)), "-d", str(tmp / "plain")],
                     runs=args.runs, cwd=ROOT, env=env)
    full_s, plain_s = summary(full), summary(plain)
    report("site_build", {
        "full_site": full_s,
        "without_gen_files_and_mermaid2": plain_s,
        "ratio_median": round(full_s["median_s"] / plain_s["median_s"], 2),
    })


if __name__ == "__main__":
    main()
