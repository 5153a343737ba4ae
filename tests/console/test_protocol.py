"""The end-of-command protocol and the host shells' lifetime (no Docker needed)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

import docgen.console.shell as shell_module
from docgen.console.shell import HostShell, PersistentShell
from tests.console.docrun import run_page, start_page
from tests.console.procs import alive, parent, processes, wait_for, wait_gone


@pytest.fixture
def tokens(monkeypatch):
    """Every token the shell module draws, in order."""
    drawn: list[str] = []
    real = shell_module.secrets.token_hex

    def recording(n: int = 16) -> str:
        drawn.append(real(n))
        return drawn[-1]

    monkeypatch.setattr(shell_module.secrets, "token_hex", recording)
    return drawn


def _shell(tmp_path: Path, **env: str) -> PersistentShell:
    return HostShell(tmp_path, {"PATH": os.environ["PATH"], **env})


def test_the_token_is_nowhere_a_block_can_read_it(tmp_path, tokens):
    shell = _shell(tmp_path, LC_ALL="C")
    try:
        before = len(tokens)
        result = shell.run("set; env; declare -p; cat /proc/$$/environ /proc/$$/cmdline; history", 5)
        this_command = tokens[before:]       # the end token and the here-document delimiter
        assert len(this_command) == 2 and len(result.output) > 20
        dump = "\n".join(result.output)
        assert not any(token in dump for token in tokens[:-2] + this_command[:1])
    finally:
        shell.close()


@pytest.mark.probe("console block status")
def test_forged_or_lookalike_end_records_do_not_end_a_command(tmp_path):
    shell = _shell(tmp_path, LC_ALL="C")
    try:
        forgery = "for fd in 9 2 1; do printf '%032x 0 1 2 1\\n\\n%032x\\n' 7 7 >&$fd; done; echo real-end"
        result = shell.run(forgery + "; sleep 0.3; echo still-running; exit_3() { return 3; }; exit_3", 10)
        assert result.exit_status == 3
        assert result.output[-2:] == ["real-end", "still-running"]
        assert shell.run("echo next", 5).output == ["next"]
    finally:
        shell.close()


@pytest.mark.probe("console block status")
def test_functions_shadowing_the_protocols_commands_cannot_rewrite_a_status(tmp_path):
    shell = _shell(tmp_path, LC_ALL="C")
    try:
        shadow = ("printf() { builtin printf '%s 0 0 0 1\\n\\n%s\\n' \"$2\" \"$2\" >&9; }; "
                  "read() { builtin read \"$@\"; }; test() { return 0; }; eval() { builtin eval \"$@\"; }")
        assert shell.run(shadow, 5).exit_status == 0
        result = shell.run("echo visible; false", 5)
        assert (result.output, result.exit_status) == (["visible"], 1)
        assert shell.run("unset -f printf read test eval; printf 'ok\\n'", 5).output == ["ok"]
    finally:
        shell.close()


@pytest.fixture(scope="module")
def comma_locale(tmp_path_factory):
    """de_DE.UTF-8 compiled into a private LOCPATH (nothing installed system-wide)."""
    if not shutil.which("localedef"):
        pytest.skip("localedef is not installed")
    where = tmp_path_factory.mktemp("locales")
    made = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", str(where / "de_DE.UTF-8")], capture_output=True)
    if not (where / "de_DE.UTF-8").is_dir():
        pytest.skip(f"localedef could not build de_DE.UTF-8: {made.stderr.decode()[-200:]}")
    return {"LOCPATH": str(where), "LC_ALL": "de_DE.UTF-8"}


def test_a_comma_decimal_locale_does_not_confuse_the_protocol(tmp_path, comma_locale):
    shell = _shell(tmp_path, **comma_locale)
    try:
        assert "," in shell.run("echo $EPOCHREALTIME", 5).output[0]     # the locale is really in force
        result = shell.run("sleep 0.2; echo done", 5)
        assert result.output == ["done"] and 0.19 <= result.inner_seconds <= result.seconds
    finally:
        shell.close()


def test_host_blocks_finish_under_a_comma_decimal_locale(tmp_path, comma_locale):
    page = "# Locale\n\n<!-- console: where=host timeout=10 -->\n```console\n$ printf '%.1f\\n' 2,5\n2,5\n```\n"
    outcomes, proc = run_page(tmp_path, page, env=comma_locale)
    assert outcomes["page.md::locale::1"].outcome == "passed", proc.stdout


# --- host shells end with their session, however it ends ------------------------------------------

LINGERING_PAGE = textwrap.dedent(
    """\
    # Lingers

    <!-- console: where=host timeout=300 -->
    ```console
    $ pwd > {report}/workspace; sleep 915 & echo started
    started
    $ touch {report}/ready; sleep 916
    ```
    """
)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=lambda s: signal.Signals(s).name)
def test_host_shells_and_their_workspace_end_with_the_session(tmp_path, signum):
    report = tmp_path / "report"
    report.mkdir()
    child = start_page(tmp_path / "run", LINGERING_PAGE.format(report=report))
    try:
        wait_for(lambda: (report / "ready").exists() or child.poll() is not None, what="the block's start")
        assert (report / "ready").exists(), child.stdout.read()
        workspace = Path((report / "workspace").read_text().strip())
        # host PIDs, found from outside: the shell may run in a PID namespace of its own. On a loaded
        # machine the background job may not have exec'd `sleep` yet when the foreground one has: wait.
        wait_for(lambda: len(processes(b"sleep\x00915\x00")) == len(processes(b"sleep\x00916\x00")) == 1,
                 what="both sleeps running")
        background, foreground = processes(b"sleep\x00915\x00"), processes(b"sleep\x00916\x00")
        pids = [*background, *foreground, parent(foreground[0])]
        assert workspace.is_dir() and all(alive(pid) for pid in pids)
        child.send_signal(signum)
        child.wait(timeout=120)   # a net for a hang
        assert not wait_gone(pids), "host shell processes outlived the session"
        wait_for(lambda: not workspace.exists(), what="the host workspace's removal after the session")
    finally:
        child.kill()
        child.wait()


def test_each_session_gets_its_own_workspace(tmp_path):
    page = "# Where\n\n<!-- console: where=host -->\n```console\n$ pwd\n...\n```\n"
    for name in ("a", "b"):
        outcomes, _ = run_page(tmp_path / name, page.replace("$ pwd", f"$ pwd > {tmp_path / name}.pwd"))
        assert outcomes["page.md::where::1"].outcome == "passed"
    places = {(tmp_path / f"{name}.pwd").read_text() for name in ("a", "b")}
    assert len(places) == 2 and not any(Path(place.strip()).exists() for place in places)


def test_a_block_cannot_read_the_end_token_from_the_shells_saved_stdin(tmp_path):
    # bash keeps its own stdin (the command stream) on fd 10 and up while a block runs with </dev/null;
    # whatever the block reads there, it must not find the token that ends its own command
    shell = _shell(tmp_path, LC_ALL="C")
    try:
        steal = ("for fd in $(ls /proc/$$/fd); do [ \"$fd\" -ge 10 ] 2>/dev/null || continue; "
                 "IFS= read -r -t 1 -u \"$fd\" tok && "
                 "{ printf '%s 0 1 2 1\\n' \"$tok\" >&9; printf '\\n%s\\n' \"$tok\"; }; done; "
                 "sleep 0.3; echo real-end; exit_7() { return 7; }; exit_7")
        result = shell.run(steal, 10)
        assert result.exit_status == 7 and result.output[-1] == "real-end", result
        assert shell.run("echo next", 5).output == ["next"]
    finally:
        shell.close()


@pytest.mark.probe("console block status")
def test_a_block_has_no_trap_and_verbose_mode_cannot_see_the_end_token(tmp_path):
    shell = _shell(tmp_path, LC_ALL="C")
    try:
        # a DEBUG trap would run before the runner's own commands and see the token among their words
        for attempt in ("trap 'echo x' DEBUG", "builtin trap 'echo x' DEBUG", "enable trap", "builtin enable trap"):
            assert shell.run(attempt, 10).exit_status != 0, attempt
        assert shell.run("exec 2>" + str(tmp_path / "echoed") + "; set -v", 10).exit_status == 0
        leak = f"grep -oE '[0-9a-f]{{32}}' {tmp_path / 'echoed'} | while read -r w; do printf '%s 0 1 2 1\\n' $w >&9; done; false"
        assert shell.run(leak, 10).exit_status == 1
    finally:
        shell.close()


@pytest.mark.probe("console block status")
@pytest.mark.parametrize("attack", ["builtin() { command \"$@\"; }; readonly -f builtin", "readonly POSIXLY_CORRECT"],
                         ids=["readonly-function-builtin", "readonly-posixly-correct"])
def test_what_keeps_the_runner_from_its_own_commands_ends_the_next_block_not_its_status(tmp_path, attack):
    shell = _shell(tmp_path, LC_ALL="C")
    try:
        shell.run(attack, 10)
        with pytest.raises((shell_module.ShellExited, shell_module.CommandTimeout)):
            shell.run("false", 2)
    finally:
        shell.close()


@pytest.mark.parametrize("namespace", [True, False], ids=["pid-namespace", "environment-scan"])
def test_a_host_block_started_with_setsid_does_not_outlive_its_shell(tmp_path, monkeypatch, namespace):
    if namespace and not shell_module.namespace_prefix():
        pytest.skip("this machine lets no process make a PID namespace")
    if not namespace:
        monkeypatch.setattr(shell_module, "namespace_prefix", lambda: [])   # a machine that makes no PID namespace
    marker = tmp_path / "escaped.pid"
    shell = _shell(tmp_path, LC_ALL="C")
    try:
        # the block ends once the detached process has written its PID; the test, once it runs `sleep`
        shell.run(f"setsid sh -c 'echo $$ > {marker}.new && mv {marker}.new {marker}; exec sleep 913' "
                  f">/dev/null 2>&1 </dev/null & until [ -s {marker} ]; do sleep 0.05; done", 120)
        wait_for(_sleep_913, what="the detached process's exec of sleep")
        escaped = _sleep_913()
    finally:
        shell.close()
    assert not wait_gone(escaped), "a setsid process of a host block outlived the session's shell"


def _sleep_913() -> list[int]:
    return processes(b"sleep\x00913\x00")



# --- a block cannot change how the next block's status is read ------------------------------------
# Each sets up the shell for the blocks after it: the first three make them report success whatever they do
# (an end record forged from the 32-hex word the runner's own commands carry, or the status variable
# reassigned); the last two broke the runner's own commands, so the block timed out and its shell was lost.
_FORGE = 'printf "%s 0 1 2 1\\n" "$w" >&9; printf "\\n%s\\n" "$w"'
NEXT_BLOCK_ATTACKS = {
    # extdebug: a DEBUG trap that returns non-zero skips the command it precedes
    "extdebug-debug-trap": (
        "shopt -s extdebug; trap 'f=; for w in $BASH_COMMAND; do [[ $w =~ ^[0-9a-f]{32}$ ]] && f=$w; done; "
        "if [[ -n $f ]]; then w=$f; " + _FORGE + "; false; "
        "elif [[ $BASH_COMMAND == *trap* ]]; then false; else true; fi' DEBUG"),
    # a function named `builtin` answers for every `builtin printf` of the runner
    "function-named-builtin": (
        "builtin() { local w; for w in \"$@\"; do if [[ $w =~ ^[0-9a-f]{32}$ ]]; then " + _FORGE + "; return 0; fi; "
        "done; command \"$@\"; }"),
    "xtrace-prompt-assigns": "PS4='$((__docgen_s=0))+ '; set -x",
    "readonly-status-variable": "readonly __docgen_s=0",
    "ifs-of-digits": "IFS=0123456789",
}


@pytest.mark.probe("console block status")
@pytest.mark.parametrize("attack", NEXT_BLOCK_ATTACKS.values(), ids=NEXT_BLOCK_ATTACKS.keys())
def test_a_block_cannot_change_how_the_next_blocks_status_is_read(tmp_path, attack):
    shell = _shell(tmp_path, LC_ALL="C")
    try:
        try:
            shell.run(attack, 10)       # its own status is its own business
        except Exception:
            pass
        assert shell.run("false", 10).exit_status == 1
        assert shell.run("(exit 3)", 10).exit_status == 3
        assert shell.run("echo next", 10).output[-1:] == ["next"]
    finally:
        shell.close()
