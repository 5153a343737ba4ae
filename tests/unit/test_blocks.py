"""The block engine on literals: markers, byte-exact preservation, stamps, malformed input (with hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from docgen.blocks import STAMP_VERSION, block_diff, digest, parse_document, refresh
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


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="`` a", max_size=60))
def test_code_spans_agree_with_the_regex_definition(line):
    import re

    from docgen.blocks import _CODE_SPAN, _code_spans

    assert _code_spans(line) == [m.span() for m in re.finditer(_CODE_SPAN, line)]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["<!--", "-->", "<!-- docgen:", "docgen:", "end-value", "value", " ", "\t", "\x1c",
                                 "\u00a0", "-", "_", "x", "\u00e9", "\u0663", ">", "<", "!", "\r"]), max_size=12).map("".join))
def test_marker_scan_agrees_with_the_regex_definition(line):
    import re

    from docgen.blocks import _MARKER, _find_markers

    expected = [(m.start(), m.end(), m.group("kind"), m.group("rest"), bool(m.group("close")))
                for m in re.finditer(_MARKER, line)]
    assert _find_markers(line) == expected


def test_plain_names_and_stamp_versions_agree_with_their_patterns():
    import re

    from docgen.blocks import _plain_name, _stamp_version

    for value in ("a", "a.b-c_d", "0x", "", "A", "_a", "a/b", "\u00e9", "a\u00e9", "v2:x", "v12:a:b", "v:x", "vx:y",
                  "v\u0663:x", "v\u00b2:x", "2:x", "dockerfile:1a2b"):
        assert _plain_name(value) == bool(re.match(r"^[a-z0-9][a-z0-9._-]*$", value)), value
        m = re.match(r"v(\d+):(.*)\Z", value)
        assert _stamp_version(value) == ((int(m.group(1)), m.group(2)) if m else (1, value)), value


def test_code_spans_are_linear_on_thousands_of_unmatched_runs():
    from docgen.blocks import _code_spans

    line = " ".join("`" * i for i in range(1, 2000))    # 2 MB: every run is unmatched
    assert _code_spans(line) == []
    assert _code_spans("`a` " + line) == [(0, 3)]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["docgen:", "docgen", "```", "``", "~~~", "~~", "~", "`", "\n", "\r\n", "\r", "x",
                                 "\u00e9", "\u2028", "\x1c"]), max_size=16).map("".join))
def test_the_lines_parse_reads_are_those_with_a_marker_or_a_fence_run(text):
    from docgen.blocks import _marker_or_fence_lines, _split_lines

    expected = [i for i, line in enumerate(_split_lines(text))
                if "docgen:" in line or "```" in line or "~~~" in line]
    assert _marker_or_fence_lines(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "| x |", "", "\n", " ", "\r"]), max_size=8).map("".join),
       st.sampled_from(["", "  ", "    ", "> "]), st.sampled_from(["\n", "\r\n"]), st.sampled_from(["\n", "\r\n", ""]))
def test_a_block_region_is_its_indented_lines_and_end_marker(body, indent, nl, last_nl):
    from docgen.blocks import Block, _block_region

    block = Block("table", (), 0, 2, indent, None, None)
    content = [indent + ln if ln else "" for ln in body.strip("\n").split("\n")]   # the definition
    end = f"{indent}<!-- docgen:end table body={digest(body.strip(chr(10)))} -->"
    assert _block_region(block, body, nl, last_nl) == (nl.join(["", *content, ""]) + nl, end + last_nl)
