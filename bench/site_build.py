"""What the site's plugins cost: `mkdocs build --strict` of the real site against the same site with the
newest plugin (panzoom: pan, zoom and fullscreen for diagrams) switched off, and against the same Markdown
with every plugin that adds work switched off (gen-files, mermaid2, panzoom); temporary mkdocs.yml files,
same docs dir, median of 3 runs each.

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
PLUGINS_UNDER_TEST = ("gen-files", "mermaid2", "panzoom")
NEW_PLUGINS = ("panzoom",)


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


def plain_config(dest: Path, off: tuple[str, ...] = PLUGINS_UNDER_TEST, name: str = "plain") -> Path:
    """mkdocs.yml with the plugins `off` switched off, written beside it (so every path in it, and the
    project docs/gen_pages.py finds, stay as they are); the caller removes it."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.Loader)  # our own file: python tags ok
    config["docs_dir"] = str(ROOT / "docs")
    config["plugins"] = [p for p in config["plugins"]
                         if not (isinstance(p, dict) and set(p) & set(off)) and p not in off]
    if "gen-files" in off:
        config["nav"] = _drop_generated(config["nav"])
        config["validation"]["links"]["not_found"] = "info"
    path = ROOT / f".mkdocs-bench-{name}-{os.getpid()}.yml"
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
        configs = [plain_config(tmp, NEW_PLUGINS, "no-new"), plain_config(tmp)]
        try:
            no_new = wall([MKDOCS, "build", "--strict", "-q", "-f", str(configs[0]), "-d", str(tmp / "no-new")],
                          runs=args.runs, cwd=ROOT, env=env)
            plain = wall([MKDOCS, "build", "--strict", "-q", "-f", str(configs[1]), "-d", str(tmp / "plain")],
                         runs=args.runs, cwd=ROOT, env=env)
        finally:
            for config in configs:
                config.unlink(missing_ok=True)
    full_s, no_new_s, plain_s = summary(full), summary(no_new), summary(plain)
    report("site_build", {
        "full_site": full_s,
        "without_panzoom": no_new_s,
        "without_gen_files_mermaid2_panzoom": plain_s,
        "ratio_to_without_new_plugins": round(full_s["median_s"] / no_new_s["median_s"], 2),
        "ratio_to_plugins_off": round(full_s["median_s"] / plain_s["median_s"], 2),
    })


if __name__ == "__main__":
    main()
