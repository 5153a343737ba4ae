"""The image-size record (`bench/image_size.py --record`): what a real build of the image measured."""

from __future__ import annotations

import math
from pathlib import Path

from docgen.errors import InputError
from docgen.io import read_json_object
from docgen.text import line_at


def load_image_size(path: Path, shown: str) -> dict | None:
    """The record, or None when there is none yet. Sizes must be finite, non-negative numbers of bytes;
    `inputs` (the digests of what the image was built from) maps names to strings. A record whose inputs
    are not the current ones is still valid: the page says so (docgen.render.size_chart.not_current_note).

    `production`, optional, is a measurement of the real image taken elsewhere, in the same shape as the
    record (`size_bytes`, `parts`, `layers`, `venvs`, `inputs`, and the text fields `image`, `platform`,
    `measured_at`, `where`), checked by the same rules; the size page shows it first."""
    if not (path.exists() or path.is_symlink()):
        return None
    text, data = read_json_object(path, "the image-size record")

    def fail(key: str, message: str, within: str = "") -> InputError:
        # the line of the key's first occurrence, after the enclosing object's key when there is one
        start = text.find(f'"{within}"') if within else 0
        found = text.find(f'"{key}"', max(start, 0))
        return InputError(shown, line_at(text, found) if found >= 0 else 1, message)

    production = data.get("production")
    if production is not None and not isinstance(production, dict):
        raise fail("production", f"production: expected a JSON object, got {production!r}")
    check_measurement(data, fail, "")
    if production is not None:
        if "production" in production:
            raise fail("production", "production: a production measurement holds no production of its own",
                       "production")
        check_measurement(production, fail, "production")
    return data


def check_measurement(data: dict, fail, within: str) -> None:
    """One measurement's fields; `within` names the enclosing key in messages ("production.size_bytes")."""
    prefix = f"{within}." if within else ""

    def bad(key: str, message: str) -> InputError:
        return fail(key, prefix + message, within)

    def check_size(key: str, value) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise bad(key, f"{key}: expected a size in bytes, got {value!r}")

    for key in ("parts", "venvs"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise bad(key, f"{key}: expected a JSON object, got {data[key]!r}")
        for name, value in (data.get(key) or {}).items():
            check_size(name, value)
    if data.get("size_bytes") is not None:
        check_size("size_bytes", data["size_bytes"])
    for key in ("image", "image_id", "platform", "measured_at", "where", "commit"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise bad(key, f"{key}: expected a string, got {data[key]!r}")
    inputs = data.get("inputs")
    if inputs is not None and not (isinstance(inputs, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in inputs.items())):
        raise bad("inputs", 'inputs: expected {"dockerfile": DIGEST, "snapshot": DIGEST}, '
                            f"got {inputs!r}")
    layers = data.get("layers")
    if layers is not None and not (isinstance(layers, list) and all(
            isinstance(l, dict) and isinstance(l.get("step"), str) for l in layers)):
        raise bad("layers", 'layers: expected a list of {"step": ..., "bytes": ...} objects')
    for layer in layers or ():
        check_size("layers", layer.get("bytes"))
