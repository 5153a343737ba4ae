"""The image-size figures the docs render come from a real build. Run after `bench/image_size.py --record`
(the docs workflow's image job records right after its build), the record must describe the image this
checkout builds. Without an engine, a record of older inputs is no failure anywhere: the size page says so
(tests/test_churn.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "docs/data/image-size.json"


@pytest.mark.image
def test_recorded_size_is_the_built_images(hermetic_image):
    from docgen.model.build import load_model
    from docgen.model.digests import input_digest

    record = json.loads(RECORD.read_text())
    current = input_digest(load_model(ROOT / "Dockerfile.nmp-rl-base", ROOT / "snapshot/nemo-rl.json"))
    assert record["inputs"] == current, (
        "the record measured other inputs: run bench/image_size.py --record after building the image, then "
        "docgen write")
    built = hermetic_image.attrs["Size"]
    # the base image is made by debootstrap from the current trixie, so a few MB may move between builds
    assert abs(built - record["size_bytes"]) <= 0.1 * record["size_bytes"], (
        f"built image is {built} bytes, docs say {record['size_bytes']}: "
        "run bench/image_size.py --record and docgen write")
    layers = record["layers"]
    assert sum(l["bytes"] for l in layers) == record["size_bytes"], "the layers must add up to the recorded size"
