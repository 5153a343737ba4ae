"""The docgen command line: parse arguments, call the pipeline, map outcomes to exit codes.

Exit codes: 0 ok, 1 findings or drift, 2 bad input (a message naming file and line; nothing written).
Imports stay inside the commands so `docgen inventory` starts fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from docgen.layout import DEFAULT_DOCKERFILE, DEFAULT_SNAPSHOT, EXIT_BAD_INPUT, EXIT_OK, REPO_ROOT

BLOCK_COMMANDS = ("write", "check", "lint")
COMMANDS = ("inventory", "snapshot", "standin") + BLOCK_COMMANDS


def _default(rel: str) -> Path:
    return REPO_ROOT / rel


# ---------------------------------------------------------------------------------------------- commands

def cmd_inventory(args: argparse.Namespace) -> int:
    from docgen.model import load_model

    model = load_model(args.dockerfile, args.snapshot)
    if args.json:
        import json
        print(json.dumps(model.inventory(), indent=2))
        return EXIT_OK
    from docgen.render.text import inventory_text
    print(inventory_text(model), end="")
    return EXIT_OK


def cmd_snapshot(args: argparse.Namespace) -> int:
    from docgen.snapshot import build_snapshot, dump_snapshot, write_atomic

    data = build_snapshot(args.from_dir, registry_facts=args.registry_facts, repo=args.repo, ref=args.ref)
    text = dump_snapshot(data)
    if str(args.output) == "-":
        sys.stdout.write(text)
    else:
        write_atomic(args.output, text)
        counts = {k: len(v) for k, v in data["lock"]["install_sets"].items()}
        print(f"wrote {args.output}: {len(data['lock']['packages'])} packages, "
              f"{len(data['registry']['actors'])} actors, install sets {counts}", file=sys.stderr)
    return EXIT_OK


def cmd_standin(args: argparse.Namespace) -> int:
    from docgen.snapshot import load_snapshot
    from docgen.standin import generate

    generate(load_snapshot(args.snapshot), Path(args.out), lock=not args.no_lock)
    print(f"wrote the stand-in NeMo-RL workspace to {args.out}", file=sys.stderr)
    return EXIT_OK


def _add_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dockerfile", type=Path, default=_default(DEFAULT_DOCKERFILE),
                   help="the image's Dockerfile (default: the repository's Dockerfile.nmp-rl-base)")
    p.add_argument("--snapshot", type=Path, default=_default(DEFAULT_SNAPSHOT),
                   help="the NeMo-RL snapshot (default: the repository's snapshot/nemo-rl.json)")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole CLI, or (with `only`) just the one subcommand a run asked for: building every
    subparser costs about as much as a `docgen check` itself."""
    parser = argparse.ArgumentParser(
        prog="docgen",
        description="Documentation that cannot drift for the nmp-rl-base image: read the Dockerfile and the "
                    "NeMo-RL snapshot, render generated blocks, check them and the inputs' agreement.",
        epilog="Exit codes: 0 ok, 1 findings or drift, 2 bad input.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def wanted(name: str) -> bool:
        return only is None or only == name

    if wanted("inventory"):
        _add_inventory(sub)
    if wanted("snapshot"):
        _add_snapshot(sub)
    if wanted("standin"):
        _add_standin(sub)
    if only is None or only in BLOCK_COMMANDS:
        from docgen import blocks_cli  # the generated-blocks commands: write, check, lint
        blocks_cli.register(sub, only=only)
    return parser


def _add_inventory(sub) -> None:
    p = sub.add_parser("inventory", help="print the image inventory: filters, venvs, warmed extras, shared builds",
                       description="Print the image inventory derived from the Dockerfile and the snapshot.")
    _add_inputs(p)
    p.add_argument("--json", action="store_true", help="machine-readable JSON instead of a table")
    p.set_defaults(func=cmd_inventory)


def _add_snapshot(sub) -> None:
    p = sub.add_parser("snapshot", help="read an RL checkout into a committed, diff-friendly snapshot",
                       description="Read NeMo-RL's pyproject.toml, uv.lock and actor registry from DIR and write "
                                   "a deterministic snapshot with provenance.")
    p.add_argument("--from", dest="from_dir", type=Path, required=True, metavar="DIR",
                   help="an RL checkout (pyproject.toml, uv.lock, nemo_rl/ registry modules)")
    p.add_argument("--registry-facts", type=Path, default=None, metavar="FILE",
                   help="read the actor registry from a JSON facts file instead of DIR's Python sources")
    p.add_argument("--repo", default=None, help="provenance: the RL repository (default: from the facts file)")
    p.add_argument("--ref", default=None, help="provenance: the RL ref (default: from the facts file)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="where to write ('-' = stdout)")
    p.set_defaults(func=cmd_snapshot)


def _add_standin(sub) -> None:
    p = sub.add_parser("standin", help="generate the stand-in NeMo-RL workspace the hermetic image builds from",
                       description="Write a small NeMo-RL look-alike (same registry, extras, conflicts, prefetch "
                                   "tool; tiny packages named and versioned like the heavy ones) and lock it with uv.")
    p.add_argument("--snapshot", type=Path, default=_default(DEFAULT_SNAPSHOT))
    p.add_argument("--out", type=Path, required=True, metavar="DIR")
    p.add_argument("--no-lock", action="store_true", help="do not run `uv lock` in the output")
    p.set_defaults(func=cmd_standin)


def main(argv: list[str] | None = None) -> int:
    from docgen.errors import InputError

    argv = sys.argv[1:] if argv is None else list(argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(first if first in COMMANDS else None).parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"docgen: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
