"""`docgen diff` reports: the report dict of docgen.diff.compare as terminal text or as Markdown (a PR
comment, or the job summary). Both say the same things in the same order; JSON is the dict itself."""

from __future__ import annotations

from docgen.model import class_name_of


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
    return "prefetched by " + ", ".join(f"`{f}`" for f in filters) if filters else "not prefetched"


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
        return f"was prefetched by {', '.join(f'`{f}`' for f in was)}; no filter matches the new name"
    if now:
        return _filters_note(now)
    return "not prefetched before or after"


def _filter_line(f: dict) -> str:
    if f["status"] == "ok":
        return f"{len(f['new_actors'])} actor(s), as before"
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

def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def diff_markdown(r: dict) -> str:
    out = ["### NeMo-RL bump: what changes for the image", "",
           f"- OLD: {_cell(_side(r['old']))}", f"- NEW: {_cell(_side(r['new']))}",
           f"- Dockerfile: `{r['dockerfile']['path']}` ({len(r['dockerfile']['filters'])} prefetch filters)",
           "", f"**{_headline(r)}**", ""]
    for which in ("old", "new"):
        if r["dockerfile"]["problems"][which]:
            problem = _cell(r["dockerfile"]["problems"][which])
            out += [f"> **The Dockerfile does not fit {which.upper()}:** {problem}", ""]
    if r["extras"]["added"] or r["extras"]["removed"]:
        out += ["#### Extras", ""] + [f"- added `{e}`" for e in r["extras"]["added"]]
        out += [f"- removed `{e}`" for e in r["extras"]["removed"]] + [""]
    a = r["actors"]
    out += ["#### Actors", ""]
    if any(a.values()):
        out += ["| change | actor | extras | prefetch |", "|---|---|---|---|"]
        out += [f"| added | `{x['actor']}` | {_extras(x['extras'])} | {_cell(_actor_note(x))} |" for x in a["added"]]
        out += [f"| removed | `{x['actor']}` | {_extras(x['extras'])} | {_cell(_removed_note(x))} |"
                for x in a["removed"]]
        out += [f"| renamed ({x['how']}) | `{x['old']}` -> `{x['new']}` | {_extras(x['new_extras'])} | "
                f"{_cell(_rename_note(x))} |" for x in a["renamed"]]
        out += [f"| executable changed | `{x['actor']}` | {_extras(x['old_extras'])} -> {_extras(x['new_extras'])} | "
                f"{_cell(_filters_note(x['new_prefetched_by']))} |" for x in a["changed"]]
    else:
        out.append("No actor added, removed, renamed or changed.")
    out += ["", "#### Prefetch filters against NEW", "", "| filter | status | |", "|---|---|---|"]
    out += [f"| `{f['filter']}` | {'ok' if f['status'] == 'ok' else '**' + f['status'] + '**'} | "
            f"{_cell(_filter_line(f))} |" for f in r["filters"]]
    v = r["venvs"]
    out += ["", f"#### Venvs: {v['old_count']} -> {v['new_count']}", ""]
    out += [f"- added `{x['path']}` ({_extras(x['extras'])})" for x in v["added"]]
    out += [f"- removed `{x['path']}` ({_extras(x['extras'])})" for x in v["removed"]]
    if not v["added"] and not v["removed"]:
        out.append("The same venvs.")
    builds = _build_lines(r)
    out += ["", f"#### Source builds per prefetched venv: +{r['summary']['source_builds_gained']} "
            f"-{r['summary']['source_builds_lost']} ~{r['summary']['source_builds_changed']}", ""]
    out += [f"- {({'+': 'gained', '-': 'lost', '~': 'changed'})[sign]} `{_cell(text)}` in {_cell(where)}"
            for sign, text, where in builds] or ["No source build gained, lost or changed (git, URL and path "
                                                 "sources, sdists, editables)."]
    out += ["", "#### Packages per prefetched venv", "",
            "| extras | venvs | added | removed | re-versioned |", "|---|---|---|---|---|"]
    for p in r["packages"]:
        out.append(f"| `{p['extras']}`{_cell(_set_note(p))} | {_venv_names(p)} | {len(p['added'])} | "
                   f"{len(p['removed'])} | {len(p['changed'])} |")
    changes = _change_lines(r)
    out.append("")
    if changes:   # `!` is how a diff block colours a changed line
        out += [f"<details><summary>{len(changes)} package change(s), each once with the venvs it reaches"
                "</summary>", "", "```diff"]
        out += [f"{'!' if sign == '~' else sign} {text}  in {where}" for sign, text, where in changes]
        out += ["```", "", "</details>", ""]
    s = r["shared_builds"]
    out += ["#### Shared source builds", ""]
    out += [f"- gained `{x['package']}`: {_shared_rows(x['new'])}" for x in s["gained"]]
    out += [f"- lost `{x['package']}`: no longer shared (was {_shared_rows(x['old'])})" for x in s["lost"]]
    out += [f"- changed `{x['package']}`: {_shared_change(x)}" for x in s["changed"]]
    if not any(s.values()):
        out.append("The same source builds are shared.")
    c = r["conflicts"]
    out += ["", f"#### Conflict groups: {c['old_count']} -> {c['new_count']}" if _conflicts_changed(c)
            else f"#### Conflict groups: {c['new_count']} (unchanged)", ""]
    out += [f"- added `{_cell(g)}`" for g in c["added"]] + [f"- removed `{_cell(g)}`" for g in c["removed"]]
    if not _conflicts_changed(c):
        out.append("The same conflict groups.")
    out += ["", "#### Key versions", "", "| | OLD | NEW |", "|---|---|---|"]
    for k in r["key_versions"]:
        if k["name"] == "python":
            was, now = _python(k["old"]), _python(k["new"])
        else:
            was, now = _versions(k["old"]), _versions(k["new"])
        mark = "**" if k["changed"] else ""
        out.append(f"| {mark}{k['name']}{mark} | {_cell(was)} | {_cell(now)} |")
    return "\n".join(out) + "\n"
