"""The persistent-shell protocol against a real bash on the host (no Docker needed)."""

import os
import subprocess

import pytest

from docgen.console.shell import CommandTimeout, HostShell, ShellExited, copy_worktree
from tests.console.procs import processes, wait_gone


@pytest.fixture
def shell(tmp_path):
    shell = HostShell(tmp_path, {"PATH": os.environ["PATH"], "LC_ALL": "C"})
    yield shell
    shell.close()


def test_state_carries_between_commands(shell, tmp_path):
    (tmp_path / "sub").mkdir()
    assert shell.run("cd sub; greeting=hello", 5).exit_status == 0
    result = shell.run('pwd; echo "$greeting"', 5)
    assert result.output == [str(tmp_path / "sub"), "hello"]


def test_exit_status_stderr_and_unterminated_lines(shell):
    result = shell.run("echo out; echo err >&2; printf tail; exit_code() { return 3; }; exit_code", 5)
    assert result.output == ["out", "err", "tail"]
    assert result.exit_status == 3
    assert shell.run("printf 'x\\n\\n'", 5).output == ["x", ""]
    assert shell.run("true", 5).output == []


def test_a_command_reading_stdin_does_not_swallow_the_next_one(shell):
    assert shell.run("cat", 5).output == []
    assert shell.run("echo still here", 5).output == ["still here"]


def test_a_syntax_error_fails_only_its_command(shell):
    result = shell.run("echo 'unterminated", 5)
    assert result.exit_status == 2 and "unexpected EOF" in "\n".join(result.output)
    assert shell.run("echo fine", 5).output == ["fine"]


def test_a_shell_that_ended_says_so_again_and_closes_quietly(shell):
    with pytest.raises(ShellExited):
        shell.run("exit 3", 5)
    with pytest.raises(ShellExited):      # the command goes nowhere: what it wrote stays in the pipe's buffer
        shell.run("echo " + "x" * 100, 5)
    shell.close()                         # which closing does not flush into the gone shell's pipe
    shell.close()


def test_inner_time_is_measured_by_bash(shell):
    result = shell.run("sleep 0.2", 5)
    assert 0.19 <= result.inner_seconds <= result.seconds


def test_timeout_kills_the_command_tree(tmp_path):
    marker = tmp_path / "child.started"
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C"}
    # The timeout is what is tested, so it is short; on a loaded machine the command may not have reached its
    # `touch` (nor its output the runner) within the first one: the next attempt's timeout is longer, until
    # it has (the marker and the output are the events waited for).
    for timeout in (0.5, 2, 8, 32):
        shell = HostShell(tmp_path, env)
        try:
            with pytest.raises(CommandTimeout) as err:
                shell.run(f"echo started; sleep 911 & touch {marker}; wait", timeout)
        finally:
            shell.close()
        if marker.exists() and "started" in err.value.output:
            break
    assert "started" in err.value.output and marker.exists()
    # found from outside by its command line: the shell may run in a PID namespace, where $! is not a host PID
    assert not wait_gone(processes(b"sleep\x00911\x00")), "the background sleep survived the timeout"


def test_exit_ends_the_shell(shell):
    with pytest.raises(ShellExited):
        shell.run("exit 4", 5)


def test_copy_worktree_takes_tracked_and_new_files_not_ignored_ones(tmp_path):
    repo, dest = tmp_path / "repo", tmp_path / "copy"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    (repo / ".gitignore").write_text("ignored.txt\n")
    (repo / "tracked.txt").write_text("v1\n")
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=repo, check=True)
    (repo / "tracked.txt").write_text("v2 working change\n")
    (repo / "new.txt").write_text("new\n")
    (repo / "ignored.txt").write_text("no\n")
    copy_worktree(repo, dest)
    assert (dest / "tracked.txt").read_text() == "v2 working change\n"
    assert (dest / "new.txt").exists() and not (dest / "ignored.txt").exists()
