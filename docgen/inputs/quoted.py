"""Other files of the repository whose values the pages quote (`quoted` in `[tool.docgen]`): a shell script's
assignments and `${NAME:-default}` defaults, an HCL (bake) file's variable defaults and targets, and each
sentence of its comments (what the file says of itself, which a page may repeat), as facts."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, NamedTuple

from docgen.fact import SHINGLE, Fact, shingle_words, spoken
from docgen.inputs.scripts import program_name, roles, shell_code
from docgen.inputs.shellwords import expand_references, split_words
from docgen.text import line_at, sentences, split_lines

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator


class QuotedFile(NamedTuple):
    path: str     # as reports show it
    text: str

    @property
    def facts(self) -> tuple[Fact, ...]:
        out = [Fact("quoted", f"{self.path}:{name}", value, f"{self.path}:{line}", (name,), (spoken(name),))
               for name, value, line in assignments(self.text, self.path)]
        attributes, every_key = target_attributes(self.text), target_keys(self.text)
        builds = {name: _HCL_STRING.findall(m.group(3) or "") for block, name, _, m, _ in _blocks(self.text)
                  if block == "group" and m.group(1) == "targets"}   # what a group builds, in its order
        for m in _HCL_TARGET.finditer(self.text):
            block, name = m.groups()
            if name.startswith("_"):   # `_image`: an abstract base, no target a page may name
                continue
            if block == "group":
                value = f"builds {', '.join(builds.get(name, ())) or 'nothing'}"
            else:
                value = f"sets {', '.join(sorted(set(every_key.get(name, ())))) or 'nothing'}"
            out.append(Fact("target", f"{self.path}:{name}", value, f"{self.path}:{line_at(self.text, m.start())}", (name,)))
        if not self.path.endswith(".hcl"):   # a script's options and exit statuses, in its code (its comments are
            seen: dict[tuple[str, str], int] = {}   # facts below)
            statuses: dict[str, int] = {}
            for number, line_text in enumerate(split_lines(self.text), 1):
                for program, word in _commands(shell_code(line_text)):
                    if program == "exit" and word.isdigit():
                        statuses.setdefault(word, number)
                    elif program and (option := _LONG_OPTION.match(word)):
                        seen.setdefault((program, option.group(0)), number)
            out += [Fact("option", f"{self.path}: {program} {option}", program, f"{self.path}:{number}", (option,))
                    for (program, option), number in seen.items()]
            if statuses:
                out.append(Fact("exit", f"{self.path}: exit", ", ".join(sorted(statuses, key=int)),
                                f"{self.path}:{min(statuses.values())}",
                                (self.path, posixpath.basename(self.path))))
        for target, key, value, line in attributes:
            # named by its value where that is distinctive (a tag, a path): `tags`, `output` are everyday words
            out.append(Fact("quoted", f"{self.path}:target {target}.{key}", value, f"{self.path}:{line}"))
        return (*out, *comment_facts(self.path, comment_blocks(self.text)))


def comment_facts(path: str, blocks: "Iterable[tuple[int, str]]") -> list[Fact]:
    """Each sentence of a file's comment blocks (`comment_blocks`), as a fact a page that repeats six words of it
    in a row is tied to: what the file says of itself (the Dockerfile's comments too)."""
    out = []
    for line, block in blocks:
        for _, sentence in sentences([block]):   # the one sentence rule of the pages (docgen/text.py)
            words = shingle_words(sentence)   # as shingles read it; a key holds no ", "
            if len(words) >= SHINGLE:   # shorter than a shingle: it cannot be repeated as one
                out.append(Fact("comment", f"{path}: {' '.join(words[:SHINGLE])}…", sentence, f"{path}:{line}"))
    return out


# A file of the repository the pages quote values from: shell or HCL assignments, and HCL variable defaults.
_ASSIGN = re.compile(r"""^\s*(?:export\s+|readonly\s+|local\s+)?([A-Z_][A-Z0-9_]*)\s*(=|\s=\s?)\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#;]+))""",
                     re.M)
_SHELL_DEFAULT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=]([^}\n]*)\}")
# `$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)`: where the script is (and `/..` above it)
_LOCATION = (r"""\$\(cd "?\$\(dirname "?\$(?:\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE|0|\{0\})"?\)([/.]*)"? """
             r"""&& pwd(?: -P)?\)""")
_SCRIPT_LOCATION = re.compile(rf"""^\s*(?:export\s+|readonly\s+|local\s+)?([A-Z_][A-Z0-9_]*)="?{_LOCATION}"?\s*$""", re.M)
_LOCATION_IN = re.compile(_LOCATION)
_LONG_OPTION = re.compile(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?==|$)")   # `--strict`, `--no-deps`, `--out=DIR`


def _commands(code: str) -> "Iterator[tuple[str, str]]":
    """(program, argument) for each argument of a line of shell code, read by the shell's own words (`roles`),
    the program as `program_name` reads it ("" when it is none); a quoted string is one word, and a line inside
    one that runs on gives none."""
    if "--" not in code and "exit" not in code:   # all that is asked of them: long options, `exit N`
        return
    try:
        words = split_words(code, operators=True)
    except ValueError:   # a quote this line opens or closes: the rest of a string over several lines
        return
    program = ""
    for _, word, role in roles([w for w, _ in words]):
        if role == "command":
            program = program_name(word)
        elif role == "argument" and program:
            yield program, word


# a target, or a group of them (`group "default"`: what a bare `docker buildx bake` builds), both named on bake's command line
_HCL_TARGET = re.compile(r'^\s*(target|group)\s+"([\w.-]+)"\s*\{', re.M)
_HCL_VARIABLE = re.compile(r'variable\s+"([A-Za-z_][\w-]*)"\s*\{[^}]*?\bdefault\s*=\s*"([^"\n]*)"', re.S)


def assignments(text: str, path: str = "") -> list[tuple[str, str, int]]:
    """(name, value, line) for every assignment and default in a shell script or an HCL (bake) file. A value
    built on the script's own location (`ROOT=$(cd "$(dirname "$0")/.." && pwd)`, then `$ROOT/site`) is the
    path from the repository's top (`site`), given the file's `path` there; `NAME=${1:-default}` is NAME's
    default. A value that copies another variable states nothing."""
    located = {m.group(1): _where(path, m.group(2)) for m in _SCRIPT_LOCATION.finditer(text)} if path else {}
    out: list[tuple[str, str, int]] = []
    for m in _ASSIGN.finditer(text):
        value = next(g for g in (m.group(3), m.group(4), m.group(5)) if g is not None)
        out.append((m.group(1), value, line_at(text, m.start(1))))
    for m in _SHELL_DEFAULT.finditer(text):
        out.append((m.group(1), m.group(2), line_at(text, m.start())))
    for m in _HCL_VARIABLE.finditer(text):
        out.append((m.group(1), m.group(2), line_at(text, m.start())))
    found = ((n, _from_top(v, path, located), line) for n, v, line in out if n not in located)
    return list(dict.fromkeys((n, v, line) for n, v, line in found if not v.startswith("$")))   # "": set empty on purpose


def _where(path: str, up: str) -> str:
    """The folder `$(cd "$(dirname "$0")UP" && pwd)` names in the script at `path`, from the repository's top."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), up.lstrip("/")))


def _from_top(value: str, path: str, located: dict[str, str]) -> str:
    """`value` expanded as the shell would (a default form gives its default), the script's location (a variable
    that holds it, or the command itself) the only thing known: a path from the repository's top, or the value
    as it is when it needs anything else."""
    value = value.strip("\"'")
    if "$" not in value:
        return value
    if path:
        value = _LOCATION_IN.sub(lambda m: _where(path, m.group(1)), value)
    path, unknown = expand_references(value, located.get)
    path = path.strip("\"'")
    if unknown or "$" in path or path == ".":
        return value
    return posixpath.normpath(path) if "/" in path and "://" not in path else path


_COMMENT_LINE = re.compile(r"^[ \t]*(?:#(?!!)|//)[ \t]?(.*)$")


def comment_blocks(text: str) -> list[tuple[int, str]]:
    """(first line, text with blanks collapsed) of every run of whole-line comments (`#`, and `//` of HCL; not a
    `#!` line)."""
    blocks: list[tuple[int, str]] = []
    start, lines = 0, []
    for number, line in enumerate([*split_lines(text), ""], 1):
        m = _COMMENT_LINE.match(line)
        if m:
            start = start or number
            lines.append(m.group(1))
        elif lines:
            blocks.append((start, " ".join(" ".join(lines).split())))
            start, lines = 0, []
    return blocks


_HCL_ATTRIBUTE = re.compile(r'^\s*([a-z][\w-]*)\s*=\s*(?:"([^"\n]*)"|\[([^\]\n]*)\]|(\{)\s*$|(?=\S))')   # or an expression
_HCL_STRING = re.compile(r'"([^"\n]*)"')
_HCL_CLOSE = re.compile(r"^\s*\}")
_HCL_OPEN_LIST = re.compile(r'^\s*[a-z][\w-]*\s*=\s*\[[^\]"]*(?:"[^"\n]*"[^\]"]*)*$')   # a list not closed on its line
_HCL_COMMENT = re.compile(r'\s*(?://|#)[^"]*$')   # at a line's end, after its last string
_HCL_INTERPOLATION = re.compile(r"\$\{([A-Za-z_][\w-]*)\}")


def target_attributes(text: str) -> list[tuple[str, str, str, int]]:
    """(target, key, value, line) of every literal attribute of every bake target: a string, each string of a
    list (`tags`, `output`), each entry of a map (`contexts.nemo-rl`), of abstract targets (`_image`) too, whose
    attributes the others inherit; `${VAR}` read from the file's variable defaults. The `args` map is left out:
    its entries are the file's assignments already. An expression (a conditional, a function call) gives each
    string written in it."""
    defaults = {m.group(1): m.group(2) for m in _HCL_VARIABLE.finditer(text)}

    def literal(value: str) -> str:
        return _HCL_INTERPOLATION.sub(lambda m: defaults.get(m.group(1), m.group(0)), value)

    out: list[tuple[str, str, str, int]] = []
    for target, inside, m, number in _target_lines(text):
        key, string, listed, _ = m.groups()
        if inside and inside != "args" and string is not None:
            out.append((target, f"{inside}.{key}", literal(string), number))
        elif not inside and string is not None:
            out.append((target, key, literal(string), number))
        elif not inside and listed is not None:
            out += [(target, key, literal(v), number) for v in _HCL_STRING.findall(listed)]
        elif not inside and not m.group(4):   # an expression (`X == "" ? [] : ["..."]`): each string it may give
            out += [(target, key, literal(v), number) for v in _HCL_STRING.findall(m.string, m.end())]
    return [(t, k, v, n) for t, k, v, n in out if v and "${" not in v]


def target_keys(text: str) -> dict[str, list[str]]:
    """The names of the attributes each bake target sets itself, literal or not (`cache-to = X ? [] : [...]`)."""
    keys: dict[str, list[str]] = {}
    for target, inside, m, _ in _target_lines(text):
        if not inside:
            keys.setdefault(target, []).append(m.group(1))
    return keys


def _target_lines(text: str) -> "Iterator[tuple[str, str, re.Match[str], int]]":
    """(target, the map it is inside or "", the attribute's match, line) of every attribute line of every target
    (a group's `targets` are its fact's value)."""
    return ((name, inside, m, number) for block, name, inside, m, number in _blocks(text) if block == "target")


def _blocks(text: str) -> "Iterator[tuple[str, str, str, re.Match[str], int]]":
    """(block, its name, the map it is inside or "", the attribute's match, line) of every attribute of every
    target and group; a list written over several lines is read as one, at its first line."""
    lines, block, name, depth, inside = split_lines(text), "", "", 0, ""
    at = 0
    while at < len(lines):
        line, number = lines[at], at + 1
        at += 1
        if depth == 0:
            if m := _HCL_TARGET.match(line):
                block, name, depth = m.group(1), m.group(2), 1
            continue
        if _HCL_CLOSE.match(line):
            depth, inside = depth - 1, ""
            continue
        while _HCL_OPEN_LIST.match(line) and at < len(lines):   # `key = [` with its strings on the lines below
            line, at = f"{line} {_HCL_COMMENT.sub('', lines[at]).strip()}", at + 1
        if (m := _HCL_ATTRIBUTE.match(line)) is None:
            continue
        yield block, name, inside if depth == 2 else "", m, number
        if m.group(4):   # `key = {` opens a map
            depth, inside = 2, m.group(1)