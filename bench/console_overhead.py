"""What the executable docs cost over the commands themselves, against one container per block.

    .venv/bin/python bench/console_overhead.py [--image nmp-rl-base:hermetic] [--json]

Runs every where=image, non-skipped ```console block of docs/**/*.md and README.md twice in one go:
1. the docs way: one hardened container and one persistent bash per page; per block, the
   overhead is the wall time seen here minus the time bash measured around each command;
2. the container-structure-test way: one `docker run --rm` (same hardening) per block.
Also reports the round trip of `true` in the persistent shell. Outputs are not compared here; blocks
that rely on an earlier block's variables fail fast in (2), which flatters (2), not (1).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from docgen.console.evaluator import DEFAULT_IMAGE  # noqa: E402
from docgen.console.parser import ConsoleBlock, find_blocks  # noqa: E402
from docgen.console.pytest_plugin import markdown_pages  # noqa: E402
from docgen.console.container import Engine, PageContainer  # noqa: E402


def image_blocks() -> dict[Path, list[ConsoleBlock]]:
    pages = {}
    for page in markdown_pages(REPO):
        blocks = [b for b in find_blocks(page.read_text(encoding="utf-8"), str(page))
                  if b.options.where == "image" and not b.options.skip]
        if blocks:
            pages[page] = blocks
    return pages


def run_docs_way(client, image: str, pages: dict[Path, list[ConsoleBlock]]) -> dict:
    started = time.perf_counter()
    overheads, walls, trues = [], [], []
    for blocks in pages.values():
        shell = PageContainer(Engine(120), image, "bench")
        for block in blocks:
            wall = inner = 0.0
            for step in block.steps:
                result = shell.run(step.command, block.options.timeout)
                wall += result.seconds
                inner += result.inner_seconds
            overheads.append(wall - inner)
            walls.append(wall)
        for _ in range(20):
            trues.append(shell.run("true", 10).seconds)
        shell.close()
    total = time.perf_counter() - started
    return {"total_s": total, "block_overhead_s": overheads, "block_wall_s": walls, "true_roundtrip_s": trues}


def run_container_per_block(client, image: str, pages: dict[Path, list[ConsoleBlock]]) -> dict:
    import docker

    started = time.perf_counter()
    walls = []
    host = dict(network_mode="none", ipc_mode="private", cap_drop=["ALL"], security_opt=["no-new-privileges"],
                read_only=True, tmpfs={"/tmp": "rw,size=64m"}, mem_limit="2g", pids_limit=256)   # as PageContainer's
    for blocks in pages.values():
        for block in blocks:
            script = "\n".join(step.command for step in block.steps)
            t0 = time.perf_counter()
            try:
                client.containers.run(image, entrypoint=["bash", "-c"], command=[script], remove=True, stdout=True,
                                      stderr=True, **host)
            except docker.errors.ContainerError:
                pass   # a block that needs an earlier block's shell state; the timing still counts

            walls.append(time.perf_counter() - t0)
    return {"total_s": time.perf_counter() - started, "block_wall_s": walls}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default=DEFAULT_IMAGE)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import docker

    client = docker.from_env(timeout=120)
    pages = image_blocks()
    count = sum(len(b) for b in pages.values())
    if not count:
        print("no where=image console blocks in the docs", file=sys.stderr)
        return 1
    docs = run_docs_way(client, args.image, pages)
    cold = run_container_per_block(client, args.image, pages)
    ms = lambda s: round(s * 1000, 2)  # noqa: E731
    figures = {
        "image": args.image,
        "pages": len(pages),
        "blocks": count,
        "overhead_per_block_ms": {"median": ms(statistics.median(docs["block_overhead_s"])),
                                  "max": ms(max(docs["block_overhead_s"]))},
        "true_roundtrip_ms": {"median": ms(statistics.median(docs["true_roundtrip_s"])),
                              "max": ms(max(docs["true_roundtrip_s"]))},
        "docs_run_total_s": round(docs["total_s"], 3),
        "container_per_block_total_s": round(cold["total_s"], 3),
        "container_per_block_median_ms": ms(statistics.median(cold["block_wall_s"])),
        "speedup_whole_run": round(cold["total_s"] / docs["total_s"], 1),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
