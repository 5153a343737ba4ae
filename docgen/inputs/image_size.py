"""The image-size record (`bench/image_size.py --record`): what a real build of the image measured."""

from __future__ import annotations

import math
from pathlib import Path

from docgen.errors import InputError
from docgen.io import read_json_object


def load_image_size(path: Path, shown: str) -> dict | None:
    """The record, or None when there is none yet. Sizes must be finite, non-negative numbers of bytes;
    `inputs` (the digests of what the image was built from) maps names to strings. A record whose inputs
    are not the current ones is still valid: the page says so (docgen.render.size_chart.not_current_note)."""
    if not (path.exists() or path.is_symlink()):
        return None
    text, data = read_json_object(path, "the image-size record")

    def fail(key: str, message: str) -> InputError:
        found = text.find(f'"{key}"')
        return InputError(shown, text.count("\n", 0, found) + 1 if found >= 0 else 1, message)

    def check_size(key: str, value) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise fail(key, f"{key}: expected a size in bytes, got {value!r}")

    for key in ("parts", "production"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise fail(key, f"{key}: expected a JSON object, got {data[key]!r}")
    if data.get("size_bytes") is not None:
        check_size("size_bytes", data["size_bytes"])
    for name, value in (data.get("parts") or {}).items():
        check_size(name, value)
    if (data.get("production") or {}).get("size_bytes") is not None:
        check_size("size_bytes", data["production"]["size_bytes"])
    inputs = data.get("inputs")
    if inputs is not None and not (isinstance(inputs, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in inputs.items())):
        raise fail("inputs", 'inputs: expected {"dockerfile": DIGEST, "snapshot": DIGEST}, '
                             f"got {inputs!r}")
    if data.get("venvs") is not None and not isinstance(data["venvs"], dict):
        raise fail("venvs", f"venvs: expected a JSON object, got {data['venvs']!r}")
    for name, value in (data.get("venvs") or {}).items():
        check_size(name, value)
    layers = data.get("layers")
    if layers is not None and not (isinstance(layers, list) and all(
            isinstance(l, dict) and isinstance(l.get("step"), str) for l in layers)):
        raise fail("layers", 'layers: expected a list of {"step": ..., "bytes": ...} objects')
    for layer in layers or ():
        check_size("layers", layer.get("bytes"))
    return data
