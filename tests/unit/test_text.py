"""The one text vocabulary (docgen/text.py): sentences with the line of each word."""

from __future__ import annotations

import random

from docgen.text import clauses, sentences, sentences_with_lines

LINES = ["`UV_CACHE_DIR` in a running container", ":   Unset: uv falls back at run time. Next one", "here.", "",
         "| a | b c |", "|---|---|", "One. Two", "  three. Four."]


def test_each_word_of_a_sentence_keeps_its_line():
    assert list(sentences_with_lines(LINES)) == [
        (1, "`UV_CACHE_DIR` in a running container", (1, 1, 1, 1, 1)),   # a definition's term, then its description,
        (2, "`UV_CACHE_DIR` in a running container :   Unset: uv falls back at run time.",   # whose sentences begin
         (1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2)),                                          # with the term
        (2, "`UV_CACHE_DIR` in a running container Next one here.", (1, 1, 1, 1, 1, 2, 2, 3)),
        (5, "a | b c", (5, 5, 5, 5)),           # a table row is a unit; its divider row is none
        (7, "One.", (7,)),
        (7, "Two three.", (7, 8)),
        (8, "Four.", (8,)),
    ]
    assert list(sentences(LINES)) == [(n, s) for n, s, _ in sentences_with_lines(LINES)]


def test_on_random_pages_every_word_stands_on_the_line_given_for_it():
    rng = random.Random(7)
    words = ["a", "b.", "C", "D.", "`x`", "word", "Z?", "e!", "- item", "# Head", "> quote"]
    for _ in range(2000):
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(1, 6))]
        for first, sentence, word_lines in sentences_with_lines(lines):
            assert len(word_lines) == len(sentence.split()) and word_lines[0] == first, (lines, sentence)
            assert list(word_lines) == sorted(word_lines), (lines, sentence)
            for word, n in zip(sentence.split(), word_lines):
                assert word in lines[n - 1].split(), (lines, sentence, word_lines)


def test_a_heading_or_an_admonitions_title_line_is_a_unit_of_its_own():
    """Markdown gives a heading one line, and mkdocs' `!!! note "Title"` (or `??? note`) line is the box's title:
    the text under either starts its own sentence, on its own line."""
    lines = ['!!! note "Link mode"', "    The warm-up syncs use symlinks.", "## Caches", "They stay in the image."]
    assert list(sentences(lines)) == [(1, '!!! note "Link mode"'), (2, "The warm-up syncs use symlinks."),
                                      (3, "## Caches"), (4, "They stay in the image.")]


def test_a_definitions_term_and_each_of_its_descriptions_are_units_of_their_own():
    """A definition list (`term`, then `:   description`): the description is a unit known by its own line (a
    finding in it lands there, not on the term's line), and its sentences begin with the term, their subject."""
    lines = ["`PATH`", ":   Puts the driver venv first", "    on the search path.", ":   A second description."]
    assert list(sentences(lines)) == [(1, "`PATH`"), (2, "`PATH` :   Puts the driver venv first on the search path."),
                                      (4, ":   A second description.")]


def test_a_relative_clause_stays_with_the_name_before_its_comma():
    """"`flash-attn`, which uv compiles": the clause says what flash-attn does; other commas end a clause."""
    assert clauses("`flash-attn`, which uv compiles from source, is slow") == [
        "`flash-attn`, which uv compiles from source", " is slow"]
    assert clauses("vllm wheel, deep_ep builds from source") == ["vllm wheel", " deep_ep builds from source"]
