"""The published stage adds a small layer on top of the builder stage, not a second copy of /opt.

The builder stage is built here (from the build cache the image left) and must be the image's own
base: its layers are a prefix of the image's. The layers the published stage adds are read from
`docker save`, and every path they change is accounted for.
"""

from __future__ import annotations

import re
import subprocess
import tarfile

import pytest

from tests.expected import model_facts
from tests.image.bake import DOCKER, bake, probe_tag, remove_tag
from tests.image.conftest import IMAGE

pytestmark = [pytest.mark.image, pytest.mark.docker, pytest.mark.slow]

BUILDER_TAG = probe_tag("builder")
VLLM_VENVS = model_facts().vllm_venvs   # the model of this checkout; the saved layers are the other side
VLLM_COPY = re.compile(r"^opt/(?:ray_venvs|gym_venvs)/([^/]+)/lib/python3\.\d+/site-packages/vllm(?:/|$)")
# Removals the published stage may make (build-only tooling and stray caches): whiteouts of these only.
ALLOWED_REMOVALS = re.compile(r"^(root/\.cache|home/nmpbuild/\.cache|tmp/[^/]+|usr/local/bin/(cmake|ctest|cpack)"
                              r"|usr/local/share/cmake-[^/]+)$")


@pytest.fixture(scope="module")
def builder_image(docker_client, hermetic_image):
    proc = bake("hermetic", "--set", "hermetic.target=builder", "--set", f"hermetic.tags={BUILDER_TAG}")
    assert proc.returncode == 0, proc.stdout[-3000:]
    try:
        image = docker_client.images.get(BUILDER_TAG)
        layers, own = image.attrs["RootFS"]["Layers"], hermetic_image.attrs["RootFS"]["Layers"]
        if own[: len(layers)] != layers:
            pytest.fail(f"{IMAGE} was not built from this checkout's builder stage: rebuild it with scripts/build-image")
        yield image
    finally:
        remove_tag(BUILDER_TAG)


def published_entries(image, builder) -> list[tarfile.TarInfo]:
    """The tar entries of the layers the published stage adds, read from `docker save` as a stream."""
    extra = image.attrs["RootFS"]["Layers"][len(builder.attrs["RootFS"]["Layers"]):]
    wanted = {f"blobs/sha256/{d.split(':', 1)[1]}" for d in extra}
    found, entries = set(), []
    save = subprocess.Popen([DOCKER, "image", "save", image.id], stdout=subprocess.PIPE)
    try:
        with tarfile.open(fileobj=save.stdout, mode="r|") as outer:
            for member in outer:
                if member.name in wanted:
                    found.add(member.name)
                    with tarfile.open(fileobj=outer.extractfile(member), mode="r|") as layer:
                        entries += list(layer)
    finally:
        save.stdout.close()
        save.wait()
    assert found == wanted, f"docker save did not contain the layers {sorted(wanted - found)}"
    return entries


def changed_paths(entries: list[tarfile.TarInfo]) -> tuple[set[str], set[str], set[str]]:
    """(venvs whose vllm/ was replaced, paths removed, other paths changed), directories that are only
    the parents of a change left out."""
    names = [e.name.rstrip("/") for e in entries]
    vllm, removed, other = set(), set(), set()
    for entry, name in zip(entries, names):
        if m := VLLM_COPY.match(name):
            vllm.add(m.group(1))
        elif "/.wh." in f"/{name}":
            parent, _, leaf = name.rpartition("/")
            removed.add(f"{parent}/{leaf.removeprefix('.wh.')}".lstrip("/"))
        elif entry.isdir() and any(n.startswith(name + "/") for n in names):
            continue  # a parent directory, stored because something below it changed
        else:
            other.add(name)
    return vllm, removed, other


def test_published_stage_adds_at_most_a_quarter_of_opt(docker_client, hermetic_image, builder_image):
    added = hermetic_image.attrs["Size"] - builder_image.attrs["Size"]
    du = docker_client.containers.run(builder_image.id, ["-sb", "/opt"], entrypoint="du", network_mode="none",
                                      remove=True).decode()
    opt = int(du.split()[0])
    assert opt > 0
    assert added <= 0.25 * opt, f"the published stage adds {added} bytes, /opt holds {opt}"


def test_published_stage_changes_exactly_the_expected_paths(hermetic_image, builder_image):
    vllm, removed, other = changed_paths(published_entries(hermetic_image, builder_image))
    assert vllm == VLLM_VENVS, "private vLLM copies are made in exactly the venvs with the vllm extra"
    assert other == {"usr/local/bin"}, f"paths changed besides the vLLM copies: {sorted(other)}"
    assert all(ALLOWED_REMOVALS.match(p) for p in removed), f"unexpected removals: {sorted(removed)}"
