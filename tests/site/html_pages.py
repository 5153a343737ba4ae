"""Read a built mkdocs site: each page's ids, the URLs it references, its nav links, its mermaid sources."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

# Attributes through which a page references another resource (link targets or things it loads).
URL_ATTRS = {("a", "href"), ("link", "href"), ("script", "src"), ("img", "src"), ("source", "src"),
             ("iframe", "src"), ("form", "action")}
LOADED = {("link", "href"), ("script", "src"), ("img", "src"), ("source", "src"), ("iframe", "src")}
# <link> relations that only name a URL (the page's canonical address, the sitemap's): nothing is loaded
NAMING_RELS = {"canonical", "alternate", "sitemap"}
# The path the site is published under (mkdocs.yml's site_url): 404.html links absolutely below it.
SITE_PATH = "/nmp-rl-base/"


@dataclass
class Page:
    path: Path
    url: str                                                  # site-relative, e.g. "concepts/workers/"
    ids: set[str] = field(default_factory=set)
    refs: list[tuple[str, str, str]] = field(default_factory=list)   # (tag, attr, value)
    nav_links: list[str] = field(default_factory=list)
    mermaid_sources: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self, page: Page) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self._mermaid_depth = 0
        self._mermaid_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.page.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.page.ids.add(a["name"])
        for attr in ("href", "src", "action"):
            if (tag, attr) in URL_ATTRS and a.get(attr) is not None:
                named_only = tag == "link" and (a.get("rel") or "").lower() in NAMING_RELS
                self.page.refs.append(("link:" + a["rel"].lower() if named_only else tag, attr, a[attr]))
        classes = (a.get("class") or "").split()
        if tag == "a" and "md-nav__link" in classes and a.get("href") and not a["href"].startswith("#"):
            self.page.nav_links.append(a["href"])
        if self._mermaid_depth:
            if tag == "div":
                self._mermaid_depth += 1
        elif tag == "div" and "mermaid" in classes:
            self._mermaid_depth = 1
            self._mermaid_text = []

    def handle_endtag(self, tag):
        if self._mermaid_depth and tag == "div":
            self._mermaid_depth -= 1
            if not self._mermaid_depth:
                self.page.mermaid_sources.append("".join(self._mermaid_text))

    def handle_data(self, data):
        if self._mermaid_depth:
            self._mermaid_text.append(data)


def page_url(site: Path, path: Path) -> str:
    rel = path.relative_to(site).as_posix()
    return rel[: -len("index.html")] if rel.endswith("index.html") else rel


def read_page(site: Path, path: Path) -> Page:
    page = Page(path=path, url=page_url(site, path))
    parser = _Parser(page)
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return page


# Parsed sites by folder, with the (name, size, mtime) of each of its pages when it was parsed. Most site tests
# read the same built site (27 pages, 0.15 s of parsing each time); a page written since is parsed afresh.
_SITES: dict[Path, tuple[tuple, dict[str, Page]]] = {}


def read_site(site: Path) -> dict[str, Page]:
    """Every HTML page of the site by its URL. The Page objects are shared between callers: read them only."""
    files = sorted(site.rglob("*.html"))
    stamp = tuple((f, st.st_size, st.st_mtime_ns) for f in files for st in (f.stat(),))
    cached = _SITES.get(site.resolve())
    if cached is None or cached[0] != stamp:
        cached = _SITES[site.resolve()] = (stamp, {p.url: p for p in (read_page(site, f) for f in files)})
    return dict(cached[1])


def is_external(value: str) -> bool:
    parts = urlsplit(value)
    return bool(parts.scheme in ("http", "https") or value.startswith("//"))


def local_target(site: Path, page: Page, value: str) -> tuple[Path, str] | None:
    """The file a local reference points at and its fragment; None for non-local references."""
    parts = urlsplit(value)
    if parts.scheme or value.startswith("//"):
        return None
    resolved = urlsplit(urljoin("http://site.invalid" + SITE_PATH + page.url, value))
    path = unquote(resolved.path)
    if not (path + "/").startswith(SITE_PATH):
        return site / "(outside the site's path)" / path.lstrip("/"), unquote(resolved.fragment)
    rel = path[len(SITE_PATH):]
    target = site / rel
    if rel == "" or rel.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target, unquote(resolved.fragment)


PARTICIPANT = re.compile(r"^\s*(?:participant|actor)\s+(\S+)(?:\s+as\s+(.+?))?\s*$", re.M)


def participant_labels(mermaid_source: str) -> list[str]:
    """The first line of each participant's label, as a rendered diagram shows it."""
    out = []
    for pid, alias in PARTICIPANT.findall(html.unescape(mermaid_source)):
        label = alias or pid
        out.append(re.split(r"<br\s*/?>", label)[0].strip())
    return out
