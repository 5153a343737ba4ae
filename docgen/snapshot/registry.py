"""NeMo-RL's actor registry: which Python executable each Ray actor runs under.

Two inputs give the same `Registry`:
- the RL source tree, read with `ast` by `docgen.snapshot.registry_source.read_registry_source`;
- the facts file (`registry.json`) that stands in for the source where the source is unavailable,
  read here by `read_registry_json`.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import NamedTuple

from docgen.errors import InputError
from docgen.io import read_json_object
from docgen.text import line_at

SYSTEM_COMMAND = "sys.executable"
SYSTEM_FLAG = "NEMO_RL_PY_EXECUTABLES_SYSTEM"
GIT_ROOT_PLACEHOLDER = "{git_root}"
UPSTREAM = "upstream"

VIRTUAL_CLUSTER = "nemo_rl/distributed/virtual_cluster.py"
REGISTRY_MODULE = "nemo_rl/distributed/ray_actor_environment_registry.py"
MODELOPT_MODULE = "nemo_rl/modelopt/registry.py"
# Every module whose text can change the registry (e.g. for a content digest).
REGISTRY_SOURCES = (VIRTUAL_CLUSTER, REGISTRY_MODULE, MODELOPT_MODULE)
EXECUTABLES_CLASS = "PY_EXECUTABLES"
REGISTRY_NAME = "ACTOR_ENVIRONMENT_REGISTRY"
MODELOPT_REGISTRY_NAME = "MODELOPT_ACTOR_REGISTRY"
MODELOPT_PREFIX = "nemo_rl.modelopt."   # actors registered by the modelopt module, not the main registry
_JSON_SYSTEM_KEY = f"with_{SYSTEM_FLAG}=1"
_JSON_ENTRY_KEYS = ("actor", "py_executable", "command", _JSON_SYSTEM_KEY, "source")


def extras_of(command: str) -> tuple[str, ...]:
    """Every `--extra X` (or `--extra=X`) of a uv command, in order."""
    tokens = shlex.split(command)
    extras = [tokens[i + 1] for i, tok in enumerate(tokens[:-1]) if tok == "--extra"]
    extras += [tok.partition("=")[2] for tok in tokens if tok.startswith("--extra=")]
    return tuple(extras)


class RegistryEntry(NamedTuple):
    actor: str
    member: str | None  # PY_EXECUTABLES member of the default variant; None for an inline command
    command: str  # NEMO_RL_PY_EXECUTABLES_SYSTEM unset
    command_system: str  # NEMO_RL_PY_EXECUTABLES_SYSTEM=1
    source: str  # 'upstream' or 'fork <ref>'
    file: str
    line: int | None   # None: a snapshot whose registry spells the actor so that no line holds it

    @property
    def extras(self) -> tuple[str, ...]:
        return extras_of(self.command)

    @property
    def extras_system(self) -> tuple[str, ...]:
        return extras_of(self.command_system)

    @property
    def is_system(self) -> bool:
        return self.command == SYSTEM_COMMAND


class Registry(NamedTuple):
    executables: dict[str, str]  # PY_EXECUTABLES member -> command, in class-body order
    entries: tuple[RegistryEntry, ...]  # ACTOR_ENVIRONMENT_REGISTRY order after every update

    def get(self, fqn: str) -> RegistryEntry:
        for entry in self.entries:
            if entry.actor == fqn:
                return entry
        raise KeyError(fqn)


# ---------------------------------------------------------------------------------------------
# Facts-file reader


def _key_line(text: str, key: str) -> int:
    match = re.search(rf'"{re.escape(key)}"\s*:', text)
    return line_at(text, match.start()) if match else 1


def _entry_lines(text: str) -> list[int]:
    """Line of each element of the "registry" array, found by decoding it element by element."""
    match = re.search(r'"registry"\s*:\s*\[', text)
    if not match:
        return []
    decoder, pos = json.JSONDecoder(), match.end()
    lines: list[int] = []
    separators = re.compile(r"[\s,]*")
    while True:
        skipped = separators.match(text, pos)
        assert skipped is not None   # `*`: it matches everywhere, if only the empty string
        pos = skipped.end()
        if pos >= len(text) or text[pos] == "]":
            return lines
        lines.append(line_at(text, pos))
        try:
            pos = decoder.raw_decode(text, pos)[1]
        except ValueError:
            return lines


def read_registry_json(path: str | Path) -> Registry:
    """The registry from the facts file (format of nemo-rl-ref/registry.json)."""
    path = Path(path)
    text, data = read_json_object(path, "registry facts")

    executables = data.get("py_executables")
    if not (
        isinstance(executables, dict)
        and all(isinstance(k, str) and k.isidentifier() and isinstance(v, str) for k, v in executables.items())
    ):
        message = "'py_executables' must map member names to commands"
        raise InputError(path, _key_line(text, "py_executables"), message)
    rows = data.get("registry")
    if not isinstance(rows, list):
        raise InputError(path, _key_line(text, "registry"), "'registry' must be a list of entries")

    lines = _entry_lines(text)
    entries: list[RegistryEntry] = []
    seen: set[str] = set()
    for index, row in enumerate(rows):
        line = lines[index] if index < len(lines) else _key_line(text, "registry")

        def bad(message: str) -> InputError:
            return InputError(path, line, f"registry entry {index}: {message}")

        if not isinstance(row, dict):
            raise bad("expected an object")
        missing = [key for key in _JSON_ENTRY_KEYS if key not in row]
        if missing:
            raise bad(f"missing key {missing[0]!r}")
        member = row["py_executable"]
        strings = [row[key] for key in _JSON_ENTRY_KEYS if key != "py_executable"]
        if not all(isinstance(value, str) for value in strings) or not isinstance(member, (str, type(None))):
            raise bad("values must be strings (py_executable: a string or null)")
        if member is not None and member not in executables:
            raise bad(f"unknown {EXECUTABLES_CLASS} member {member!r}")
        if member is not None and executables[member] != row["command"]:
            raise bad(f"command differs from {EXECUTABLES_CLASS}.{member}")
        if row["source"] != UPSTREAM and not row["source"].startswith("fork "):
            raise bad(f"source must be {UPSTREAM!r} or 'fork <ref>', not {row['source']!r}")
        if row["actor"] in seen:   # a set: the check stays linear in the number of entries
            raise bad(f"duplicate actor {row['actor']}")
        seen.add(row["actor"])
        entries.append(
            RegistryEntry(
                row["actor"], member, row["command"], row[_JSON_SYSTEM_KEY], row["source"], str(path), line
            )
        )
    return Registry(dict(executables), tuple(entries))
