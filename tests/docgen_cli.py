"""Running the docgen command in the tests: in this interpreter (`docgen`) or as a real process
(`docgen_process`).

A fresh `python -m docgen` costs 0.1 to 0.2 s of CPU, nearly all of it starting the interpreter and importing
docgen again, and the suite ran it hundreds of times. Most tests are about what docgen answers, not about the
process, so `docgen` calls `docgen.cli.main` here and hands back what the process would have: its exit code
and its output as text. `docgen_process` starts the real thing, for the tests that are about the process
itself (leaving through `docgen.cli.run`, signals, pipes, another interpreter, what the kernel shows it).
`tests/test_cli.py` compares the two on every subcommand, so this stand-in cannot quietly drift from the
process it stands in for.

What a fresh process would see and this one has to reproduce for the length of the call: the working
directory, the environment (`env` replaces it whole, as `subprocess.run(env=...)` does), standard input (empty
unless `input` is given, like /dev/null), standard output and error as pipes (not terminals, so
`isatty()` is false) decoded as `subprocess.run(text=True)` decodes them, argparse's exit (its code and what it
printed) and an escaping exception (exit 1 and the traceback on standard error, as the interpreter prints it).
Everything is put back afterwards, also when docgen raises.

What it cannot reproduce: settings the interpreter reads once at start (PYTHONPATH, PYTHONIOENCODING,
PYTHONHASHSEED, bytecode flags), anything read from /proc/self about the process (its start-up environment
in /proc/self/environ does not follow os.environ), a time limit (a hang is stopped by pytest-timeout), the
stack depth main starts at (pytest's frames come first, so an input nested just short of the recursion limit
could overflow here and not in a process), and argparse's help width when the tests' own output is a
terminal (pytest -s; through pytest's capture it is 80 columns, as in a process behind a pipe).
Tests that depend on any of those use `docgen_process`.
"""

from __future__ import annotations

import io
import locale
import os
import subprocess
import sys
import traceback
from pathlib import Path

from docgen import cli

REPO = Path(__file__).resolve().parents[1]

# What `python -m docgen` would be given on the command line: shown in the CompletedProcess, as subprocess does.
_COMMAND = ("python", "-m", "docgen")


def _where(cwd: str | os.PathLike | None) -> Path:
    """The tests run docgen from the repository root unless they say otherwise, wherever pytest was started."""
    return REPO if cwd is None else Path(cwd)


def _as_text(data: bytes, encoding: str) -> str:
    """Decoded as `subprocess.run(text=True)` decodes a pipe: strictly, with universal newlines."""
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def docgen(*args: str, cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None,
           input: str | None = None) -> subprocess.CompletedProcess[str]:
    """`docgen ARGS` run in this interpreter, answered as `subprocess.run(..., capture_output=True, text=True)`
    would answer for `python -m docgen ARGS`."""
    # The interpreter opens its standard streams in the locale's encoding, and subprocess decodes with it;
    # standard error escapes what it cannot encode instead of failing (Python's own default for it).
    encoding = locale.getpreferredencoding(False)
    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(io.BytesIO((input or "").encode(encoding)), encoding=encoding, newline="\n"),
        io.TextIOWrapper(out, encoding=encoding, errors="strict", newline="\n", write_through=True),
        io.TextIOWrapper(err, encoding=encoding, errors="backslashreplace", newline="\n", write_through=True),
    )
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_env = dict(os.environ) if env is not None else None
    saved_cwd = os.getcwd()
    os.chdir(_where(cwd))   # before anything else changes: a missing folder fails here, as subprocess fails
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        sys.stdin, sys.stdout, sys.stderr = streams
        try:
            code = cli.main(list(args))   # looked up at each call: a test may replace it
        except SystemExit as exc:   # argparse: usage errors, --help, --version
            code = _exit_code(exc.code)
        except Exception as exc:   # what the interpreter does with an exception nothing caught
            # from the frame inside docgen: this function's own frame is no part of what the process shows
            traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next)
            code = 1
        for stream in streams[1:]:
            stream.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        if saved_env is not None:
            os.environ.clear()
            os.environ.update(saved_env)
        os.chdir(saved_cwd)
    return subprocess.CompletedProcess([*_COMMAND, *args], code, _as_text(out.getvalue(), encoding),
                                       _as_text(err.getvalue(), encoding))


def _exit_code(code: object) -> int:
    """SystemExit's argument as the interpreter turns it into an exit status: none is 0, a number is itself,
    anything else is printed on standard error and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def docgen_process(*args: str, cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None,
                   input: str | None = None, python: str = sys.executable,
                   timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python -m docgen ARGS` as a real process (by default this interpreter's), for the tests about the
    process itself; `env` replaces the environment, as subprocess's does."""
    return subprocess.run([python, "-m", "docgen", *args], cwd=_where(cwd), env=env, input=input,
                          capture_output=True, text=True, timeout=timeout)
