"""The image-size figures the docs render come from a real build: the recorded measurement must still
describe the image this checkout builds (re-record with `bench/image_size.py --record` when it moves)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RECORD = Path(__file__).resolve().parents[2] / "docs/data/image-size.json"


@pytest.mark.image
def test_recorded_size_is_the_built_images(hermetic_image):
    record = json.loads(RECORD.read_text())
    assert record["image"] == "nmp-rl-base:hermetic"
    built = hermetic_image.attrs["Size"]
    # the base image is made by debootstrap from the current trixie, so a few MB may move between builds
    assert abs(built - record["size_bytes"]) <= 0.1 * record["size_bytes"], (
        f"built image is {built} bytes, docs say {record['size_bytes']}: "
        "run bench/image_size.py --record and docgen write")
