import os

import pytest

# The mechanism needs only bash + coreutils + util-linux; the small base image is enough and faster.
CANDIDATE_IMAGES = ["local/python:3.13-trixie", "nmp-rl-base:hermetic"]


def _unavailable(reason: str):
    if os.environ.get("NMP_REQUIRE_IMAGE") == "1":
        pytest.fail(f"NMP_REQUIRE_IMAGE=1 and {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def docker_client():
    import docker

    try:
        client = docker.from_env(timeout=60)
        client.ping()
    except Exception as exc:
        _unavailable(f"no Docker engine ({type(exc).__name__}); set up with `bash scripts/bootstrap` "
                     "(scripts/docker-engine start starts only the engine)")
    yield client
    client.close()


@pytest.fixture(scope="session")
def runner_image(docker_client):
    wanted = os.environ.get("DOCGEN_CONSOLE_TEST_IMAGE")
    for name in [wanted] if wanted else CANDIDATE_IMAGES:
        try:
            docker_client.images.get(name)
            return name
        except Exception:
            continue
    _unavailable(f"none of {CANDIDATE_IMAGES} is built; set up with `bash scripts/bootstrap` "
                 "(scripts/build-image builds only the images)")
