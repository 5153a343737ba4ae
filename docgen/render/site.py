"""Site-only pages rendered from the model and the CLI (the docs build writes them with mkdocs-gen-files;
nothing lands in docs/): the command-line reference, one page per prefetched worker venv, and the actors."""

from __future__ import annotations

import argparse
import html
import posixpath
import re

from docgen.errors import InputError
from docgen.errors import escape_controls   # the one rule for control characters in input text
from docgen.fact import KINDS
from docgen.model.stages import ROLES, base_venv, role_of
from docgen.render.diff import diff_markdown, has_sections, plain_summary
from docgen.render.generators import GENERATORS
from docgen.render.markdown import code, text
from docgen.render.values import CANNOT_GIVE, VALUES, render_value
from docgen.rules import RULES
from docgen.snapshot.load import is_fqn


def md_cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def cli_page(parser: argparse.ArgumentParser) -> str:
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = ["# docgen command line", "",
           "Generated at site build time from the argparse parser `docgen.cli.build_parser()`: "
           "what `python -m docgen COMMAND --help` prints.", "",
           "## docgen", "", "```text", parser.format_help().rstrip(), "```", ""]
    for name, sub in subparsers.choices.items():
        out += [f"## docgen {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def rules_page(model) -> str:
    """The reference of what `docgen check` knows: every rule (as declared in docgen/rules.py), every kind of
    fact a sentence may name (docgen/fact.py), every generator and every value key."""
    out = ["# Rules, facts, generators and values", "",
           "Generated at site build time from docgen's own declarations. A finding names its rule in brackets "
           "(`[stated-value]`); `<!-- docgen:allow RULE WHY -->` at the end of a line silences exactly that rule "
           "there, with a reason a reviewer can judge.", "", "## Rules", "",
           "| Rule | What it catches | Why it matters | Fix | `docgen write` fixes it |", "|---|---|---|---|---|"]
    for r in RULES.values():
        out.append(f"| `{r.id}` | {md_cell(text(r.summary))} | {md_cell(text(r.why))} | {md_cell(text(r.fix))} | "
                   f"{'yes' if r.write else 'no'} |")
    out += ["", "Each rule's example (the edit of this repository that makes it fire, run by "
            "`tests/test_rules.py`):", ""]
    for r in RULES.values():
        edits = "; ".join(f"{f}: {'append' if not old else 'replace ' + code(old.strip()[:60])}"
                          f"{' with ' + code(new.strip()[:80]) if new.strip() else ' with nothing'}"
                          for f, old, new in r.example)
        out.append(f"- `{r.id}`: {edits or 'none'}")
    out += ["", "## Kinds of fact", "",
            "A hand-written sentence names a fact by its subject (as written, or as prose says it), by its value "
            "where that value is distinctive, or by the words of its kind. Where it also states a value, the value "
            "is compared; otherwise the facts record keeps the values the sentence was written against, and a "
            "change fails `check` there until the sentence is edited or confirmed (`docgen review FILE:LINE`).", "",
            "| Kind | What it is | Words that name it | A stated value looks like |", "|---|---|---|---|"]
    for k in KINDS.values():
        words = ", ".join(code(w) for w in k.words) or "its subject only"
        out.append(f"| `{k.id}` | {md_cell(text(k.summary))} | {md_cell(words)} | {k.shape} |")
    out += ["", "## Generators", "", "| Block | Arguments | What it renders |", "|---|---|---|"]
    for name, gen in GENERATORS.items():
        args = ", ".join(f"`{p}`" + (f" ({', '.join(v)})" if v else "") for p, v in gen.params.items()) or "none"
        doc = (gen.render.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        out.append(f"| `{name}` | {md_cell(args)} | {md_cell(text(doc))} |")
    out += ["", "## Value keys", "", "| Key | What this image renders |", "|---|---|"]
    for key in VALUES:
        try:
            shown = render_value(key, model)
        except CANNOT_GIVE as exc:   # a value this image cannot give: say why, as check would
            shown = f"(not available: {exc})"
        out.append(f"| `{key}` | {md_cell(text(shown))} |")
    return "\n".join(out) + "\n"


def venv_page_names(venvs) -> dict[str, str]:
    """Actor FQN -> page stem: the class name, or the full FQN where two venvs share a class name."""
    seen: dict[str, int] = {}
    for v in venvs:
        seen[v.class_name] = seen.get(v.class_name, 0) + 1
    return {v.actor: v.class_name if seen[v.class_name] == 1 else v.actor for v in venvs}


def page_stems(names: dict[str, str], folder: str) -> tuple[dict[str, str], list[str]]:
    """Actor -> page stem for the names that make a safe one, and the actors left out. A stem is a dotted
    Python name (what the snapshot's loader holds an actor to), so it has no `/`, no `..`, no markup and no
    control character, and its page lands in `folder`; one that is not, that names the folder's index, or
    that another actor's stem already takes (case aside: two files on a case-blind disk), is left out, for a
    note on the index page, rather than failing the build or writing elsewhere."""
    stems: dict[str, str] = {}
    left_out: list[str] = []
    taken = {"index"}
    for actor, name in names.items():
        page = posixpath.normpath(f"{folder}/{name}.md")
        if not is_fqn(name) or posixpath.dirname(page) != folder or name.lower() in taken:
            left_out.append(actor)
            continue
        taken.add(name.lower())
        stems[actor] = name
    return stems, left_out


def nav_title(title: str) -> str:
    """A nav entry's title as HTML text: Material prints nav titles without escaping them."""
    return html.escape(title, quote=True)


def left_out_note(actors: list[str]) -> str:
    """The venv index page's note on venvs with no page of their own, so a missing page is never silent."""
    if not actors:
        return ""
    listed = ", ".join(code(a) for a in actors)
    return (f"\n!!! warning \"{len(actors)} venv{'s' if len(actors) != 1 else ''} without a page\"\n"
            f"    The actor names {listed} do not make a page name, so this site lists no packages for "
            "them; `docgen check` names what is wrong with the snapshot.\n")


def source_cell(pkg) -> str:
    if pkg.source_kind == "registry":
        return "registry"
    return f"{pkg.source_kind}: `{md_cell(pkg.source)}`" if pkg.source else pkg.source_kind


def venv_page(model, venv) -> str:
    packages = sorted(model.snapshot.install_set(venv.extras), key=lambda p: (p.name, p.source))
    extras = ", ".join(code(e) for e in venv.extras) or "(none: the base install set)"
    out = [f"# {text(venv.class_name)}", "",
           f"- Actor: {code(venv.actor)}",
           f"- Extras: {extras}",
           f"- Venv: {code(venv.path)}",
           f"- Packages: {len(packages)}", "",
           "Generated at site build time from the committed NeMo-RL snapshot: the install set uv locks for "
           "these extras.", "",
           "| package | version | source |", "|---|---|---|"]
    for p in packages:
        out.append(f"| {md_cell(p.name)} | {md_cell(p.version or '(none)')} | {source_cell(p)} |")
    return "\n".join(out) + "\n"


def venv_index(model, names: dict[str, str]) -> str:
    out = ["# Worker venvs", "",
           f"The image prefetches {len(model.venvs)} worker venvs under `{model.venv_dir}`, one per actor "
           "selected by the prefetch filters (see [Prefetch filters and venvs](../../image/venvs.md)). "
           "Each page lists what uv installs into that venv.", "",
           "| actor class | extras | venv path | packages |", "|---|---|---|---|"]
    for v in model.venvs:
        extras = ", ".join(code(e) for e in v.extras)
        count = len(model.snapshot.install_set(v.extras))
        out.append(f"| [{text(v.class_name)}]({names[v.actor]}.md) | {extras} | {code(v.path)} | {count} |")
    return "\n".join(out) + "\n"


def camel_words(name: str) -> str:
    """`RewardModelEnvironment` -> `reward model environment`: a new word where a capital follows a lower-case
    letter, so names such as `DTensor` and `SGLang` stay whole; a plain capitalised word is lower-cased."""
    words, start = [], 0
    for i in range(1, len(name)):
        if name[i].isupper() and name[i - 1].islower():
            words.append(name[start:i])
            start = i
    words.append(name[start:])
    return " ".join(w.lower() if w[:1].isupper() and w[1:].islower() else w for w in words)


def actors_page(model, names: dict[str, str]) -> str:
    """One section per registry actor, titled by its class name, saying in plain words what the actor does
    and where it runs: the page the site's search finds an actor on, by class name or by role."""
    venvs = {v.actor: v for v in model.venvs}
    skipped = {s.actor: s.reason for s in model.not_prefetched}
    out = ["# Actors", "",
           f"Every actor of the NeMo-RL registry this image pins ({len(model.actors)}), generated at site build "
           "time from the committed snapshot: what it does in a job and where it runs in the image. "
           "[How NeMo-RL runs workers](../concepts/workers.md) explains the registry.", ""]
    for actor in model.actors:
        role = role_of(actor.fqn)
        if actor.is_system:
            runs = f"the driver venv `{base_venv(model)}` (`sys.executable`), no venv of its own"
        elif actor.fqn in venvs:
            runs = (f"its prefetched venv `{venvs[actor.fqn].path}` "
                    f"([package list](venvs/{names[actor.fqn]}.md))")
        else:
            reason = skipped.get(actor.fqn)
            runs = "a venv built on the node at first use" + (f" ({text(reason)})" if reason else "")
        extras = ", ".join(code(e) for e in actor.extras) or "none (the base install set)"
        words = camel_words(actor.class_name)
        spelled = f" ({words})" if words != actor.class_name else ""
        what = ROLES[role]
        article = "an" if what.noun[0] in "aeiou" else "a"
        out += [f"## {text(actor.class_name)}", "",
                f"{text(actor.class_name)}{text(spelled)} is {article} {what.said}.", "",
                f"- Class: {code(actor.fqn)}",
                f"- Registry entry: {code(actor.member or actor.command)}",
                f"- Extras: {extras}",
                f"- Runs in: {runs}", ""]
    return "\n".join(out)


CHANGELOG_INTRO = ("How the image changed, newest first: one entry per commit that changed `{snapshot}` or "
                   "`{dockerfile}`, each compared with the commit before it, each side with its own snapshot and "
                   "its own Dockerfile (`docgen diff`). An entry starts with one sentence on what a reviewer of the "
                   "image needs (venvs, source builds, key versions, base image, tools) and shows only the "
                   "sections where something changed; an entry where nothing a reader of the image sees changed "
                   "is one line. A version that does not read is skipped with a note. Commits that change neither "
                   "file are left out.")

_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~%/+-]*)?")


def commit_url(repo_url: str | None, sha: str) -> str | None:
    """The forge's page of one commit (GitHub's and GitLab's spelling), from mkdocs.yml's repo_url; no link
    when the URL is not a plain http(s) address (a `javascript:` URL, markup, spaces) or the hash is not one."""
    if not repo_url or not _URL.fullmatch(repo_url) or not re.fullmatch(r"[0-9a-f]{7,64}", sha):
        return None
    return f"{repo_url.rstrip('/')}/commit/{sha}"


def _diff_body(report: dict) -> list[str]:
    """A changelog entry's body: `docgen diff --format markdown` of the changed sections, its title left out
    (the entry's heading says it), its sections one level up, and the folded package list as a collapsible
    block the site renders (Markdown inside raw <details> HTML would stay unrendered)."""
    lines = diff_markdown(report, changed_only=True).splitlines()[3:]   # after its title and sentence
    out, folded = [], False
    for line in lines:
        if line.startswith("#### "):
            line = "### " + line[len("#### "):]
        if line.startswith("<details><summary>") and line.endswith("</summary>"):
            summary = line[len("<details><summary>"):-len("</summary>")].replace('"', "'")
            out.append(f'??? note "{summary}"')
            folded = True
            continue
        if folded and line == "</details>":
            folded = False
            continue
        out.append("    " + line if folded and line else line)
    while out and not out[0]:
        out.pop(0)
    return out


def _subject(value: str) -> str:
    """A commit subject as text: control characters shown as escapes, markup and HTML shown as written."""
    return text(escape_controls(value))


def changelog_page(history, snapshot: str, dockerfile: str, repo_url: str | None) -> str:
    """The "What changed" page from a docgen.changelog.History: one entry per commit that changed the
    snapshot or the Dockerfile, newest first, each linking to its commit; or the history's note when it has
    no entry. Commit subjects, tags and the repository URL are untrusted: escaped, or no link at all."""
    out = ["# What changed", "", CHANGELOG_INTRO.format(snapshot=snapshot, dockerfile=dockerfile), ""]
    if not history.entries:
        out += [f"No changelog here: {history.note}", ""]
        return "\n".join(out)
    for entry in history.entries:
        c, p = entry.commit, entry.previous
        url, prev_url = commit_url(repo_url, c.sha), commit_url(repo_url, p.sha)
        link = f"[{code(c.sha[:8])}]({url})" if url else code(c.sha[:8])
        prev = f"[{code(p.sha[:8])}]({prev_url})" if prev_url else code(p.sha[:8])
        tags = f" (tagged {', '.join(code(t) for t in c.tags)})" if c.tags else ""
        said = f"Commit message: \u201c{_subject(c.subject)}\u201d"
        if entry.report is not None and not has_sections(entry.report):
            out += [f"**{c.date}**, commit {link}{tags}: {plain_summary(entry.report)} {said}", ""]
            continue
        out += [f"## {c.date}: commit {c.sha[:8]}", ""]
        if entry.report is None:
            # one line: a line break in a message from history would end the quote and start a block of its own
            problem = " ".join(escape_controls(entry.problem).split())
            out += [f"> **Skipped, no comparison:** {text(problem)}", ""]
        else:
            out += [plain_summary(entry.report), ""]
        out += [f"Commit {link}{tags}; the version before it is from commit {prev} ({p.date}). {said}", ""]
        if entry.report is not None:
            out += _diff_body(entry.report) + [""]
    return "\n".join(out)


_TERM = re.compile(r"\*\[(?P<term>[^\]\n]+)\]:[ \t]*(?P<meaning>\S.*)")


def read_glossary(source: str, path: str) -> list[tuple[str, str]]:
    """The glossary file's (term, meaning) pairs, in file order: one `*[term]: meaning` line each (Material's
    abbreviation syntax); blank lines are skipped; anything else is bad input, named by file and line."""
    terms = []
    for number, line in enumerate(source.split("\n"), 1):
        if not line.strip():
            continue
        match = _TERM.fullmatch(line.rstrip())
        if match is None:
            raise InputError(path, number, "not a glossary line: expected `*[term]: meaning`")
        terms.append((match["term"].strip(), match["meaning"].strip()))
    if not terms:
        raise InputError(path, None, "the glossary defines no term")
    return terms


def glossary_page(terms: list[tuple[str, str]], source: str) -> str:
    """The Glossary page: each meaning once, under every spelling that shares it (`extra, extras`), sorted
    without regard to case; the same file gives every page its tooltips."""
    by_meaning: dict[str, list[str]] = {}
    for term, meaning in terms:
        by_meaning.setdefault(meaning, []).append(term)
    out = ["# Glossary", "",
           f"The words these pages use that a newcomer may not know ({len(by_meaning)} entries). Each shows its "
           f"meaning as a tooltip wherever it stands in a page's text (not inside code); this page lists them "
           f"from the same file, `{source}`.", ""]
    for meaning, spellings in sorted(by_meaning.items(), key=lambda item: item[1][0].lower()):
        out += [", ".join(text(s) for s in spellings), f":   {text(meaning)}", ""]
    return "\n".join(out)
