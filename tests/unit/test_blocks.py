"""The block engine on literals: markers, byte-exact preservation, stamps, malformed input (with hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from docgen.blocks import STAMP_VERSION, block_diff, digest, parse_document, refresh
from docgen.fences import opening_fence
from docgen.errors import InputError

GENERATORS = {"greeting": {"who": ("world", "moon")}, "table": {}}
VALUES = frozenset({"answer", "name"})


def render_with(bodies: dict[str, str], values: dict[str, str] | None = None):
    values = values or {"answer": "forty-two", "name": "docgen"}

    def block(b):
        who = dict(b.args).get("who", "")
        return bodies[b.generator].replace("WHO", who)
    return block, lambda v: values[v.key]


BODIES = {"greeting": "Hello WHO.\n", "table": "| a |\n|---|\n| 1 |\n"}


def parse(text: str, path: str = "page.md"):
    return parse_document(text, path, GENERATORS, VALUES)


def write(text: str, **kw) -> str:
    new, _, _ = refresh(parse(text), *render_with(BODIES, **kw))
    return new


def test_block_is_filled_stamped_and_surroundings_kept():
    text = "# Title\n\n<!-- docgen:begin greeting who=moon -->\n<!-- docgen:end greeting -->\ntail\n"
    new = write(text)
    assert new == ("# Title\n\n<!-- docgen:begin greeting who=moon -->\n\nHello moon.\n\n"
                   f"<!-- docgen:end greeting body={digest('Hello moon.')} -->\ntail\n")
    assert write(new) == new  # idempotent


def test_values_are_replaced_inline():
    text = "It is <!-- docgen:value answer -->?<!-- docgen:end-value --> by <!-- docgen:value name --><!-- docgen:end-value -->.\n"
    new, _, changes = refresh(parse(text), *render_with(BODIES))
    assert new == ("It is <!-- docgen:value answer -->forty-two<!-- docgen:end-value --> by "
                   "<!-- docgen:value name -->docgen<!-- docgen:end-value -->.\n")
    assert [(c.value.key, c.old, c.new) for c in changes] == [("answer", "?", "forty-two"), ("name", "", "docgen")]


def test_crlf_and_indentation_are_kept():
    text = "!!! note\r\n    <!-- docgen:begin table -->\r\n    <!-- docgen:end table -->\r\nafter\r\n"
    new = write(text)
    assert "\r\n    | a |\r\n    |---|\r\n    | 1 |\r\n\r\n    <!-- docgen:end table" in new
    assert "\n" not in new.replace("\r\n", "")
    assert write(new) == new


def test_an_unclosed_fence_without_markers_after_it_is_plain_markdown():
    doc = parse("<!-- docgen:begin table -->\n<!-- docgen:end table -->\n```\ncode to the end\n")
    assert len(doc.blocks) == 1


def test_markers_in_fences_and_code_spans_are_text():
    text = ("Use `<!-- docgen:begin nope -->` like this:\n\n```markdown\n<!-- docgen:begin nope -->\n"
            "<!-- docgen:value nope -->\n```\n\n~~~~\n<!-- docgen:end x -->\n~~~~\n")
    doc = parse(text)
    assert doc.blocks == () and doc.values == ()
    assert write(text) == text


def test_markers_in_indented_fences_are_text():
    # mkdocs admonitions, list items and block quotes hold fences indented past three spaces (superfences)
    text = ("!!! example\n\n    ```markdown\n    <!-- docgen:begin nope -->\n    ```\n\n"
            "- item\n\n        ~~~\n        <!-- docgen:value nope -->\n        ~~~\n\n"
            "> ```\n> <!-- docgen:end x -->\n> ```\n")
    doc = parse(text)
    assert doc.blocks == () and doc.values == ()
    assert write(text) == text


def test_fence_inside_an_indented_block_body_is_skipped_over():
    bodies = {"greeting": "```mermaid\nflowchart TD\n<!-- docgen:end greeting -->\n```\n", "table": ""}
    text = "!!! note\n    <!-- docgen:begin greeting -->\n    <!-- docgen:end greeting -->\n"
    new, _, _ = refresh(parse(text), *render_with(bodies))
    assert len(parse(new).blocks) == 1


def test_fence_inside_a_block_body_is_skipped_over():
    bodies = {"greeting": "```mermaid\nflowchart TD\n<!-- docgen:end greeting -->\n```\n", "table": ""}
    text = "<!-- docgen:begin greeting -->\n<!-- docgen:end greeting -->\n"
    new, _, _ = refresh(parse(text), *render_with(bodies))
    assert len(parse(new).blocks) == 1  # the end marker shown inside the fence is not the block's end


def test_stale_block_is_found_by_rendering_again_with_its_diff():
    first = write("<!-- docgen:begin greeting who=world -->\n<!-- docgen:end greeting -->\n")
    bodies = dict(BODIES, greeting="Goodbye WHO.\n")
    _, changes, _ = refresh(parse(first), *render_with(bodies))
    [change] = changes
    assert change.text_changed and not change.hand_edited and not change.old_stamps
    diff = block_diff(change)
    assert "-Hello world.\n" in diff and "+Goodbye world.\n" in diff and diff.startswith("--- a/page.md")
    assert "@@ -2," in diff  # hunks are numbered as lines of the page, not of the block


def test_the_end_marker_stamps_the_block_text_alone():
    first = write("<!-- docgen:begin greeting who=world -->\n<!-- docgen:end greeting -->\n")
    assert first.endswith(f"<!-- docgen:end greeting body={digest('Hello world.')} -->\n")
    assert "inputs=" not in first
    # the same text rendered again (whatever moved in the inputs behind it) is no change at all
    again, changes, _ = refresh(parse(first), *render_with(BODIES))
    assert again == first and changes == []


OLD_MARKERS = ["inputs=v2:dockerfile:aaaa1111,lock:bbbb2222", "inputs=dockerfile:0bad0bad"]


@pytest.mark.parametrize("stamps", OLD_MARKERS)
def test_an_end_marker_with_input_stamps_is_read_and_rewritten_but_not_drift(stamps):
    current = write("<!-- docgen:begin greeting who=world -->\n<!-- docgen:end greeting -->\n")
    old_style = current.replace(" body=", f" {stamps} body=")
    [block] = parse(old_style).blocks
    assert block.stamp_version == (2 if "v2:" in stamps else 1) and block.recorded_inputs
    again, [change], _ = refresh(parse(old_style), *render_with(BODIES))
    assert change.old_stamps and not change.text_changed and not change.hand_edited
    assert again == current
    # the text changed as well: a plain stale block, whatever the marker's form
    _, [change], _ = refresh(parse(old_style), *render_with(dict(BODIES, greeting="Bye WHO.\n")))
    assert change.text_changed and not change.old_stamps and not change.hand_edited


def test_stamp_version_is_parsed_from_the_marker():
    [block] = parse("<!-- docgen:begin table -->\n<!-- docgen:end table inputs=v7:lock:12345678 body=1 -->\n").blocks
    assert block.stamp_version == 7 and block.recorded_inputs == (("lock", "12345678"),)
    [block] = parse("<!-- docgen:begin table -->\n<!-- docgen:end table body=12345678 -->\n").blocks
    assert block.stamp_version == STAMP_VERSION == 3 and block.recorded_inputs is None
    assert block.recorded_body == "12345678"
    [block] = parse("<!-- docgen:begin table -->\n<!-- docgen:end table -->\n").blocks
    assert block.stamp_version is None and block.recorded_body is None


def test_a_wrong_body_digest_around_the_right_text_is_drift():
    first = write("<!-- docgen:begin greeting who=world -->\n<!-- docgen:end greeting -->\n")
    tampered = first.replace(f"body={digest('Hello world.')}", "body=00000000")
    again, [change], _ = refresh(parse(tampered), *render_with(BODIES))
    assert not change.text_changed and not change.old_stamps and again == first


def test_hand_edit_is_noticed():
    first = write("<!-- docgen:begin greeting who=world -->\n<!-- docgen:end greeting -->\n")
    edited = first.replace("Hello world.", "Hello, dear world.")
    _, [change], _ = refresh(parse(edited), *render_with(BODIES))
    assert change.hand_edited and change.text_changed


@pytest.mark.parametrize("text, line, words", [
    ("a\n<!-- docgen:begin greeting -->\nb\n", 2, "never closed"),
    ("<!-- docgen:begin greeting -->\n<!-- docgen:begin table -->\n<!-- docgen:end table -->\n"
     "<!-- docgen:end greeting -->\n", 2, "nested"),
    ("<!-- docgen:begin table -->\n<!-- docgen:end table -->\n<!-- docgen:end table -->\n", 3, "without a matching"),
    ("<!-- docgen:begin table -->\n<!-- docgen:end greeting -->\n", 2, "closes docgen:begin table"),
    ("x\n\n<!-- docgen:begin nope -->\n<!-- docgen:end nope -->\n", 3, "unknown generator 'nope'"),
    ("<!-- docgen:value nope --><!-- docgen:end-value -->\n", 1, "unknown value 'nope'"),
    ("<!-- docgen:begin greeting who=mars -->\n<!-- docgen:end greeting -->\n", 1, "expected one of world, moon"),
    ("<!-- docgen:begin greeting colour=red -->\n<!-- docgen:end greeting -->\n", 1, "unknown argument 'colour'"),
    ("<!-- docgen:begin greeting who -->\n<!-- docgen:end greeting -->\n", 1, "not key=value"),
    ("<!-- docgen:begin table\n<!-- docgen:end table -->\n", 1, "not closed with '-->'"),
    ("text <!-- docgen:begin table -->\n<!-- docgen:end table -->\n", 1, "alone on its line"),
    ("<!-- docgen:value answer -->42\n", 1, "not closed by docgen:end-value"),
    ("<!-- docgen:begin table -->\n<!-- docgen:end table inputs=oops -->\n", 2, "malformed inputs"),
    ("<!-- docgen:frobnicate -->\n", 1, "unknown marker"),
    ("a\n```bash\necho\n\n<!-- docgen:begin table -->\nstale\n<!-- docgen:end table -->\n", 2,
     "code fence ``` is never closed, so the docgen marker at line 5"),
    ("~~~~\n<!-- docgen:value answer -->4<!-- docgen:end-value -->\n~~~\n", 1, "never closed"),
])
def test_malformed_markers_name_the_line(text, line, words):
    with pytest.raises(InputError) as err:
        parse(text, "docs/x.md")
    assert err.value.path == "docs/x.md" and err.value.line == line and words in err.value.message


# ------------------------------------------------------------------------------------------------ properties

_prose_line = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n`~<"),
                      max_size=30)
_prose = st.lists(_prose_line, max_size=4).map(lambda ls: "".join(line + "\n" for line in ls))


@st.composite
def pages(draw):
    """Arbitrary prose with blocks (filled or not, stale or not) and values between, in LF or CRLF."""
    parts, blocks = [], []
    for _ in range(draw(st.integers(0, 4))):
        parts.append(draw(_prose))
        kind = draw(st.sampled_from(["greeting", "table", "value"]))
        if kind == "value":
            parts.append(f"x <!-- docgen:value answer -->{draw(_prose_line)}<!-- docgen:end-value --> y\n")
            continue
        junk = draw(_prose)  # whatever a stale or hand-edited body holds
        parts.append(f"<!-- docgen:begin {kind} -->\n{junk}<!-- docgen:end {kind} -->\n")
        blocks.append(kind)
    parts.append(draw(_prose))
    text = "".join(parts)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if text.endswith(("\n",)) and draw(st.booleans()):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    return text


def _outside(text: str) -> list[str]:
    """The page with block bodies and value texts cut out: what write must never change."""
    doc = parse(text)
    lines = list(doc.lines)
    for b in reversed(doc.blocks):
        lines[b.begin + 1: b.end + 1] = ["<BLOCK>"]
    return lines


@settings(max_examples=150, deadline=None)
@given(pages())
def test_write_then_check_is_clean_idempotent_and_keeps_outside_text(text):
    once = write(text)
    _, block_changes, value_changes = refresh(parse(once), *render_with(BODIES))
    assert block_changes == [] and value_changes == []
    assert write(once) == once
    before, after = _outside(text), _outside(once)
    value_free = [ln.split("<!-- docgen:value")[0] for ln in before]
    assert [ln.split("<!-- docgen:value")[0] for ln in after] == value_free
    assert len(before) == len(after)


_broken = st.sampled_from([
    ("<!-- docgen:begin table -->\n", "never closed"),
    ("<!-- docgen:begin table -->\n<!-- docgen:begin greeting -->\n<!-- docgen:end greeting -->\n"
     "<!-- docgen:end table -->\n", "nested"),
    ("<!-- docgen:end table -->\n", "without a matching"),
    ("<!-- docgen:begin bogus -->\n<!-- docgen:end bogus -->\n", "unknown generator"),
])


@settings(max_examples=100, deadline=None)
@given(_prose, _broken, _prose)
def test_malformed_marker_anywhere_is_reported_with_its_line(before, broken, after):
    text, words = broken
    with pytest.raises(InputError) as err:
        parse(before + text + after)
    assert words in err.value.message
    first_marker = before.count("\n") + 1
    assert first_marker <= err.value.line <= first_marker + 3


# ------------------------------------------------------------------------------- markers, spans and fences

@pytest.mark.parametrize("line, values", [
    ("`<!-- docgen:value nope -->`", []),
    ("``<!-- docgen:value nope --> ` ``", []),                      # a double-backtick span holds a backtick
    ("` <!-- docgen:value answer -->4<!-- docgen:end-value -->", ["answer"]),   # an unmatched run is text
    ("``a`b`` <!-- docgen:value answer -->4<!-- docgen:end-value --> `", ["answer"]),  # runs pair by length
    ("`a` <!--docgen:value answer-->4<!--\tdocgen:end-value   -->", ["answer"]),
    ("<!-- docgen:value answer -->4<!-- docgen:end-value --> <!-- x --> <!-- docgen:value name --><!-- docgen:end-value -->",
     ["answer", "name"]),
])
def test_markers_are_read_outside_code_spans_only(line, values):
    assert [v.key for v in parse(line + "\n").values] == values


def test_a_line_of_thousands_of_unmatched_backtick_runs_is_read_in_linear_time():
    runs = " ".join("`" * i for i in range(1, 2000))    # 2 MB: every run is unmatched
    doc = parse(f"`a` {runs} <!-- docgen:value answer -->4<!-- docgen:end-value -->\n")
    assert [v.key for v in doc.values] == ["answer"]


@pytest.mark.parametrize("text, words", [
    ("<!-- docgen:value answer -->4<!-- docgen:end-value-->\n", "docgen:end-value-- marker is not closed"),
    ("<!-- docgen:begin table --><!-- docgen:end table -->\n", "alone on its line"),
    ("<!--docgen:end-value -->\n", "without a docgen:value"),
])
def test_marker_kinds_are_the_longest_run_of_word_characters_and_hyphens(text, words):
    with pytest.raises(InputError) as err:
        parse(text)
    assert words in err.value.message


@pytest.mark.parametrize("value, ok", [("a", True), ("a.b-c_d", True), ("0x", True), ("A", False), ("_a", False),
                                        ("a/b", False), ("\u00e9", False), ("a\u00e9", False)])
def test_free_argument_values_are_plain_names(value, ok):
    generators = {"note": {"name": None}}
    text = f"<!-- docgen:begin note name={value} -->\n<!-- docgen:end note -->\n"
    if ok:
        [block] = parse_document(text, "page.md", generators, VALUES).blocks
        assert block.args == (("name", value),)
    else:
        with pytest.raises(InputError, match="not a plain name"):
            parse_document(text, "page.md", generators, VALUES)


@pytest.mark.parametrize("record, version, inputs", [
    ("v2:dockerfile:1a2b", 2, (("dockerfile", "1a2b"),)),
    ("v12:a:b,c:d", 12, (("a", "b"), ("c", "d"))),
    ("dockerfile:1a2b", 1, (("dockerfile", "1a2b"),)),
    ("vx:y", 1, (("vx", "y"),)),                  # not a version: a digest named vx
    ("v:x", 1, (("v", "x"),)),
])
def test_stamp_versions_are_read_from_the_end_marker(record, version, inputs):
    [block] = parse(f"<!-- docgen:begin table -->\n<!-- docgen:end table inputs={record} -->\n").blocks
    assert (block.stamp_version, block.recorded_inputs) == (version, inputs)


@pytest.mark.parametrize("line, fence", [
    ("```", ("", "```", "")),
    ("~~~~ python title=x", ("", "~~~~", " python title=x")),
    ("   ```console", ("   ", "```", "console")),
    ("    ```", ("    ", "```", "")),                 # nested in an admonition or a list item
    ("> > ~~~", ("> > ", "~~~", "")),                 # in a quote
    ("~~~ a `b`", ("", "~~~", " a `b`")),              # a tilde fence's info may hold backticks ...
    ("``` a `b`", None),                              # ... a backtick fence's may not (CommonMark)
    ("``", None), ("x ```", None), ("`~~", None), ("-- ```", None),
])
def test_the_fence_rule_opens(line, fence):
    found = opening_fence(line)
    assert (tuple(found) if found else None) == fence


@pytest.mark.parametrize("opening, line, closes", [
    ("```", "```", True), ("```", "````", True), ("````", "```", False), ("```", "~~~", False),
    ("```", "```  ", True), ("```", "``` x", False), ("```", "   ```", True),
    ("```", "    ```", False),                        # indented 4 more: the block's content (CommonMark)
    ("    ```", "    ```", True), ("    ```", "```", True), ("> ```", "> ```", True),
])
def test_the_fence_rule_closes(opening, line, closes):
    assert opening_fence(opening).closed_by(line) is closes


def test_a_fence_closed_by_a_deeper_indented_run_is_not_closed():
    # the block engine followed its own fence rule, which closed at any indentation; the one rule is CommonMark's
    text = "```\n    ```\n<!-- docgen:begin nope -->\n```\n<!-- docgen:value answer -->4<!-- docgen:end-value -->\n"
    assert [v.key for v in parse(text).values] == ["answer"]


def test_the_language_of_a_fence_is_the_first_word_of_its_info():
    assert [opening_fence(f).language for f in ("```console", "``` console\tx", "```\tconsole", "~~~", "```  ")] == [
        "console", "console", "console", "", ""]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["docgen:", "```\n", "  ```\r\n", "~~~", "~~~~", "~", "\n", "\r\n", "\r", "x", "\u00e9",
                                 "\u2028", "\x1c", "<!-- docgen:value answer -->4<!-- docgen:end-value -->"]),
                max_size=16).map("".join))
def test_values_are_found_on_their_own_lines_whatever_surrounds_them(text):
    """Lines end at "\\n" alone, and a value outside fences is found on its line (the engine reads only the lines
    with a marker or a fence run, found by a search over the whole page). A backtick run only ends a line here,
    so no code span hides a value."""
    try:
        doc = parse(text)
    except InputError:
        return   # a fence left open before a marker, or a `docgen:` that is no marker
    lines = text.split("\n")
    fenced, expected = None, []
    for index, line in enumerate(lines):
        line = line.rstrip("\r")
        if fenced is not None:
            fenced = None if fenced.closed_by(line) else fenced
        elif (fenced := opening_fence(line)) is None:
            expected += [index] * line.count("<!-- docgen:value answer -->")
    assert [v.line_index for v in doc.values] == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "| x |", "", "\n", " ", "\r"]), max_size=8).map("".join),
       st.sampled_from(["", "  ", "    "]), st.sampled_from(["\n", "\r\n"]), st.sampled_from(["\n", "\r\n", ""]))
def test_a_written_block_is_its_indented_lines_and_end_marker(body, indent, nl, last_nl):
    # four columns in, a block sits in a container (here an admonition): at the top of a page it would be code
    head = f"!!! note{nl}" if len(indent) >= 4 else ""
    text = f"{head}{indent}<!-- docgen:begin table -->{nl}{indent}<!-- docgen:end table -->{last_nl}"
    new, _, _ = refresh(parse(text), *render_with({"table": body}))
    content = [indent + ln if ln else "" for ln in body.strip("\n").split("\n")]   # the definition
    end = f"{indent}<!-- docgen:end table body={digest(body.strip(chr(10)))} -->"
    assert new == f"{head}{indent}<!-- docgen:begin table -->{nl}" + nl.join(["", *content, ""]) + nl + end + last_nl


# Markers count only where Markdown shows them as a comment in the page's flow (issue 20, point 6). Each page
# holds a marker-like comment, a stale body after it and a matching end, where Markdown shows them as text:
# `write` must leave the page byte-identical, and parsing must find no block or value there.
STALE = "<!-- docgen:begin table -->\nuser text that write used to delete\n<!-- docgen:end table -->\n"


def _indented(text: str, by: str = "    ") -> str:
    return "".join(by + line if line.strip() else line for line in text.splitlines(keepends=True))


NOT_IN_THE_FLOW = {
    "fenced code": "# Page\n\n```markdown\n" + STALE + "```\n",
    "tilde fence in a list item": "- item\n\n    ~~~\n" + _indented(STALE) + "    ~~~\n",
    "indented code after a paragraph": "Write it like this:\n\n" + _indented(STALE),
    "indented code at the top of the page": _indented(STALE) + "\ntext\n",
    "indented code with a tab": "Example:\n\n" + _indented(STALE, "\t"),
    "indented code inside an admonition": "!!! note\n\n    Example:\n\n" + _indented(STALE, "        "),
    "indented code after a heading": "# Example\n" + _indented(STALE),
    "a multi-line HTML comment": "<!--\nTo bring the table back, add\n<!-- docgen:begin table -->\n",
    "an HTML comment opened on the line before": "text <!-- note:\n<!-- docgen:begin table -->\nvisible text\n",
    "an inline value inside a comment": "<!-- old: <!-- docgen:value answer --> -->x\n",
    "a comment around a marker on one line": "<!-- TODO <!-- docgen:begin table --> here -->\n",
}


@pytest.mark.parametrize("name", sorted(NOT_IN_THE_FLOW), ids=lambda n: n.replace(" ", "-"))
def test_markers_outside_the_page_flow_are_text_and_write_keeps_them(name):
    text = NOT_IN_THE_FLOW[name]
    doc = parse(text)
    assert doc.blocks == () and doc.values == (), name
    assert write(text) == text
    crlf = text.replace("\n", "\r\n")
    assert write(crlf) == crlf


IN_THE_FLOW = {
    "the top level": STALE,
    "an admonition": "!!! note\n" + _indented(STALE),
    "an admonition after a blank": "!!! note\n\n" + _indented(STALE),
    "a list item": "- item\n\n" + _indented(STALE),
    "a nested list item": "- a\n    - b\n\n" + _indented(STALE, "        "),
    "a paragraph's continuation": "text\n" + _indented(STALE),
    "after a closed comment": "<!-- a note\nover two lines -->\n" + STALE,
    "after a comment closed on the marker's line": "<!-- a note -->\n" + STALE,
    "after a fence": "```\n<!-- docgen:begin table -->\n```\n\n" + STALE,
}


@pytest.mark.parametrize("name", sorted(IN_THE_FLOW), ids=lambda n: n.replace(" ", "-"))
def test_markers_in_the_page_flow_are_live(name):
    text = IN_THE_FLOW[name]
    doc = parse(text)
    assert [b.generator for b in doc.blocks] == ["table"], name
    new = write(text)
    assert "user text that write used to delete" not in new and "| a |" in new


def test_a_comment_never_closed_above_a_marker_is_bad_input():
    text = "# Page\n\n<!-- a note left open\n\n" + STALE
    with pytest.raises(InputError, match=r"page\.md:7: docgen:end table without .* inside the HTML comment opened "
                                         r"at line 3"):
        parse(text)
    with pytest.raises(InputError, match=r"page\.md:1: HTML comment .* never closed.* line 3"):
        parse("<!-- open\n\n<!-- docgen:begin table\n")   # a marker-like text with no '-->' to close anything
    assert len(parse("# Page\n\n<!-- a note left open\n").blocks) == 0   # no marker after it: plain Markdown


def test_a_comment_opener_in_a_code_span_opens_nothing():
    text = "Write `<!--` to open a comment.\n\n" + STALE
    assert [b.generator for b in parse(text).blocks] == ["table"]


def test_a_block_commented_out_whole_names_the_comment_that_its_begin_marker_closes():
    # HTML comments do not nest: the begin marker's own `-->` closes the outer comment, so the end marker is a
    # live comment of the page while its begin is not. Bad input, naming both, and nothing is written.
    text = "<!--\n" + STALE + "-->\n"
    with pytest.raises(InputError, match=r"page\.md:4: docgen:end table without a matching docgen:begin \(the "
                                         r"docgen:begin table at line 2 is inside the HTML comment opened at line 1"):
        parse(text)
