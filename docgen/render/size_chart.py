"""Size by layer and by venv as mermaid bar charts, from the image-size record (bench/image_size.py).

The record says which Dockerfile it measured (`dockerfile_digest`, the same digest the blocks' stamps
use for the Dockerfile), so the page can say whether the figures still describe the current Dockerfile.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docgen.model import ImageModel

_UNSAFE = re.compile(r"[^A-Za-z0-9 _./:+-]")
MAX_LABEL = 40


def _label(text: str) -> str:
    """A bar label mermaid accepts inside double quotes: no quotes, brackets or commas."""
    text = _UNSAFE.sub(" ", text).strip()
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 3].rstrip() + "..."


def _chart(title: str, bars: list[tuple[str, float]]) -> str:
    labels = ", ".join(f'"{_label(name)}"' for name, _ in bars)
    values = ", ".join(f"{kb:.1f}" for _, kb in bars)
    return ("```mermaid\nxychart-beta horizontal\n"
            f'    title "{title}"\n    x-axis [{labels}]\n    y-axis "kB"\n    bar [{values}]\n```\n')


def _venv_name(path: str) -> str:
    leaf = path.rstrip("/").rsplit("/", 1)[-1]
    return leaf.rsplit(".", 1)[-1] if "." in leaf else leaf


def dockerfile_digest(model: "ImageModel") -> str:
    from docgen.blocks.facts import InputDigests
    from docgen.render.generators import RenderInputs
    return InputDigests(RenderInputs(model))["dockerfile"]


def size_charts(model: "ImageModel", measurement: dict) -> str:
    """The two charts and a sentence tying them to what was measured; empty when the record has neither."""
    layers = [(str(l["step"]), l["bytes"] / 1e3) for l in measurement.get("layers") or () if l.get("bytes")]
    venvs = sorted(((_venv_name(p), b / 1e3) for p, b in (measurement.get("venvs") or {}).items()),
                   key=lambda item: (-item[1], item[0]))
    if not layers and not venvs:
        return ""
    out = []
    if layers:
        out.append("Size by layer, in build order (layers that add nothing left out):\n\n"
                   + _chart("Image layers (kB)", layers))
    if venvs:
        out.append("Size by venv (`du`: a venv that links into the uv cache counts only its links):\n\n"
                   + _chart("Venvs (kB)", venvs))
    recorded = measurement.get("dockerfile_digest")
    image = measurement.get("image_id", "an unrecorded image ID")
    if recorded and recorded == dockerfile_digest(model):
        tie = f"Measured on image `{image}`, built from the current Dockerfile (digest `{recorded}`)."
    elif recorded:
        tie = (f"Measured on image `{image}`, built from an earlier Dockerfile (digest `{recorded}`, now "
               f"`{dockerfile_digest(model)}`): re-run `bench/image_size.py --record` after building the image.")
    else:
        tie = "The record does not say which Dockerfile it measured: re-run `bench/image_size.py --record`."
    out.append(tie + "\n")
    return "\n".join(out)
