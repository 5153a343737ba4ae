"""Package, extra and group names as uv.lock writes them (PEP 503 normalisation, PEP 685 for extras)."""

import re

_SEPARATORS = re.compile(r"[-_.]+")


def normalize(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower()
