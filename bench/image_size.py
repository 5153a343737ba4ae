"""Measure the built hermetic image and record the figures the docs' image-size block renders.

    .venv/bin/python bench/image_size.py [--tag TAG]            # print the measurement
    .venv/bin/python bench/image_size.py [--tag TAG] --record   # also write docs/data/image-size.json, then `docgen write`

The size is what `docker image inspect` reports; the parts and the venvs are `du` of directories inside
the image (symlinks counted as links, so a venv that links into the uv cache costs only its links); the
layers are `docker history` in build order. The record names the image ID and keeps digests of the
Dockerfile and snapshot it was measured from (`inputs`), so the size page can say when the figures describe
older inputs (a note on the page, never a failing `docgen check`: measurements are not derivations). The
docs workflow's image job runs this with --record right after building the image and hands the record to
the published site (the `image-size` artifact), so nobody needs to build the image on a laptop for a bump.
Production figures are not measured here: add them under "production" with the date and place they were
measured.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "docs/data/image-size.json"
DOCKER = "/usr/bin/docker"
TAG = "nmp-rl-base:hermetic"
PARTS = ("/opt/uv_cache", "/opt/ray_venvs", "/opt/nemo_rl_venv", "/opt/nemo-rl", "/opt/gym_venvs")
VENVS = "/opt/nemo_rl_venv /opt/ray_venvs/*/ /opt/gym_venvs/*/"
MAX_STEP = 60


def step_label(created_by: str) -> str:
    """A short name for a layer from its history entry: the instruction and its first real command."""
    if not created_by.strip():
        return "base image"
    text = created_by.replace(" # buildkit", "")
    if text.startswith("COPY"):
        return " ".join(w for w in text.split() if not w.startswith("--"))[:MAX_STEP]
    # RUN: skip the build-arg prefix and the boilerplate lines every step starts with
    lines = [l.strip() for l in text.splitlines()[1:]]
    boring = ("umask", "if [ -f /run/secrets", "export ", "set ", "EOF", "fi", "#")
    first = next((l for l in lines if l and not l.startswith(boring)), "")
    return f"RUN {first}"[:MAX_STEP]


def tree_inputs() -> dict:
    """Digests of the Dockerfile and snapshot in this tree, which the image was just built from (build,
    then measure): the size page marks the figures as not current once either moves."""
    sys.path.insert(0, str(ROOT))
    from docgen.model.build import load_model
    from docgen.model.digests import input_digest
    from docgen.project import find_project

    project = find_project(ROOT, None)
    return input_digest(load_model(project.dockerfile, project.snapshot))


def tree_commit() -> str | None:
    """The commit of this tree (the one the image was just built from), which the size page names when the
    figures are no longer current; None outside a git checkout."""
    proc = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def measure(tag: str = TAG) -> dict:
    inspect = json.loads(subprocess.run([DOCKER, "image", "inspect", tag], check=True, capture_output=True,
                                        text=True).stdout)[0]
    du = subprocess.run([DOCKER, "run", "--rm", "--network", "none", "--entrypoint", "du", tag, "-sb", *PARTS],
                        check=True, capture_output=True, text=True).stdout
    parts = {path: int(size) for size, path in (line.split("\t", 1) for line in du.splitlines())}
    du = subprocess.run([DOCKER, "run", "--rm", "--network", "none", "--entrypoint", "bash", tag, "-c",
                         f"shopt -s nullglob; du -sb {VENVS}"], check=True, capture_output=True, text=True).stdout
    venvs = {path.rstrip("/"): int(size) for size, path in (line.split("\t", 1) for line in du.splitlines())}
    history = subprocess.run([DOCKER, "image", "history", "--no-trunc", "--human=false", "--format", "{{json .}}", tag],
                             check=True, capture_output=True, text=True).stdout
    layers = [{"step": step_label(h["CreatedBy"]), "bytes": int(h["Size"])}
              for h in reversed([json.loads(line) for line in history.splitlines()]) if int(h["Size"])]
    return {
        "image": tag,
        "image_id": inspect["Id"],
        "inputs": tree_inputs(),
        "platform": f"{inspect['Os']}/{inspect['Architecture']}",
        "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "commit": tree_commit(),
        "size_bytes": int(inspect["Size"]),
        "parts": parts,
        "venvs": venvs,
        "layers": layers,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", action="store_true", help=f"write {RECORD.relative_to(ROOT)}")
    ap.add_argument("--tag", default=TAG, help=f"image to measure (default {TAG})")
    args = ap.parse_args()
    figures = measure(args.tag)
    if args.record:
        previous = json.loads(RECORD.read_text()) if RECORD.exists() else {}
        if "production" in previous:  # measured elsewhere: keep it as it was recorded
            figures["production"] = previous["production"]
        # docgen's one writer: atomic, and only over an image-size record (never through a symlink)
        sys.path.insert(0, str(ROOT))
        from docgen.io import write_file

        write_file(ROOT, RECORD, json.dumps(figures, indent=2, sort_keys=True) + "\n", kind="image-size")
    json.dump(figures, sys.stdout, indent=2, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
