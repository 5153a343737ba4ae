"""NeMo-RL's actor registry written back as Python source, in upstream style: the three modules the
stand-in RL workspace ships so the image's prefetch reads the same registry the snapshot records.
The inverse of `docgen.snapshot.registry_source.read_registry_source`."""

import json
import re

from docgen.snapshot.registry import (
    EXECUTABLES_CLASS, GIT_ROOT_PLACEHOLDER, MODELOPT_MODULE, MODELOPT_PREFIX, MODELOPT_REGISTRY_NAME,
    REGISTRY_MODULE, REGISTRY_NAME, SYSTEM_COMMAND, SYSTEM_FLAG, UPSTREAM, VIRTUAL_CLUSTER, Registry, RegistryEntry,
)

_USE_SYSTEM = f'USE_SYSTEM_EXECUTABLE = os.environ.get("{SYSTEM_FLAG}", "0") == "1"'


def _literal(command: str) -> str:
    """A Python expression that evaluates to `command`, with {git_root} as an f-string field."""
    if command == SYSTEM_COMMAND:
        return "sys.executable"
    if GIT_ROOT_PLACEHOLDER not in command:
        return json.dumps(command, ensure_ascii=False)
    parts = (part.replace("{", "{{").replace("}", "}}") for part in command.split(GIT_ROOT_PLACEHOLDER))
    return "f" + json.dumps(GIT_ROOT_PLACEHOLDER.join(parts), ensure_ascii=False)


class _EntryValues:
    """Dict values for one module's entries, naming an alias for every flag-dependent pair."""

    def __init__(self, executables: dict[str, str]) -> None:
        self.executables = executables
        self.aliases: dict[tuple[str, str], str] = {}  # (system expr, default expr) -> alias

    def _expr(self, command: str, member: str | None) -> str:
        return f"{EXECUTABLES_CLASS}.{member}" if member else _literal(command)

    def value(self, entry: RegistryEntry) -> str:
        default = self._expr(entry.command, entry.member)
        same = [name for name, command in self.executables.items() if command == entry.command_system]
        system = self._expr(entry.command_system, same[0] if same else None)
        if system == default:
            return default
        if (system, default) not in self.aliases:
            stem = entry.member or "_".join(entry.extras).upper() or "INLINE"
            name = re.sub(r"\W", "_", stem) + "_EXECUTABLE"
            taken = set(self.aliases.values())
            name = next(f"{name}{n or ''}" for n in range(len(taken) + 1) if f"{name}{n or ''}" not in taken)
            self.aliases[system, default] = name
        return self.aliases[system, default]

    def alias_lines(self) -> list[str]:
        lines = []
        for (system, default), name in self.aliases.items():
            inner = f"    {system} if USE_SYSTEM_EXECUTABLE else {default}"
            split = [f"    {system}", "    if USE_SYSTEM_EXECUTABLE", f"    else {default}"]
            body = [inner] if len(inner) <= 88 else split
            lines += [f"{name} = (", *body, ")"]
        return lines + [""] if lines else []


def _dict_lines(entries: tuple[RegistryEntry, ...], values: _EntryValues, indent: str) -> list[str]:
    lines = []
    for entry in entries:
        comment = "" if entry.source == UPSTREAM else f"  # {entry.source}"
        lines.append(f"{indent}{json.dumps(entry.actor)}: {values.value(entry)},{comment}")
    return lines


def _module_text(doc: str, body: list[str]) -> str:
    text = "\n".join(body)
    wanted = ["import os", *(["import sys"] if "sys.executable" in text else []), ""]
    names = [EXECUTABLES_CLASS, *(["git_root"] if GIT_ROOT_PLACEHOLDER in text else [])]
    wanted.append(f"from nemo_rl.distributed.virtual_cluster import {', '.join(names)}")
    return "\n".join([f'"""{doc}"""', "", *wanted, "", _USE_SYSTEM, "", text]).rstrip() + "\n"


def render_registry_source(registry: Registry) -> dict[str, str]:
    """{relative path: Python source} of the three modules that `read_registry_source` reads back.

    Actors under nemo_rl.modelopt. go to the modelopt registry (merged after the main dict, as
    upstream does); entries that follow them in the registry order are merged by a last update.
    """
    for entry in registry.entries:
        if entry.source != UPSTREAM and not entry.source.startswith("fork "):
            raise ValueError(f"{entry.actor}: source {entry.source!r} cannot be written as a comment")
    entries = registry.entries
    is_modelopt = [entry.actor.startswith(MODELOPT_PREFIX) for entry in entries]
    start = is_modelopt.index(True) if True in is_modelopt else len(entries)
    end = next((i for i in range(start, len(entries)) if not is_modelopt[i]), len(entries))
    main, modelopt, tail = entries[:start], entries[start:end], entries[end:]

    cluster = [
        '"""Where Ray actors get their Python: PY_EXECUTABLES (docgen stand-in)."""',
        "",
        "import os",
        "import sys",
        "",
        'git_root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))',
        "",
        "",
        f"class {EXECUTABLES_CLASS}:",
        *([f"    {name} = {_literal(command)}" for name, command in registry.executables.items()] or ["    pass"]),
    ]

    values = _EntryValues(registry.executables)
    body = [f"{REGISTRY_NAME}: dict[str, str] = {{", *_dict_lines(main, values, "    "), "}", ""]
    body += [
        "# The modelopt actors live in their own registry, merged after the dict above.",
        f"from nemo_rl.modelopt.registry import {MODELOPT_REGISTRY_NAME}  # noqa: E402",
        "",
        f"{REGISTRY_NAME}.update({MODELOPT_REGISTRY_NAME})",
    ]
    if tail:
        body += ["", f"{REGISTRY_NAME}.update(", "    {", *_dict_lines(tail, values, "        "), "    }", ")"]
    body = values.alias_lines() + body

    modelopt_values = _EntryValues(registry.executables)
    modelopt_body = [f"{MODELOPT_REGISTRY_NAME} = {{", *_dict_lines(modelopt, modelopt_values, "    "), "}"]
    modelopt_body = modelopt_values.alias_lines() + modelopt_body

    return {
        VIRTUAL_CLUSTER: "\n".join(cluster) + "\n",
        REGISTRY_MODULE: _module_text("Python executable of every Ray actor (docgen stand-in).", body),
        MODELOPT_MODULE: _module_text("Python executables of modelopt actors (docgen stand-in).", modelopt_body),
    }
