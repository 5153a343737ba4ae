"""The other files of the repository the pages quote (docgen/inputs/quoted.py): what each states as facts."""

from __future__ import annotations

import pytest

from docgen.inputs.quoted import QuotedFile, assignments, comment_blocks, target_attributes
from docgen.inputs.scripts import program_name, roles
from docgen.inputs.shellwords import split_words

BAKE = '''\
// Build targets (see scripts/check-engine).
variable "OUT" {
  default = "build/out"
}
target "_base" {
  dockerfile = "Dockerfile"
}
target "ci" {
  inherits = ["_base"]
  contexts = {
    src = "${OUT}"
  }
  args = {
    PY = "3.13"
  }
  tags   = ["img:ci", "img:latest"] // two tags
  cache-to = OUT == "" ? [] : ["type=local,dest=${OUT}"]
}
'''


def test_every_literal_attribute_of_every_target_is_read():
    assert target_attributes(BAKE) == [
        ("_base", "dockerfile", "Dockerfile", 6),
        ("ci", "inherits", "_base", 9),
        ("ci", "contexts.src", "build/out", 11),        # ${OUT} from the variable's default
        ("ci", "tags", "img:ci", 16),
        ("ci", "tags", "img:latest", 16),
        ("ci", "cache-to", "type=local,dest=build/out", 17),   # each string a conditional may give
    ]   # args are assignments (below)


def test_a_group_is_a_target_fact_valued_by_the_targets_it_builds():
    """`group "default"`: what a bare `docker buildx bake` builds. Its `targets` are its value (a sentence about
    the default target is reviewed when it builds another), not attributes whose value names the group."""
    bake = BAKE + 'group "default" {\n  targets = ["ci", "other"]\n}\n'
    facts = {f.subject: f.value for f in QuotedFile("x.hcl", bake).facts if f.kind == "target"}
    assert facts == {"x.hcl:ci": "sets args, cache-to, contexts, inherits, tags", "x.hcl:default": "builds ci, other"}
    assert target_attributes(bake) == target_attributes(BAKE)


def test_a_list_written_over_several_lines_is_read_as_one_in_a_target_and_in_a_group():
    """HCL lets a list run over lines (one string a line, a trailing comma): each of its strings is an attribute
    value at the list's first line, and a group's members are read the same way."""
    bake = BAKE + ('target "wide" {\n  tags = [\n    "img:one",\n    "img:two", // the second\n  ]\n'
                   '  output = ["type=docker"]\n}\n'
                   'group "default" {\n  targets = [\n    "ci",\n    "wide",\n  ]\n}\n')
    assert target_attributes(bake)[len(target_attributes(BAKE)):] == [
        ("wide", "tags", "img:one", 20), ("wide", "tags", "img:two", 20), ("wide", "output", "type=docker", 24)]
    facts = {f.subject: f.value for f in QuotedFile("x.hcl", bake).facts if f.kind == "target"}
    assert facts["x.hcl:default"] == "builds ci, wide" and facts["x.hcl:wide"] == "sets output, tags"
    # a comment is cut after a line's last string, not inside one
    remote = 'target "r" {\n  cache-to = [\n    "type=registry,ref=http://x/y", # remote\n    "a#b",\n  ]\n}\n'
    assert target_attributes(remote) == [("r", "cache-to", "type=registry,ref=http://x/y", 2), ("r", "cache-to", "a#b", 2)]


def test_assignments_and_defaults_of_scripts_and_bake_files():
    assert ("PY", "3.13", 14) in assignments(BAKE) and ("OUT", "build/out", 2) in assignments(BAKE)
    script = 'MIN=28.5.0\nDIR=${DIR:-build/x}\nNEXT=$MIN\n'
    # `${DIR:-build/x}` is read as its default; `NEXT=$MIN` copies another variable and states nothing
    assert assignments(script) == [("MIN", "28.5.0", 1), ("DIR", "build/x", 2)]



def test_a_path_relative_to_the_scripts_own_location_is_read_from_the_repository():
    script = ('ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)\n'
              'HERE="$(cd "$(dirname "$0")" && pwd)"\n'
              'SITE_DIR=${1:-$ROOT/site}\n'
              'JS_DIR=$ROOT/docs/assets/js\n'
              'OUT=${OUT:-"$HERE/out"}\n'
              'TOOL=$ROOT/$NAME/bin\n'
              'PIP=${PIP:-$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/pip}\n')
    # the location variables themselves state nothing; a positional default is the assigned variable's;
    # a path built on another, unknown variable states nothing either
    assert assignments(script, "tools/build") == [("SITE_DIR", "site", 3), ("JS_DIR", "docs/assets/js", 4),
                                                    ("OUT", "tools/out", 5), ("PIP", ".venv/bin/pip", 7)]
    # without the file's path, where the script lives is unknown
    assert assignments(script) == []

def test_comment_blocks_are_runs_of_whole_line_comments_without_the_shebang():
    text = "#!/usr/bin/env bash\n# One. Two\n#   three.\nx=1  # trailing\n\n// hcl\n"
    assert comment_blocks(text) == [(2, "One. Two three."), (6, "hcl")]


def test_each_comment_sentence_long_enough_to_be_copied_is_a_fact_keyed_by_its_first_words():
    text = "# Set up the machine from scratch, twice if you like. Short one.\n# Then it runs each step in order.\n"
    facts = [f for f in QuotedFile("bin/setup", text).facts if f.kind == "comment"]
    assert [(f.subject, f.value, f.origin) for f in facts] == [
        ("bin/setup: set up the machine from scratch…", "Set up the machine from scratch, twice if you like.",
         "bin/setup:1"),
        ("bin/setup: then it runs each step in…", "Then it runs each step in order.", "bin/setup:1"),
    ]   # "Short one." has fewer words than a copy is made of


def test_each_long_option_a_script_passes_is_a_fact_of_the_program_it_is_passed_to():
    """`"$MKDOCS" build --strict`: the option is passed to mkdocs; an option in a quoted string or a comment is
    text, not an option; the command starts after `$(`, `if` or an assignment."""
    script = ('"$MKDOCS" build --strict -d "$OUT"   # --quiet would hide warnings\n'
              'printf \'%s\\n\' "use --force to overwrite"\n'
              'if ! out=$("$DOCKER" version --format x); then exit 1; fi\n'
              'LC_ALL=C sort --unique list\n'
              'for page in --a --b; do sudo mkdocs serve --dirty; done\n')
    facts = [(f.subject, f.value, f.names) for f in QuotedFile("tools/build", script).facts if f.kind == "option"]
    assert facts == [("tools/build: mkdocs --strict", "mkdocs", ("--strict",)),
                     ("tools/build: docker --format", "docker", ("--format",)),
                     ("tools/build: sort --unique", "sort", ("--unique",)),
                     # `for NAME in WORDS`: no command until `do`; `sudo` runs the next word as the command
                     ("tools/build: mkdocs --dirty", "mkdocs", ("--dirty",))]


def test_a_case_arm_and_a_redirection_target_are_no_commands():
    """The one walk over a command line's words (scripts.roles): `download)` is a case arm's pattern, the word
    after `>` a file, and the command goes on after a redirection."""

    def commands(line: str) -> list[str]:
        return [w for _, w, role in roles([w for w, _ in split_words(line, operators=True)]) if role == "command"]
    assert commands('case "$X" in download) curl -o a b ;; *) echo no ;; esac; ls > /dev/null') == ["curl", "echo", "ls"]
    assert commands("  download)") == []
    assert commands("uv sync --frozen 2> /dev/null && sudo mkdocs build") == ["uv", "sudo", "mkdocs"]


@pytest.mark.parametrize(("word", "name"), [
    ("mkdocs", "mkdocs"), ("/usr/bin/env", "env"), ('"$MKDOCS"', "mkdocs"), ("${UV_BIN}", "uv_bin"),
    ("./Run.sh", "run.sh"), ("$((copied + 1))", ""), ("$(date)", ""), ("[", ""), ("", ""),
])
def test_a_program_is_named_by_its_last_path_part_or_its_variable_in_lower_case(word, name):
    """The one program-name rule: a RUN step's `runs` facts and a script's options and exit statuses both name
    the program the way it reads here."""
    assert program_name(word) == name
