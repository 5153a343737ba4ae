"""Console transcript parsing and matching: no Docker needed."""

import pytest

from docgen.console.parser import (
    BlockOptions, find_blocks, output_matches, parse_steps, render_steps, slugify,
)
from docgen.errors import InputError


def blocks(text: str) -> list:
    return list(find_blocks(text, "page.md"))


def test_commands_outputs_and_lines():
    text = "# Title\n\n```console\n$ echo a\na\n$ true\n```\n"
    [block] = blocks(text)
    assert block.line == 3 and block.heading == "title" and block.number == 1
    assert [(s.command, s.expected, s.exit_status, s.line) for s in block.steps] == [
        ("echo a", ("a",), 0, 4),
        ("true", (), 0, 6),
    ]
    assert text[block.start:block.end] == "```console\n$ echo a\na\n$ true\n```\n"
    assert text[block.body_start:block.body_end] == "$ echo a\na\n$ true\n"


def test_backslash_continuation_is_kept_for_bash():
    [step] = parse_steps(["$ echo one \\", "  two", "one two"], "p.md", 1)
    assert step.command == "echo one \\\n  two"
    assert step.expected == ("one two",)
    assert step.source == ("$ echo one \\", "  two")


def test_prompt_continuation_lines_join_with_newlines():
    [step] = parse_steps(["$ for x in a b; do", "> echo $x", "> done", "a", "b"], "p.md", 1)
    assert step.command == "for x in a b; do\necho $x\ndone"
    assert step.expected == ("a", "b")


def test_exit_status_line_and_trailing_blank_lines():
    steps = parse_steps(["$ false", "[1]", "", "$ grep x /nope", "grep: /nope: No such file or directory", "[2]"], "p.md", 1)
    assert [(s.expected, s.exit_status) for s in steps] == [((), 1), (("grep: /nope: No such file or directory",), 2)]


def test_status_line_only_counts_at_the_end_of_a_step():
    [step] = parse_steps(["$ printf '[3]\\nx\\n'", "[3]", "x"], "p.md", 1)
    assert step.expected == ("[3]", "x") and step.exit_status == 0


def test_output_before_first_command_is_an_error_with_its_line():
    with pytest.raises(InputError) as err:
        blocks("text\n```console\nstray\n$ ls\n```\n")
    assert str(err.value).startswith("page.md:3: ")


@pytest.mark.parametrize(
    "expected, actual, fits",
    [
        (["a", "b"], ["a", "b"], True),
        (["a", "b"], ["a", "c"], False),
        (["a"], ["a", "b"], False),
        (["..."], [], True),
        (["..."], ["x", "y", "z"], True),
        (["a", "...", "z"], ["a", "z"], True),
        (["a", "...", "z"], ["a", "1", "2", "z"], True),
        (["a", "...", "z"], ["a", "1", "2"], False),
        (["...", "b", "..."], ["a", "b", "c"], True),
        (["2.15.0+..."], ["2.15.0+42b8400"], True),
        (["2.15.0+..."], ["2.16.0+42b8400"], False),
        (["/opt/uv_cache/.../x.so"], ["/opt/uv_cache/archive-v0/abc/x.so"], True),
        (["a.b"], ["axb"], False),          # only `...` is special; a dot is a dot
        (["a", ""], ["a"], True),            # trailing blank lines are layout, not output
    ],
)
def test_output_matching(expected, actual, fits):
    assert output_matches(expected, actual) is fits


def test_many_wildcard_lines_stay_fast():
    expected = ["..."] * 40 + ["never"]
    assert output_matches(expected, ["x"] * 400) is False


def test_options_comment_directly_above():
    text = (
        "<!-- console: timeout=20 where=host -->\n```console\n$ true\n```\n\n"
        '<!-- console: skip="needs a GPU" -->\n```console\n$ nvidia-smi\n```\n'
    )
    first, second = blocks(text)
    assert first.options == BlockOptions(timeout=20.0, where="host")
    assert second.options == BlockOptions(skip="needs a GPU")
    assert second.options.where == "image" and second.options.timeout == 30.0


@pytest.mark.parametrize(
    "comment, words",
    [
        ("timeout=soon", "timeout must be seconds"),
        ("timeout=0", "timeout must be seconds"),
        ("where=laptop", "where must be one of image, host"),
        ("colour=red", "unknown option 'colour'"),
        ("timeout", "expected key=value"),
        ('skip="unterminated', "console options"),
        ("skip=", "skip needs a reason"),
        ("timeout=1 timeout=2", "given twice"),
    ],
)
def test_malformed_options_name_file_and_line(comment, words):
    text = f"# T\n\n<!-- console: {comment} -->\n```console\n$ true\n```\n"
    with pytest.raises(InputError) as err:
        blocks(text)
    assert str(err.value).startswith("page.md:3: ")
    assert words in str(err.value)


@pytest.mark.parametrize("between", ["\n", "some prose\n", "```bash\nls\n```\n"])
def test_options_comment_must_sit_directly_above_a_console_fence(between):
    text = f"<!-- console: timeout=5 -->\n{between}```console\n$ true\n```\n"
    with pytest.raises(InputError, match=r"page\.md:1: console options comment is not directly above"):
        blocks(text)


def test_headings_give_readable_ids_and_fenced_hashes_are_not_headings():
    text = (
        "```console\n$ true\n```\n"
        "# Venv inventory\n"
        "```bash\n# not a heading\n```\n"
        "```console\n$ true\n```\n"
        "```console\n$ true\n```\n"
        "## The `python-<ClassName>` wrappers\n"
        "````console\n$ true\n````\n"
    )
    assert [b.test_id for b in blocks(text)] == [
        "top::1", "venv-inventory::1", "venv-inventory::2", "the-python-classname-wrappers::1",
    ]


def test_other_languages_and_info_words_are_ignored():
    assert blocks("```bash\n$ ls\n```\n```consoles\n$ ls\n```\n") == []
    assert len(blocks("```console title=x\n$ ls\n```\n")) == 1


def test_render_round_trips():
    lines = ["$ a \\", "  b", "out", "...", "$ false", "[1]"]
    steps = parse_steps(lines, "p.md", 1)
    assert render_steps(steps) == lines
    assert parse_steps(render_steps(steps), "p.md", 1) == steps


def test_slugify():
    assert slugify("Who may write where?") == "who-may-write-where"
    assert slugify("!!!") == "section"


def test_prompt_after_a_backslash_is_stripped_and_the_backslash_kept():
    lines = ["$ for a in x \\", ">     y; do", ">   echo $a", "> done", "x", "y"]
    [step] = parse_steps(lines, "p.md", 1)
    assert step.command == "for a in x \\\n    y; do\n  echo $a\ndone"
    assert step.expected == ("x", "y")


def test_a_backtick_fence_whose_info_holds_a_backtick_is_no_fence():
    # the console parser used to open a fence here and hide the console block below it (CommonMark: no fence)
    [block] = blocks("``` bash `x`\n# Next\n```console\n$ true\n```\n")
    assert (block.line, block.heading) == (3, "next")


def test_a_fence_nested_in_an_admonition_is_skipped_whole():
    # the one fence rule reads nested fences (the block engine's and the prose lint's), so their lines are
    # code, not headings or options; a closing run indented four more than the opening one is content
    text = "!!! note\n\n    ```markdown\n    <!-- console: timeout=5 -->\n    ```\n\n```console\n$ true\n    ```\n```\n"
    [block] = blocks(text)
    assert block.line == 7 and block.options == BlockOptions() and block.steps[0].expected == ("    ```",)


@pytest.mark.parametrize("fence", ["    ```console", "> ```console"])
def test_a_console_block_nested_in_a_container_is_an_error(fence):
    with pytest.raises(InputError) as err:
        blocks(f"- item\n\n{fence}\n    $ true\n    ```\n")
    assert err.value.line == 3 and "nested" in err.value.message
