"""Whole pages through the console Sybil: each block passes or fails on its own; and the page container as the engine sees it."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import pytest

from docgen.console.container import SESSION_LABEL, Engine, PageContainer
from docgen.console.evaluator import ConsoleSession
from tests.console.docrun import run_child, run_page, session_env

# One wrong expected line, one hang past its timeout, one unexpected non-zero exit, with passing
# blocks around them that prove the page's shell state survives (or is knowingly reset).
MIXED_PAGE = textwrap.dedent(
    """\
    # Mixed

    {opts}
    ```console
    $ cd /tmp && greeting=hello
    $ echo "$greeting from $PWD"
    hello from /tmp
    ```

    ## Wrong line

    {opts}
    ```console
    $ printf 'alpha\\nbeta\\ngamma\\n'
    alpha
    BETA
    gamma
    ```

    ## Still in tmp

    {opts}
    ```console
    $ echo "$greeting"; pwd
    hello
    /tmp
    ```

    ## Hangs

    {timeout_opts}
    ```console
    $ echo before; sleep 617
    before
    ```

    ## After the hang

    {opts}
    ```console
    $ echo "greeting=[$greeting]"
    greeting=[]
    $ for f in /proc/[0-9]*/cmdline; do cat "$f"; echo; done 2>/dev/null | grep -ac '^sleep.617'
    0
    [1]
    ```

    ## Non-zero

    {opts}
    ```console
    $ ls /definitely-missing
    ```

    ## Expected non-zero

    {opts}
    ```console
    $ ls /definitely-missing
    ls: cannot access '/definitely-missing': No such file or directory
    [2]
    $ echo ...wild... && echo done
    ...
    done
    ```
    """
)


def mixed_page(where: str) -> str:
    opts = f"<!-- console: where={where} -->"
    return MIXED_PAGE.format(opts=opts, timeout_opts=f"<!-- console: where={where} timeout=0.5 -->")


def check_mixed(outcomes):
    assert {k: v.outcome for k, v in outcomes.items()} == {
        "page.md::mixed::1": "passed",
        "page.md::wrong-line::1": "failed",
        "page.md::still-in-tmp::1": "passed",
        "page.md::hangs::1": "failed",
        "page.md::after-the-hang::1": "passed",
        "page.md::non-zero::1": "failed",
        "page.md::expected-non-zero::1": "passed",
    }
    wrong = outcomes["page.md::wrong-line::1"].message
    assert "page.md:13 [wrong-line::1]" in wrong
    assert "-BETA\n+beta" in wrong
    hang = outcomes["page.md::hangs::1"].message
    assert "timed out after 0.5 s" in hang and "before" in hang
    nonzero = outcomes["page.md::non-zero::1"].message
    assert "exit status: expected 0, got 2" in nonzero
    assert "+ls: cannot access '/definitely-missing': No such file or directory" in nonzero


def test_host_blocks_fail_only_themselves(tmp_path):
    outcomes, proc = run_page(tmp_path, mixed_page("host"))
    check_mixed(outcomes)
    assert proc.returncode == 1


def test_update_mode_rewrites_only_failing_blocks(tmp_path):
    page = textwrap.dedent(
        """\
        # Update

        Prose stays.

        <!-- console: where=host -->
        ```console
        $ echo one; echo two
        one
        zwei
        $ echo kept
        ...
        ```

        <!-- console: where=host -->
        ```console
        $ echo fine
        fine
        ```

        <!-- console: where=host -->
        ```console
        $ printf 'x\\n'; false
        y
        ```
        Tail prose.
        """
    )
    outcomes, _ = run_page(tmp_path, page, env={"DOCGEN_CONSOLE_UPDATE": "1"})
    assert {v.outcome for v in outcomes.values()} == {"passed"}
    updated = (tmp_path / "page.md").read_text()
    assert updated == page.replace("one\nzwei\n", "one\ntwo\n").replace("$ printf 'x\\n'; false\ny\n", "$ printf 'x\\n'; false\nx\n[1]\n")
    outcomes, _ = run_page(tmp_path, updated)          # plain rerun: the page now holds
    assert {v.outcome for v in outcomes.values()} == {"passed"}
    assert (tmp_path / "page.md").read_text() == updated


def test_malformed_option_is_a_collection_error_naming_file_and_line(tmp_path):
    outcomes, proc = run_child(tmp_path, "# T\n\n<!-- console: timeout=fast -->\n```console\n$ true\n```\n")
    assert proc.returncode != 0
    assert "page.md:3: console options: timeout must be seconds" in proc.stdout


def test_missing_image_skips_with_build_hint_or_fails_when_required(tmp_path):
    page = "# T\n\n```console\n$ true\n```\n"
    missing = {"NMP_IMAGE": f"nmp-rl-base:absent-{uuid.uuid4().hex[:8]}"}
    outcomes, _ = run_page(tmp_path / "a", page, env=missing)
    assert outcomes["page.md::t::1"].outcome == "skipped"
    assert "scripts/" in outcomes["page.md::t::1"].message
    outcomes, proc = run_page(tmp_path / "b", page, env={**missing, "NMP_REQUIRE_IMAGE": "1"})
    assert outcomes["page.md::t::1"].outcome == "failed" and proc.returncode == 1
    assert "NMP_REQUIRE_IMAGE=1" in outcomes["page.md::t::1"].message


# --- in a container -------------------------------------------------------------------------

@pytest.mark.docker
def test_image_blocks_fail_only_themselves_and_leave_no_container(tmp_path, runner_image, docker_client):
    session_id, env = session_env(runner_image)
    outcomes, proc = run_page(tmp_path, mixed_page("image"), env=env)
    check_mixed(outcomes)
    left = docker_client.containers.list(all=True, filters={"label": f"org.nmp-rl-base.docs-session={session_id}"})
    assert left == []


HARDENING_PAGE = textwrap.dedent(
    """\
    # Hardening

    ```console
    $ cat /sys/class/net/*/operstate | wc -l; ls /sys/class/net
    1
    lo
    $ bash -c 'echo > /dev/tcp/127.0.0.1/9' 2>/dev/null || echo refused
    refused
    $ bash -c 'exec 3<>/dev/tcp/10.0.0.1/80' 2>&1 | grep -c 'Network is unreachable'
    2
    $ touch /should-not-exist
    touch: cannot touch '/should-not-exist': Read-only file system
    [1]
    $ touch /tmp/ok && echo tmp-writable
    tmp-writable
    $ grep -c CapEff /proc/self/status; grep CapEff /proc/self/status | cut -f2
    1
    0000000000000000
    $ grep NoNewPrivs /proc/self/status | cut -f2
    1
    ```
    """
)


@pytest.mark.docker
def test_container_is_hardened(tmp_path, runner_image, docker_client):
    _, env = session_env(runner_image)
    outcomes, proc = run_page(tmp_path, HARDENING_PAGE, env=env)
    assert outcomes["page.md::hardening::1"].outcome == "passed", outcomes["page.md::hardening::1"].message + proc.stdout


@pytest.mark.docker
def test_page_container_options_seen_by_the_engine(runner_image, docker_client):
    session_id = f"test-{uuid.uuid4().hex}"
    container = PageContainer(Engine(), runner_image, session_id)
    try:
        attrs = docker_client.api.inspect_container(container.id)
        image = docker_client.images.get(runner_image).attrs["Config"]
        host = attrs["HostConfig"]
        assert attrs["Mounts"] == [] and not host.get("Binds")
        assert host["Tmpfs"] == {"/tmp": "rw,size=64m"}
        assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
        assert host["CapDrop"] == ["ALL"] and host["SecurityOpt"] == ["no-new-privileges"]
        assert host["PidsLimit"] == 256 and host["Memory"] > 0 and host["AutoRemove"] is True
        # the lifeline: PID 1 reads the input this process holds, which the engine closes when it lets go
        assert attrs["Config"]["OpenStdin"] is True and attrs["Config"]["StdinOnce"] is True
        assert not host.get("Init") and attrs["State"]["Running"]
        # only the lifeline replaces the image's start command; env and user are the image's own
        assert attrs["Config"]["User"] == image.get("User", "")
        assert set(image.get("Env") or []) <= set(attrs["Config"]["Env"])
        assert attrs["Config"]["Labels"][SESSION_LABEL] == session_id
    finally:
        container.close()
    assert container.gone()


@pytest.mark.docker
def test_a_retag_mid_run_does_not_change_the_image_a_fresh_container_runs(docker_client, runner_image):
    others = [name for name in ("local/python:3.13-trixie", "nmp-rl-base:hermetic") if name != runner_image]
    try:
        other = docker_client.images.get(others[0])
    except Exception:
        pytest.skip(f"a second image ({others[0]}) is needed to retag to")
    first = docker_client.images.get(runner_image)
    if other.id == first.id:
        pytest.skip("the two candidate images are one image")
    tag = f"docgen-test-retag-{uuid.uuid4().hex[:12]}"
    first.tag(tag, "pin")
    session = ConsoleSession(Path.cwd(), image=f"{tag}:pin")
    try:
        started = session.shell("page.md", "image")
        assert docker_client.api.inspect_container(started.id)["Image"] == first.id
        other.tag(tag, "pin")                       # the name now means another image
        session.close_document("page.md", "image")
        fresh = session.shell("page.md", "image")
        assert fresh.id != started.id and docker_client.api.inspect_container(fresh.id)["Image"] == first.id
    finally:
        session.close()
        docker_client.images.remove(f"{tag}:pin")   # a tag of our own: untags, removes no image
