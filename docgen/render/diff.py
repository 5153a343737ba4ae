"""`docgen diff` reports: the report dict of docgen.diff.compare as terminal text or as Markdown (a PR
comment, or the job summary). Both say the same things in the same order; JSON is the dict itself."""

from __future__ import annotations

import re

from docgen.model import class_name_of
from docgen.render.markdown import code, text


def _side(d: dict) -> str:
    commit = (d.get("commit") or "")[:12]
    where = " ".join(x for x in (d.get("repo"), d.get("ref"), f"@ {commit}" if commit else None) if x)
    return f"{d['label']} ({d['kind']}{': ' + where if where else ''})"


def _versions(entries: list[dict]) -> str:
    if not entries:
        return "absent"
    if len(entries) == 1:
        return entries[0]["version"]
    return ", ".join(f"{e['version']} ({', '.join(e['in'])})" for e in entries)


def _python(v: dict) -> str:
    return f"requires-python {v.get('requires_python') or 'not recorded'}; platform {v.get('platform') or '?'}"


def _filters_note(filters: list[str]) -> str:
    return "prefetched by " + ", ".join(code(f) for f in filters) if filters else "not prefetched"


def _actor_note(entry: dict) -> str:
    if entry["system"]:
        return "runs in the driver venv (no venv of its own)"
    return _filters_note(entry["prefetched_by"])


def _extras(extras: list[str]) -> str:
    return ", ".join(extras) or "base"


def _removed_note(entry: dict) -> str:
    return "was " + _filters_note(entry["prefetched_by"]) if entry["prefetched_by"] else "was not prefetched"


def _rename_note(r: dict) -> str:
    was, now = r["old_prefetched_by"], r["new_prefetched_by"]
    if was and not now:
        return f"was prefetched by {', '.join(code(f) for f in was)}; no filter matches the new name"
    if now:
        return _filters_note(now)
    return "not prefetched before or after"


def _filter_line(f: dict) -> str:
    if f["status"] == "ok":
        return f"{len(f['new_actors'])} actor(s), as before"
    if f["status"] == "dropped":
        return (f"no longer in the Dockerfile (it gave {', '.join(class_name_of(a) for a in f['old_actors'])} a venv)"
                if f["old_actors"] else "no longer in the Dockerfile")
    if f["status"] == "added":
        return f"new in the Dockerfile: {', '.join(class_name_of(a) for a in f['new_actors'])}"
    if f["status"] == "no-match":
        extra = (f"; it matches {', '.join(class_name_of(a) for a in f['new_system_matches'])}, which run(s) on the "
                 "system interpreter") if f["new_system_matches"] else ""
        was = f"matched {', '.join(class_name_of(a) for a in f['old_actors'])}" if f["old_actors"] else "matched nothing"
        return f"matches NO actor in NEW ({was} in OLD){extra}"
    gained = [class_name_of(a) for a in f["new_actors"] if a not in f["old_actors"]]
    lost = [class_name_of(a) for a in f["old_actors"] if a not in f["new_actors"]]
    return "now " + "; ".join(x for x in (f"also {', '.join(gained)}" if gained else "",
                                          f"no longer {', '.join(lost)}" if lost else "") if x)


def _shared_rows(entries: list[dict], with_source: bool = False) -> str:
    return "; ".join(f"{e['version']}{' (' + e['source'] + ')' if with_source else ''} shared by "
                     f"{', '.join(e['extras'])}" for e in entries)


def _shared_change(x: dict) -> str:
    """Old -> new; the sources too when the versions alone would read the same."""
    same = [e["version"] for e in x["old"]] == [e["version"] for e in x["new"]]
    return f"{_shared_rows(x['old'], same)} -> {_shared_rows(x['new'], same)}"


def _headline(r: dict) -> str:
    s, c = r["summary"], r["conflicts"]
    parts = [f"{s['actors_added']} actor(s) added, {s['actors_removed']} removed, {s['actors_renamed']} renamed",
             f"{s['filters_stale']} filter(s) match nothing",
             f"venvs +{s['venvs_added']} -{s['venvs_removed']}",
             f"source builds +{s['source_builds_gained']} -{s['source_builds_lost']} ~{s['source_builds_changed']}",
             f"packages +{s['packages_added']} -{s['packages_removed']} ~{s['packages_changed']}",
             f"shared builds +{s['shared_builds_gained']} -{s['shared_builds_lost']} ~{s['shared_builds_changed']}",
             f"conflict groups {c['old_count']} -> {c['new_count']}" if _conflicts_changed(c)
             else f"conflict groups {c['new_count']} (unchanged)"]
    keys = s["key_versions_changed"]
    parts.append(f"key versions changed: {', '.join(keys)}" if keys else "key versions unchanged")
    return "; ".join(parts)


def _conflicts_changed(c: dict) -> bool:
    return bool(c["added"] or c["removed"]) or c["old_count"] != c["new_count"]


def _where(entry: dict) -> str:
    """The venvs a merged change reaches: every one, or each install set with its venvs' class names."""
    if entry["every_venv"]:
        return f"every venv ({len(entry['venvs'])})"
    return "; ".join(f"{extras}: {', '.join(class_name_of(v) for v in venvs)}" if venvs else extras
                     for extras, venvs in entry["sets"])


def _with_sets(entries: list[dict], packages: list[dict]) -> list[dict]:
    """Each merged change with (install set, its venvs) pairs, for _where."""
    venvs = {p["extras"]: list(dict.fromkeys([*p["new_venvs"], *p["old_venvs"]])) for p in packages}
    return [{**e, "sets": [(x, venvs.get(x, [])) for x in e["extras"]]} for e in entries]


def _change_lines(r: dict) -> list[tuple[str, str, str]]:
    """(sign, change, where) per package change, each once with the venvs it reaches, for either format."""
    out = []
    for e in _with_sets(r["package_changes"], r["packages"]):
        sign = {"added": "+", "removed": "-", "changed": "~"}[e["change"]]
        text = f"{e['name']} {e['old']} -> {e['new']}" if e["change"] == "changed" else f"{e['name']} {e['version']}"
        out.append((sign, text, _where(e)))
    return out


def _build(b: dict) -> str:
    return f"{b['version']} ({b['source']})"


def _build_lines(r: dict) -> list[tuple[str, str, str]]:
    """(sign, build, where) per source build gained, lost or changed."""
    out = []
    for e in _with_sets(r["source_builds"], r["packages"]):
        if e["change"] == "changed":
            out.append(("~", f"{e['name']} {_build(e['old'])} -> {_build(e['new'])}", _where(e)))
        else:
            out.append(("+" if e["change"] == "gained" else "-", f"{e['name']} {_build(e)}", _where(e)))
    return out


def _counts(p: dict) -> str:
    if not (p["added"] or p["removed"] or p["changed"]):
        return "unchanged"
    return f"+{len(p['added'])} -{len(p['removed'])} ~{len(p['changed'])}"


def _venv_names(p: dict) -> str:
    """The venvs sharing this install set; one that only OLD or only NEW has is marked so."""
    names = list(dict.fromkeys([*p["new_venvs"], *p["old_venvs"]]))

    def mark(name: str) -> str:
        if name not in p["new_venvs"]:
            return " (OLD only)"
        return " (NEW only)" if name not in p["old_venvs"] else ""
    return ", ".join(class_name_of(n) + mark(n) for n in names)


def _set_note(p: dict) -> str:
    if p["old_missing"]:
        return " (OLD has no such install set)"
    if p["new_missing"]:
        return " (NEW has no such install set)"
    return ""


# ------------------------------------------------------------------------------------- in plain words

def _names(items: list[str], most: int = 3) -> str:
    """`A`, `B` and `C`; `A`, `B`, `C` and 2 more."""
    shown = [code(x) for x in items[:most]]
    if len(items) > most:
        return f"{', '.join(shown)} and {len(items) - most} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _explained(base: dict, topic_args: list[dict]) -> bool:
    """A stage's base that moved only because a build ARG with a topic of its own moved (`uv:${UV_VERSION}`)."""
    was = base["old"] or ""
    for a in topic_args:
        if a["old"] and a["new"]:
            was = was.replace(a["old"], a["new"])
    return bool(topic_args) and was == base["new"]


def _value(v: str | None) -> str:
    """A build ARG's default as the reports show it."""
    return "(not set)" if v is None else "(empty)" if v == "" else code(v)


def _image_phrases(image: dict) -> list[str]:
    """The Dockerfile's changes a reviewer names: base image, uv, CUDA arch list, users, warmed extras, the
    other build ARGs and steps by count."""
    out = []
    topics = [a for a in image["args"] if a["topic"]]
    for b in image["bases"]:
        if b["old"] and b["new"] and not _explained(b, topics):
            out.append(f"base image of stage {code(b['stage'])} {code(b['old'])} → {code(b['new'])}")
        elif not b["old"] or not b["new"]:
            out.append(f"stage {code(b['stage'])} {'added' if b['new'] else 'removed'}")
    seen: dict[str, dict[str, dict]] = {}
    for a in topics:   # one change per ARG name: the first declaration that changed (the global one first)
        seen.setdefault(a["topic"], {}).setdefault(a["name"], a)
    for topic, args in seen.items():
        if len(args) == 1 and topic not in ("users", "CUDA arch list"):
            a = next(iter(args.values()))
            out.append(f"{topic} {_value(a['old'])} → {_value(a['new'])}")
        else:
            out.append(f"{topic}: " + ", ".join(f"{code(a['name'])} {_value(a['old'])} → {_value(a['new'])}"
                                                 for a in args.values()))
    if image["users"]:
        out.append(f"the user of stage(s) {_names([u['stage'] for u in image['users']])}")
    warmed = image["warmed"]
    if warmed["added"]:
        out.append(f"warms {_names(warmed['added'])} too")
    if warmed["removed"]:
        out.append(f"no longer warms {_names(warmed['removed'])}")
    in_bases = {name for b in image["bases"] for name in b["args"]}   # said above, as the base image
    others = list(dict.fromkeys(a["name"] for a in image["args"] if not a["topic"] and a["name"] not in in_bases))
    if others:
        out.append(f"build argument(s) {_names(others)}")
    if image["steps"]:
        added = sum(s["change"] == "added" for s in image["steps"])
        out.append(f"build steps +{added} -{len(image['steps']) - added}")
    return out


def plain_summary(r: dict) -> str:
    """One sentence in plain words: what a reviewer of the image needs first (the venvs, the source builds,
    the key versions, the base image and tools), or that nothing a reader of the image sees changed."""
    s, parts = r["summary"], []
    v = r["venvs"]
    if v["added"] or v["removed"] or v["old_count"] != v["new_count"]:
        detail = [f"drops {_names([class_name_of(x['actor']) for x in v['removed']])}" if v["removed"] else "",
                  f"adds {_names([class_name_of(x['actor']) for x in v['added']])}" if v["added"] else ""]
        parts.append(f"venvs {v['old_count']} → {v['new_count']}"
                     + (f" ({'; '.join(d for d in detail if d)})" if any(detail) else ""))
    if r["source_builds"]:
        parts.append(f"source builds +{s['source_builds_gained']} -{s['source_builds_lost']} "
                     f"~{s['source_builds_changed']} ({_names(list(dict.fromkeys(b['name'] for b in r['source_builds'])))})")
    for k in r["key_versions"]:
        if k["changed"]:
            if k["name"] == "python":
                parts.append(f"Python {code(_python(k['old']))} → {code(_python(k['new']))}")
            else:
                parts.append(f"{k['name']} {code(_versions(k['old']))} → {code(_versions(k['new']))}")
    parts += _image_phrases(r["image"])
    a = r["actors"]
    if a["added"] or a["removed"] or a["renamed"]:
        parts.append(f"actors +{len(a['added'])} -{len(a['removed'])}, {len(a['renamed'])} renamed")
    if s["filters_stale"]:
        parts.append(f"{s['filters_stale']} prefetch filter(s) match no actor")
    if s["packages_added"] or s["packages_removed"] or s["packages_changed"]:
        parts.append(f"packages +{s['packages_added']} -{s['packages_removed']} ~{s['packages_changed']}")
    for which in ("old", "new"):
        if r["dockerfile"]["problems"][which]:
            parts.append(f"the Dockerfile does not fit the {which.upper()} snapshot")
    old, new = r["old"].get("commit"), r["new"].get("commit")
    if old != new and new:
        parts.append(f"NeMo-RL commit {code((old or '(none)')[:12])} → {code(new[:12])}")
    if not parts:
        return "Nothing a reader of the image sees changed."
    return "For the image: " + "; ".join(parts) + "."


# ---------------------------------------------------------------------------------------------------- text

def diff_text(r: dict) -> str:
    out = [f"OLD {_side(r['old'])}", f"NEW {_side(r['new'])}",
           f"Dockerfile {r['dockerfile']['path']}: {len(r['dockerfile']['filters'])} prefetch filters",
           _headline(r)]
    for which in ("old", "new"):
        if r["dockerfile"]["problems"][which]:
            out.append(f"! the Dockerfile does not fit {which.upper()}: {r['dockerfile']['problems'][which]}")
    if r["extras"]["added"] or r["extras"]["removed"]:
        out += ["", "Extras:", *[f"  + {e}" for e in r["extras"]["added"]],
                *[f"  - {e}" for e in r["extras"]["removed"]]]
    a = r["actors"]
    out += ["", "Actors:"]
    out += [f"  + {x['actor']} [{_extras(x['extras'])}]: {_actor_note(x)}" for x in a["added"]]
    out += [f"  - {x['actor']}: {_removed_note(x)}" for x in a["removed"]]
    out += [f"  ~ {x['old']} -> {x['new']} ({x['how']}): {_rename_note(x)}" for x in a["renamed"]]
    out += [f"  ~ {x['actor']}: extras [{_extras(x['old_extras'])}] -> [{_extras(x['new_extras'])}]"
            f" ({x['old_command']} -> {x['new_command']})" for x in a["changed"]]
    if not any(a.values()):
        out.append("  unchanged")
    out += ["", "Prefetch filters of the Dockerfile against NEW:"]
    width = max((len(f["filter"]) for f in r["filters"]), default=0)
    out += [f"  {f['status']:<8} {f['filter']:<{width}}  {_filter_line(f)}" for f in r["filters"]]
    v = r["venvs"]
    out += ["", f"Venvs: {v['old_count']} -> {v['new_count']}"]
    out += [f"  + {x['path']} [{_extras(x['extras'])}]" for x in v["added"]]
    out += [f"  - {x['path']} [{_extras(x['extras'])}]" for x in v["removed"]]
    out += ["", "Source builds per prefetched venv (git, URL and path sources, sdists, editables):"]
    out += [f"  {sign} {text}  in {where}" for sign, text, where in _build_lines(r)] or ["  unchanged"]
    out += ["", "Packages per prefetched venv (one install set per extras):"]
    out += [f"  {p['extras']} ({_venv_names(p)}): {_counts(p)}{_set_note(p)}" for p in r["packages"]]
    changes = _change_lines(r)
    if changes:
        out += ["  each change once, with the venvs it reaches:"]
        out += [f"    {sign} {text}  in {where}" for sign, text, where in changes]
    s = r["shared_builds"]
    out += ["", "Shared source builds (between warmed extras):"]
    out += [f"  + {x['package']}: {_shared_rows(x['new'])}" for x in s["gained"]]
    out += [f"  - {x['package']}: no longer shared (was {_shared_rows(x['old'])})" for x in s["lost"]]
    out += [f"  ~ {x['package']}: {_shared_change(x)}" for x in s["changed"]]
    if not any(s.values()):
        out.append("  unchanged")
    c = r["conflicts"]
    out += ["", f"Conflict groups: {c['old_count']} -> {c['new_count']}" if _conflicts_changed(c)
            else f"Conflict groups: {c['new_count']} (unchanged)"]
    out += [f"  + {g}" for g in c["added"]] + [f"  - {g}" for g in c["removed"]]
    out += ["", "Key versions:"]
    for k in r["key_versions"]:
        if k["name"] == "python":
            was, now = _python(k["old"]), _python(k["new"])
        else:
            was, now = _versions(k["old"]), _versions(k["new"])
        out.append(f"  {k['name']:<19} {was + ' -> ' + now if k['changed'] else now + ' (unchanged)'}")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------------ markdown

def _cell(value: str) -> str:
    """Text made from input names (and this module's code spans), as one table cell or list item: through the
    prose escaper (no HTML, no markup from the input), pipes escaped, one line."""
    return text(value).replace("|", "\\|").replace("\n", " ")


def _image_section(image: dict) -> list[str]:
    out = []
    out += [f"- build argument {code(a['name'])}{' (stage ' + code(a['stage']) + ')' if a['stage'] else ''}: "
            f"{_value(a['old'])} → {_value(a['new'])}"
            f"{' (' + a['topic'] + ')' if a['topic'] else ''}" for a in image["args"]]
    out += [f"- stage {code(b['stage'])} starts FROM {code(b['old']) if b['old'] else '(no such stage)'} → "
            f"{code(b['new']) if b['new'] else '(no such stage)'}" for b in image["bases"]]
    out += [f"- stage {code(u['stage'])} runs as {', '.join(code(x) for x in u['old']) or '(no USER)'} → "
            f"{', '.join(code(x) for x in u['new']) or '(no USER)'}" for u in image["users"]]
    out += [f"- warms the extra {code(e)} in the uv cache" for e in image["warmed"]["added"]]
    out += [f"- no longer warms the extra {code(e)}" for e in image["warmed"]["removed"]]
    if image["steps"]:
        out += [""] if out else []
        out += [f"{len(image['steps'])} build step(s) removed (-) or added (+), per stage; each by its first line, "
                "or where a step edited in place differs:", ""]
        out += _fenced("diff", [f"{'+' if x['change'] == 'added' else '-'} [{x['stage']}] {x['step']}"
                                for x in image["steps"]])
    return out


def _fenced(lang: str, lines: list[str]) -> list[str]:
    """A fenced block of input text: one line per line, its fence longer than any backtick run inside."""
    lines = [line.replace("\r", " ").replace("\n", " ") for line in lines]
    fence = "`" * max([3, *(len(run) + 1 for line in lines for run in _BACKTICKS.findall(line))])
    return [fence + lang, *lines, fence]


_BACKTICKS = re.compile(r"`+")


def _sections(r: dict, changed_only: bool) -> list[tuple[str, list[str]]]:
    """(heading, lines) per section of the Markdown report; with `changed_only`, the sections where something
    changed (the changelog), else every section (a bump's review)."""
    out: list[tuple[str, list[str]]] = []

    def add(title: str, lines: list[str], changed: bool) -> None:
        if changed or not changed_only:
            out.append((title, lines))

    if r["summary"]["dockerfile_changed"]:
        add("The Dockerfile", _image_section(r["image"]), True)
    if r["extras"]["added"] or r["extras"]["removed"]:
        add("Extras", [f"- added {code(e)}" for e in r["extras"]["added"]]
            + [f"- removed {code(e)}" for e in r["extras"]["removed"]], True)
    a = r["actors"]
    lines = []
    if any(a.values()):
        lines += ["| change | actor | extras | prefetch |", "|---|---|---|---|"]
        lines += [f"| added | {code(x['actor'])} | {_cell(_extras(x['extras']))} | {_cell(_actor_note(x))} |"
                  for x in a["added"]]
        lines += [f"| removed | {code(x['actor'])} | {_cell(_extras(x['extras']))} | {_cell(_removed_note(x))} |"
                  for x in a["removed"]]
        lines += [f"| renamed ({x['how']}) | {code(x['old'])} -> {code(x['new'])} | {_cell(_extras(x['new_extras']))} | "
                  f"{_cell(_rename_note(x))} |" for x in a["renamed"]]
        lines += [f"| executable changed | {code(x['actor'])} | {_cell(_extras(x['old_extras']))} -> "
                  f"{_cell(_extras(x['new_extras']))} | {_cell(_filters_note(x['new_prefetched_by']))} |"
                  for x in a["changed"]]
    else:
        lines.append("No actor added, removed, renamed or changed.")
    add("Actors", lines, any(a.values()))
    filters = [f for f in r["filters"] if f["status"] != "ok"] if changed_only else r["filters"]
    add("Prefetch filters against NEW", ["| filter | status | |", "|---|---|---|"]
        + [f"| {code(f['filter'])} | {'ok' if f['status'] == 'ok' else '**' + f['status'] + '**'} | "
           f"{_cell(_filter_line(f))} |" for f in filters], bool(filters))
    v = r["venvs"]
    lines = [f"- added {code(x['path'])} ({_cell(_extras(x['extras']))})" for x in v["added"]]
    lines += [f"- removed {code(x['path'])} ({_cell(_extras(x['extras']))})" for x in v["removed"]]
    add(f"Venvs: {v['old_count']} -> {v['new_count']}", lines or ["The same venvs."],
        bool(lines) or v["old_count"] != v["new_count"])
    builds = _build_lines(r)
    add(f"Source builds per prefetched venv: +{r['summary']['source_builds_gained']} "
        f"-{r['summary']['source_builds_lost']} ~{r['summary']['source_builds_changed']}",
        [f"- {({'+': 'gained', '-': 'lost', '~': 'changed'})[sign]} {code(t)} in {_cell(where)}"
         for sign, t, where in builds] or ["No source build gained, lost or changed (git, URL and path "
                                           "sources, sdists, editables)."], bool(builds))
    changes = _change_lines(r)
    rows = [p for p in r["packages"] if not changed_only or p["added"] or p["removed"] or p["changed"]
            or p["old_missing"] or p["new_missing"]]
    lines = ["| extras | venvs | added | removed | re-versioned |", "|---|---|---|---|---|"]
    lines += [f"| {code(p['extras'])}{_cell(_set_note(p))} | {_cell(_venv_names(p))} | {len(p['added'])} | "
              f"{len(p['removed'])} | {len(p['changed'])} |" for p in rows]
    if changes:   # `!` is how a diff block colours a changed line
        lines += ["", f"<details><summary>{len(changes)} package change(s), each once with the venvs it reaches"
                  "</summary>", ""]
        lines += _fenced("diff", [f"{'!' if sign == '~' else sign} {t}  in {where}" for sign, t, where in changes])
        lines += ["", "</details>"]
    add("Packages per prefetched venv", lines, bool(rows) and (bool(changes) or any(
        p["old_missing"] or p["new_missing"] for p in rows)))
    sh = r["shared_builds"]
    lines = [f"- gained {code(x['package'])}: {_cell(_shared_rows(x['new']))}" for x in sh["gained"]]
    lines += [f"- lost {code(x['package'])}: no longer shared (was {_cell(_shared_rows(x['old']))})" for x in sh["lost"]]
    lines += [f"- changed {code(x['package'])}: {_cell(_shared_change(x))}" for x in sh["changed"]]
    add("Shared source builds", lines or ["The same source builds are shared."], bool(lines))
    c = r["conflicts"]
    lines = [f"- added {code(g)}" for g in c["added"]] + [f"- removed {code(g)}" for g in c["removed"]]
    add(f"Conflict groups: {c['old_count']} -> {c['new_count']}" if _conflicts_changed(c)
        else f"Conflict groups: {c['new_count']} (unchanged)", lines or ["The same conflict groups."],
        _conflicts_changed(c))
    keys = [k for k in r["key_versions"] if k["changed"] or not changed_only]
    lines = ["| | OLD | NEW |", "|---|---|---|"]
    for k in keys:
        if k["name"] == "python":
            was, now = _python(k["old"]), _python(k["new"])
        else:
            was, now = _versions(k["old"]), _versions(k["new"])
        mark = "**" if k["changed"] else ""
        lines.append(f"| {mark}{k['name']}{mark} | {_cell(was)} | {_cell(now)} |")
    add("Key versions", lines, bool(keys))
    return out


def has_sections(r: dict) -> bool:
    """Whether a changelog entry has anything beyond its sentence: a section where something changed, or a
    Dockerfile that does not fit a side."""
    return bool(_sections(r, True)) or any(r["dockerfile"]["problems"].values())


def diff_markdown(r: dict, changed_only: bool = False) -> str:
    """The report as Markdown: a bump's review (every section), or with `changed_only` a changelog entry's
    body (the sentence in plain words first, and only the sections where something changed)."""
    if changed_only:
        out = ["### What changes for the image", "", plain_summary(r), ""]
    else:
        out = ["### NeMo-RL bump: what changes for the image", "",
               f"- OLD: {_cell(_side(r['old']))}", f"- NEW: {_cell(_side(r['new']))}",
               f"- Dockerfile: {code(r['dockerfile']['path'])} ({len(r['dockerfile']['filters'])} prefetch filters)",
               "", f"**{_cell(_headline(r))}**", ""]
    for which in ("old", "new"):
        if r["dockerfile"]["problems"][which]:
            problem = text(r["dockerfile"]["problems"][which]).replace("\n", " ")
            out += [f"> **The Dockerfile does not fit {which.upper()}:** {problem}", ""]
    for title, lines in _sections(r, changed_only):
        out += [f"#### {title}", "", *lines, ""]
    return "\n".join(out).rstrip("\n") + "\n"
