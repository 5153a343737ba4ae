"""The docgen command line: parse arguments, find the project, call the pipeline, map outcomes to exit codes.

Exit codes: 0 ok, 1 findings or drift, 2 bad input (a message naming file and line; nothing written).
Every subcommand takes --root, --config and --verbose; the project (which tree, which inputs) is found
from the working directory, never from where docgen is installed (docgen.project).

Each command imports what it runs inside its own function, so a command pays at start-up only for the
modules it uses (`docgen diff` never loads the checks, `docgen snapshot` neither the model nor the pages):
`python -X importtime -m docgen COMMAND ...` shows each command's share, and bench/diff_speed.py,
bench/core_speed.py and bench/check_vs_cog.py measure the commands against their baselines.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import json
import os
import sys
from pathlib import Path
from typing import Any

from docgen import __version__
from docgen.errors import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, InputError
from docgen.io import append_report, read_input, write_file
from docgen.project import find_project

COMMANDS = ("inventory", "snapshot", "standin", "write", "check", "lint", "review", "diff", "bump")


def _project(args: argparse.Namespace):
    project = find_project(args.root, args.config)
    overrides: dict[str, Any] = {}
    for key in ("dockerfile", "snapshot"):
        value = getattr(args, key, None)
        if value is not None:
            overrides[key] = Path(value).absolute()
    return project._replace(**overrides) if overrides else project


def _say_project(args, project) -> None:
    if args.verbose:
        print(project.verbose_line(), file=sys.stderr)


# ---------------------------------------------------------------------------------------------- commands

def cmd_inventory(args: argparse.Namespace) -> int:
    from docgen.model.build import load_model  # noqa: PLC0415  # each command imports what it runs (the docstring)
    from docgen.render.text import inventory_text  # noqa: PLC0415  # (as load_model)

    project = _project(args)
    _say_project(args, project)
    model = load_model(project.dockerfile, project.snapshot)
    if args.json:
        print(json.dumps(model.inventory(), indent=2))
        return EXIT_OK
    print(inventory_text(model), end="")
    return EXIT_OK


def cmd_snapshot(args: argparse.Namespace) -> int:
    from docgen.snapshot.build import build_snapshot, dump_snapshot  # noqa: PLC0415  # per command (the docstring)

    data = build_snapshot(args.from_dir, registry_facts=args.registry_facts, repo=args.repo, ref=args.ref,
                          allow_dirty=args.allow_dirty)
    text = dump_snapshot(data)
    prov = data["provenance"]
    if prov.get("dirty"):
        print(f"docgen: warning: recorded as dirty (--allow-dirty): {', '.join(prov['dirty'])} differ from commit "
              f"{prov['commit']}; `docgen check` reports it until the snapshot is recorded from a clean tree",
              file=sys.stderr)
    missing = [what for what, present in (("repository (--repo OWNER/NAME)", prov["repo"]),
                                          ("ref (--ref REF)", prov["ref"] or prov["commit"])) if not present]
    if missing:   # written anyway (the lock may be all one needs now); `docgen check` reports it until fixed
        print(f"docgen: warning: {args.from_dir} is not a git checkout with a remote and a commit, so the snapshot "
              f"records no {' and no '.join(missing)}; `docgen check` reports it", file=sys.stderr)
    if str(args.output) == "-":
        sys.stdout.write(text)
        return EXIT_OK
    project = _project(args)
    _say_project(args, project)
    output = Path(args.output).absolute() if args.output is not None else project.snapshot
    write_file(project.root, output, text, kind="snapshot")
    counts = {k: len(v) for k, v in data["lock"]["install_sets"].items()}
    print(f"wrote {project.display(output)}: {len(data['lock']['packages'])} packages, "
          f"{len(data['registry']['actors'])} actors, install sets {counts}", file=sys.stderr)
    return EXIT_OK


def cmd_standin(args: argparse.Namespace) -> int:
    # Imported here, for this rare maintainer command only: the stand-in's subprocess, shutil and tempfile
    # would otherwise be imported by every `docgen check` (python -X importtime shows their share).
    from docgen.snapshot.load import load_snapshot  # noqa: PLC0415  # per command (the module docstring)
    from docgen.standin import generate  # noqa: PLC0415  # only `docgen standin` makes the stand-in

    project = _project(args)
    _say_project(args, project)
    generate(load_snapshot(project.snapshot), Path(args.out), lock=not args.no_lock)
    print(f"wrote the stand-in NeMo-RL workspace to {args.out}", file=sys.stderr)
    return EXIT_OK


def _run(args: argparse.Namespace, *, render: bool = True):
    """The pipeline's run behind write, check, lint (and review, which calls `prepare` itself)."""
    from docgen.check.pipeline import prepare  # noqa: PLC0415  # only the page commands load the checks

    project = _project(args)
    run = prepare(project, getattr(args, "paths", None) or None, render=render)
    if args.verbose:
        print(run.project.verbose_line(len(run.pages)), file=sys.stderr)
    return run


def cmd_write(args: argparse.Namespace) -> int:
    from docgen.check.pipeline import write  # noqa: PLC0415  # only the page commands load the checks

    for line in write(_run(args)):
        print(f"docgen: {line}", file=sys.stderr)
    return EXIT_OK


def cmd_review(args: argparse.Namespace) -> int:
    """Confirm hand-written sentences whose named facts changed: the facts record takes today's values for
    them. Only the facts record is written."""
    from docgen.check.pipeline import prepare, write_record  # noqa: PLC0415  # only the page commands load the checks

    project = _project(args)
    _say_project(args, project)
    wanted = set()
    for spec in args.sentences:
        path, sep, line = spec.rpartition(":")
        if not sep or not line.isdigit():
            raise InputError(spec, None, "expected FILE:LINE, as `docgen check` prints it")
        # as `docgen check` prints it: relative to the root (or absolute)
        wanted.add((project.display(project.root / path), int(line)))
    run = prepare(project, render=False, confirm=frozenset(wanted))
    missing = sorted((path, line) for path, line in wanted
                     if not any(m.path == path and m.reported_at(line) for m in run.mentions))
    if missing:
        raise InputError(f"{missing[0][0]}:{missing[0][1]}", None,
                         "no hand-written sentence that names facts starts or names one on this line (give the "
                         "line `docgen check` names)")
    for line in write_record(run):
        print(f"docgen: {line}", file=sys.stderr)
    return EXIT_OK


def _add_review(sub) -> None:
    p = sub.add_parser("review", help="confirm sentences whose named facts changed",
                       description="Confirm that hand-written sentences still hold after a fact they name changed "
                                   "(the `review` findings of `docgen check`): the facts record takes today's values "
                                   "for them. Edit a sentence instead when it no longer holds; `docgen write` never "
                                   "confirms anything.")
    _common(p)
    p.add_argument("sentences", nargs="+", metavar="FILE:LINE", help="a sentence as `docgen check` names it")
    p.set_defaults(func=cmd_review)


def _report_options(args: argparse.Namespace, run):
    """--diff/--quiet/--changed-files/--max-annotations/--summary as the reporter's options."""
    from docgen.check.report import Options  # noqa: PLC0415  # only the page commands load the checks

    diff = getattr(args, "diff", None)
    if diff is None:   # a person at a terminal wants the diff; a CI log wants the findings, not 250 lines
        diff = sys.stdout.isatty() and not os.environ.get("CI")
    changed = list(args.changed_files or ())
    if args.changed_files_from is not None:
        if str(args.changed_files_from) == "-":
            changed += sys.stdin.read().splitlines()
        else:
            changed += read_input(args.changed_files_from, "the list of changed files").splitlines()
    names: set[str] = set()
    for entry in (c.strip() for c in changed):
        if entry:   # as git prints them (relative to the top level) and as given relative to here
            names.add(Path(entry).as_posix().removeprefix("./"))
            names.add(run.project.display(Path.cwd() / entry))
    summary = args.summary
    if summary is None and args.format == "github":
        summary = os.environ.get("GITHUB_STEP_SUMMARY") or None
    return Options(diff=bool(diff), quiet=args.quiet, changed=frozenset(names),
                   max_annotations=args.max_annotations, summary=str(summary) if summary else None,
                   verbose=bool(args.verbose))


def cmd_check(args: argparse.Namespace) -> int:
    from docgen.check.lint import check_against  # noqa: PLC0415  # only the page commands load the checks
    from docgen.check.pipeline import findings_of  # noqa: PLC0415  # (as check_against)
    from docgen.check.report import report  # noqa: PLC0415  # (as check_against)

    run = _run(args)
    findings = findings_of(run)
    if args.against is not None:
        findings += check_against(run.model, str(args.against))
    drift = report(args.format, run, findings, include_drift=True, options=_report_options(args, run))
    return EXIT_FINDINGS if findings or drift else EXIT_OK


def cmd_lint(args: argparse.Namespace) -> int:
    from docgen.check.pipeline import findings_of  # noqa: PLC0415  # only the page commands load the checks
    from docgen.check.report import report  # noqa: PLC0415  # (as findings_of)
    from docgen.rules import rule  # noqa: PLC0415  # (as findings_of)

    run = _run(args, render=False)
    # the semantic checks only: what `docgen write` fixes (a sentence not yet recorded) is drift, for `check`
    findings = [f for f in findings_of(run) if not rule(f.check).write]
    report(args.format, run, findings, include_drift=False, options=_report_options(args, run))
    return EXIT_FINDINGS if findings else EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    from docgen.diff import compare, load_sides  # noqa: PLC0415  # only `docgen diff` compares snapshots
    from docgen.inputs.dockerfile import read_dockerfile  # noqa: PLC0415  # per command (the module docstring)
    from docgen.render.diff import diff_markdown, diff_text  # noqa: PLC0415  # (as compare)

    if args.dockerfile is not None:   # an explicit Dockerfile needs no project around it
        dockerfile, display = Path(args.dockerfile).absolute(), args.dockerfile   # shown as typed
    else:
        project = _project(args)
        _say_project(args, project)
        dockerfile, display = project.dockerfile, project.display(project.dockerfile)   # inside the root
    old, new = load_sides(args.old, args.new, args.registry_facts, args.old_registry_facts, args.new_registry_facts)
    result = compare(old, new, read_dockerfile(dockerfile), display)
    if args.summary:
        _append_step_summary(diff_markdown(result))
    if args.format == "json":
        print(json.dumps(result, indent=2))
    else:
        print((diff_markdown if args.format == "markdown" else diff_text)(result), end="")
    return EXIT_OK


def cmd_bump(args: argparse.Namespace) -> int:
    from docgen.bump import CheckFailed, bump  # noqa: PLC0415  # subprocess and tempfile: only `docgen bump`

    project = _project(args)
    _say_project(args, project)
    rl = Path(args.rl) if args.rl is not None else project.root.parent / "RL"
    try:
        done = bump(project, args.ref, args.repo, rl.absolute(), say=lambda line: print(line, file=sys.stderr))
    except CheckFailed as exc:
        print(f"docgen: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    print(f"docgen: {done.summary}", file=sys.stderr)
    sys.stdout.write(done.body)
    return EXIT_OK


def _append_step_summary(markdown: str) -> None:
    """GitHub Actions shows the file named by $GITHUB_STEP_SUMMARY on the run's page; steps append to it."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        raise InputError("$GITHUB_STEP_SUMMARY", None, "--summary: the variable is not set (it is, in a GitHub "
                                                       "Actions step)")
    append_report(target, markdown)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


# ---------------------------------------------------------------------------------------------- parsers

def _common(p: argparse.ArgumentParser, *, inputs: bool = True) -> None:
    g = p.add_argument_group("project")
    g.add_argument("--root", type=Path, default=None, metavar="DIR",
                   help="the repository to work on (default: the nearest folder upwards from the working "
                        "directory with docgen.toml or [tool.docgen] in pyproject.toml, else the git top level)")
    g.add_argument("--config", type=Path, default=None, metavar="FILE",
                   help="a docgen.toml or pyproject.toml to read the configuration from (root: its folder)")
    g.add_argument("-v", "--verbose", action="store_true",
                   help="say on stderr which root, configuration and input files were used")
    if inputs:
        g.add_argument("--dockerfile", type=Path, default=None, help="override the configured Dockerfile")
        g.add_argument("--snapshot", type=Path, default=None, help="override the configured NeMo-RL snapshot")


def _add_inventory(sub) -> None:
    p = sub.add_parser("inventory", help="print the image inventory: filters, venvs, warmed extras, shared builds",
                       description="Print the image inventory derived from the Dockerfile and the snapshot.")
    _common(p)
    p.add_argument("--json", action="store_true", help="machine-readable JSON instead of a table")
    p.set_defaults(func=cmd_inventory)


def _add_snapshot(sub) -> None:
    p = sub.add_parser("snapshot", help="read an RL checkout into a committed, diff-friendly snapshot",
                       description="Read NeMo-RL's pyproject.toml, uv.lock and actor registry from DIR and write "
                                   "a deterministic snapshot with provenance.")
    _common(p, inputs=False)
    p.add_argument("--from", dest="from_dir", type=Path, required=True, metavar="DIR",
                   help="an RL checkout (pyproject.toml, uv.lock, nemo_rl/ registry modules)")
    p.add_argument("--registry-facts", type=Path, default=None, metavar="FILE",
                   help="read the actor registry from a JSON facts file instead of DIR's Python sources")
    p.add_argument("--repo", default=None,
                   help="provenance: the RL repository as OWNER/NAME (default: from the facts file, else the "
                        "checkout's remote: the one its branch tracks, else origin)")
    p.add_argument("--ref", default=None,
                   help="provenance: the RL ref (default: from the facts file, else the checkout's tag at HEAD, "
                        "else its branch); the commit is the facts file's, else HEAD's")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="where to write ('-' = stdout; default: the configured snapshot)")
    p.add_argument("--allow-dirty", action="store_true",
                   help="record files that differ from the checked-out commit, and say so in the snapshot "
                        "(`docgen check` reports it); without it such a tree is refused")
    p.set_defaults(func=cmd_snapshot)


def _add_bump(sub) -> None:
    p = sub.add_parser("bump", help="move the image to a newer NeMo-RL: fetch, point, snapshot, write, check",
                       description="Fetch REF (default: the Dockerfile's NEMO_RL_REF, the branch the image follows, "
                                   "at its newest commit) from the Dockerfile's NEMO_RL_REPO or --repo, point "
                                   "NEMO_RL_REF at it, record the snapshot from that commit's files, re-render the "
                                   "pages and run check; print the pull-request body (Markdown) on stdout. A ref "
                                   "older than the snapshot's commit, a missing ref, an unreachable repository "
                                   "(exit 2) or a failing check (exit 1) changes nothing.")
    _common(p, inputs=False)
    p.add_argument("ref", nargs="?", default=None, metavar="REF",
                   help="a branch, tag or full commit id (default: the Dockerfile's NEMO_RL_REF)")
    p.add_argument("--repo", default=None, metavar="URL|PATH",
                   help="fetch from here instead: a URL, or a local clone or mirror of NEMO_RL_REPO (the snapshot "
                        "still records NEMO_RL_REPO; the commit is what identifies the files)")
    p.add_argument("--rl", default=None, metavar="DIR",
                   help="the git repository to fetch into (default: ../RL beside the repository; made if missing; "
                        "its work tree is left alone)")
    p.set_defaults(func=cmd_bump)


def _add_standin(sub) -> None:
    p = sub.add_parser("standin", help="generate the stand-in NeMo-RL workspace the hermetic image builds from",
                       description="Write a small NeMo-RL look-alike (same registry, extras, conflicts, prefetch "
                                   "tool; tiny packages named and versioned like the heavy ones) and lock it with uv.")
    _common(p)
    p.add_argument("--out", type=Path, required=True, metavar="DIR")
    p.add_argument("--no-lock", action="store_true", help="do not run `uv lock` in the output")
    p.set_defaults(func=cmd_standin)


def _add_diff(sub) -> None:
    p = sub.add_parser("diff", help="review a NeMo-RL bump: actors, filters, venvs, source builds, packages",
                       description="Compare two NeMo-RL states (snapshot files or RL checkouts, read in memory) "
                                   "against the current Dockerfile: actors added, removed or renamed and whether "
                                   "the prefetch filters still match them, venvs, source builds and packages per "
                                   "prefetched venv, shared source builds, conflict groups, key versions. Exit 0 "
                                   "with the report, even when it is "
                                   "not empty; 2 on bad input.")
    _common(p, inputs=False)
    # strings, not Paths: the report names each path as the user typed it (`./old.json`, `../RL/`)
    p.add_argument("old", metavar="OLD", help="a snapshot JSON file or an RL checkout folder")
    p.add_argument("new", metavar="NEW", help="a snapshot JSON file or an RL checkout folder")
    p.add_argument("--dockerfile", default=None, help="override the configured Dockerfile")
    p.add_argument("--registry-facts", type=Path, default=None, metavar="FILE",
                   help="read the actor registry of the checkout(s) among OLD and NEW from this JSON facts file")
    p.add_argument("--old-registry-facts", type=Path, default=None, metavar="FILE", help="the same, for OLD only")
    p.add_argument("--new-registry-facts", type=Path, default=None, metavar="FILE", help="the same, for NEW only")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                   help="markdown: to paste as a pull-request comment; json: the report object")
    p.add_argument("--summary", action="store_true",
                   help="also append the Markdown report to $GITHUB_STEP_SUMMARY (the job summary)")
    p.set_defaults(func=cmd_diff)


_BLOCKS = {
    "write": ("re-render every generated block and value in place",
              "Re-render every generated block and inline value in the pages docgen owns, and record the facts "
              "they were rendered from; all files or none.", cmd_write),
    "check": ("fail on stale blocks or inconsistent inputs (changes nothing)",
              "Change nothing; exit 1 when a block, a value or the recorded facts are stale, or "
              "when a semantic check finds something. The report says what changed in the facts first, then "
              "what is wrong (on the changed files first), and ends with the command that fixes the docs.",
              cmd_check),
    "lint": ("only the semantic checks across the Dockerfile, the registry and the lock",
             "Semantic checks only: the Dockerfile's filters, verification list, comments and warm order against "
             "the registry and the lock; required generators present in the docs.", cmd_lint),
}


def _add_block_command(sub, name: str) -> None:
    short, description, func = _BLOCKS[name]
    p = sub.add_parser(name, help=short, description=description)
    _common(p)
    if name != "lint":
        p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                       help="Markdown files (default: the pages the configuration names)")
    if name != "write":
        p.add_argument("--format", choices=("text", "github", "json", "sarif"), default="text",
                       help="github: workflow annotations; json: one report object; sarif: SARIF 2.1.0 for code "
                            "scanning (every finding, no cap)")
        r = p.add_argument_group("report")
        if name == "check":
            r.add_argument("--against", type=Path, default=None, metavar="DIR",
                           help="also hold the files the snapshot read to its recorded commit in the NeMo-RL "
                                "repository at DIR (a clone or mirror): any difference is a finding")
            r.add_argument("--diff", action=argparse.BooleanOptionalAction, default=None,
                           help="print each stale block's diff (default: on at a terminal, off when the output "
                                "is piped or $CI is set)")
        r.add_argument("-q", "--quiet", action="store_true",
                       help="print only the last line (what is wrong, and the command that fixes it); "
                            "annotations and the summary file are still written")
        r.add_argument("--changed-files", nargs="+", default=None, metavar="PATH",
                       help="files the change under review touched: what is reported on them comes first "
                            "(give it after any PATH)")
        r.add_argument("--changed-files-from", type=Path, default=None, metavar="FILE",
                       help="read the changed files from FILE, one per line ('-': standard input), "
                            "e.g. the output of `git diff --name-only BASE...HEAD`")
        r.add_argument("--max-annotations", type=_positive, default=10, metavar="N",
                       help="github format: at most N annotations, the last saying how many more and where "
                            "(default: 10, what GitHub shows per step)")
        r.add_argument("--summary", type=Path, default=None, metavar="FILE",
                       help="append a Markdown summary (facts changed, findings, the diff folded) to FILE "
                            "(default with --format github: $GITHUB_STEP_SUMMARY when set)")
    p.set_defaults(func=func)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, every subcommand with its options; with `only`, that subcommand alone (what
    `main` builds when the command is known: argparse formats every option as it is added, so the others would
    be work no run of this command reads)."""
    parser = argparse.ArgumentParser(
        prog="docgen",
        description="Documentation that cannot drift for the nmp-rl-base image: read the Dockerfile and the "
                    "NeMo-RL snapshot, render generated blocks, check them and the inputs' agreement.",
        epilog="--root, --config and --verbose go before or after COMMAND. "
               "Exit codes: 0 ok, 1 findings or drift, 2 bad input.")
    parser.add_argument("--version", action="version", version=f"docgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    adders = {"inventory": _add_inventory, "snapshot": _add_snapshot, "standin": _add_standin, "diff": _add_diff,
              "review": _add_review, "bump": _add_bump}
    for name in COMMANDS if only is None else (only,):
        adders[name](sub) if name in adders else _add_block_command(sub, name)
    return parser


# Options every subcommand takes, so they may also come before it (`docgen --verbose check`): the value-taking
# ones with the number of values they take.
_GLOBAL_OPTIONS = {"--root": 1, "--config": 1, "--verbose": 0, "-v": 0}


def _globals_after_command(argv: list[str]) -> list[str]:
    """`docgen --root DIR -v check X` -> `docgen check --root DIR -v X`: the global options given before the
    command move to just after it, where its parser reads them. Anything else before the command (--help,
    --version, an unknown option) stays put for the top-level parser to handle or refuse."""
    before: list[str] = []
    moved: list[str] = []
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        name = argv[i].split("=", 1)[0]
        takes = _GLOBAL_OPTIONS.get(name)
        if takes is None:
            before.append(argv[i])
            i += 1
            continue
        end = i + 1 + (takes if "=" not in argv[i] else 0)
        moved.extend(argv[i:end])
        i = end
    if not moved or i >= len(argv) or argv[i] not in COMMANDS:
        return argv   # nothing to move, or no command after them: let argparse say what is wrong
    return before + [argv[i]] + moved + argv[i + 1:]


def main(argv: list[str] | None = None) -> int:
    argv = _globals_after_command(sys.argv[1:] if argv is None else list(argv))
    # a command first is the command argparse will run (the top level takes no option before it but -h and
    # --version, which list or name the whole command line)
    args = build_parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"docgen: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK


def run() -> None:
    """The `docgen` command (and `python -m docgen`): `main`, then leave without tearing the interpreter
    down: once the output is flushed and the exit handlers have run, nothing needs the objects a check built
    (the parsed snapshot alone is tens of thousands), and freeing them one by one is time the user waits
    (bench/ab_speed.py measures it against a commit that does). Only a normal return leaves this way: an
    uncaught exception still unwinds, prints its traceback and exits 1 as usual.

    The cyclic garbage collector is off for the run: a run's data holds next to no reference cycles
    (reference counting frees it), and each full collection walks every object of the parsed snapshots
    (bench/ab_speed.py, bench/diff_speed.py)."""
    gc.disable()
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):   # the reader went away, or the stream was closed
            pass
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":
    run()
