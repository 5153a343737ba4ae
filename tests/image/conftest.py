"""Fixtures for tests against the hermetic nmp-rl-base image (built by scripts/build-image)."""

import os
import subprocess

import pytest

from docgen.console.evaluator import DEFAULT_IMAGE, IMAGE_ENV

IMAGE = os.environ.get(IMAGE_ENV, DEFAULT_IMAGE)
HOW = "set up with `bash scripts/bootstrap` (scripts/build-image rebuilds only the image)"


def _unavailable(reason: str):
    if os.environ.get("NMP_REQUIRE_IMAGE") == "1":
        pytest.fail(f"{reason} (NMP_REQUIRE_IMAGE=1); {HOW}")
    pytest.skip(f"{reason}; {HOW}")


@pytest.fixture(scope="session")
def docker_client():
    try:
        import docker
        client = docker.from_env()
        client.ping()
    except Exception as exc:  # no SDK, no socket, engine down: all mean "no docker here"
        _unavailable(f"no Docker engine answers ({type(exc).__name__}: {exc})")
    return client


@pytest.fixture(scope="session")
def hermetic_image(docker_client):
    import docker.errors
    try:
        return docker_client.images.get(IMAGE)
    except docker.errors.ImageNotFound:
        _unavailable(f"image {IMAGE} is absent")


@pytest.fixture(scope="module")
def container(docker_client, hermetic_image):
    """One long-lived container per module; tests run commands in it with exec_run."""
    c = docker_client.containers.run(hermetic_image.id, ["sleep", "infinity"], detach=True, init=True,
                                     network_mode="none")
    try:
        yield c
    finally:
        c.remove(force=True)


@pytest.fixture(scope="module")
def sh(container):
    """Run a bash command in the container as its default user; return (exit code, output).

    Through the docker CLI, not the SDK's exec_run: on a loaded machine exec_run now and then answers a
    command's exit code with none of its output (docker-py issue 2042; seen here as `find | wc -l` printing
    nothing with exit 0), and the CLI's exec reads the stream to its end before it takes the exit code."""
    def run(command: str, user: str = "") -> tuple[int, str]:
        done = subprocess.run(["docker", "exec", *(["--user", user] if user else []), container.id, "bash", "-c", command],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        return done.returncode, done.stdout.decode(errors="replace")
    return run
