"""The site built from hostile inputs, opened in Chromium (issue 28): Dockerfile comments, a not-prefetched
reason, the snapshot's free-text fields and a commit subject in the snapshot's history hold script, HTML,
Markdown links, images and attribute lists, and mermaid directives. One build, a few pages: no script runs
(no `Runtime` exception, no dialog, the `window` canaries untouched), no request leaves the site's origin,
and no file is written outside the build folder."""

from __future__ import annotations

import json
import re
import os
import subprocess
from pathlib import Path

import pytest

from tests.site.conftest import build_site, serve_site
from tests.site.test_browser import _problems, _requests
from tests.site.test_site_follows_model import _copy_repo, _python

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# each one, if it ran, would set a canary, open a dialog or ask the (unresolvable) outside host for something
SCRIPT = "<script>window.__pwned_script=1</script>"
IMG = "<img src=x onerror=window.__pwned_img=1>"
LINK = "[click](javascript:window.__pwned_link=1)"
IMAGE = "![i](https://outside.invalid/i.png)"
ATTR = '![i](x.png){: onerror="window.__pwned_attr=1"}'
SVG = "<svg onload=window.__pwned_svg=1>"
DIRECTIVE = '%%{init: {"themeCSS": "background:url(https://outside.invalid/c.png)"}}%%'
PAYLOADS = (SCRIPT, IMG, LINK, IMAGE, ATTR, SVG, DIRECTIVE)
SUBJECT = f"Bump NeMo-RL {IMG} {LINK} {IMAGE} {ATTR}"   # a commit subject: one line of text
CANARIES = ("__pwned_script", "__pwned_img", "__pwned_link", "__pwned_attr", "__pwned_svg")
PAGES = ("", "building/options/", "reference/actors/", "reference/venvs/", "changelog/", "image/venvs/")

WATCH = """
window.__dialogs = 0;
for (const name of ["alert", "confirm", "prompt", "print", "open"]) {
  window[name] = function () { window.__dialogs += 1; };
}
"""


def _hostile_inputs(root: Path) -> None:
    dockerfile = root / "Dockerfile.nmp-rl-base"
    text = dockerfile.read_text()
    anchor = "ARG UV_VERSION="
    reason = "critic-free value worker\n"
    assert anchor in text and reason in text
    comment = "".join(f"# {payload}\n" for payload in PAYLOADS)
    text = text.replace(anchor, comment + anchor, 1)
    text = text.replace(reason, f"critic-free value worker {IMG} {LINK} {DIRECTIVE}\n", 1)
    # a COPY source is drawn on the image graph's arrow: the directive there is inside a diagram
    copy = "COPY --from=uv /uv /uvx /usr/local/bin/"
    assert copy in text
    text = text.replace(copy, f"COPY --from=uv /uv /uvx /{DIRECTIVE.replace(' ', '')} /usr/local/bin/", 1)
    dockerfile.write_text(text)
    snapshot = root / "snapshot" / "nemo-rl.json"
    data = json.loads(snapshot.read_text())
    project = data["project"]
    project["overrides"][0] += " ; " + " ".join(PAYLOADS)
    first = next(iter(project["extras"]))
    project["extras"][first][0] += " ; " + " ".join(PAYLOADS)
    project["sources"][0]["marker"] = " ".join(PAYLOADS)
    data["provenance"]["note"] = " ".join(PAYLOADS)
    snapshot.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def _git(root: Path, *args: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True)


def _tree(top: Path, skip: Path) -> dict[str, tuple[int, int]]:
    """Every file under `top` but those under `skip`: size and modification time."""
    out = {}
    for folder, dirs, files in os.walk(top):
        if Path(folder) == skip:
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if not (Path(folder) / d).is_symlink()]
        for name in files:
            path = Path(folder) / name
            st = path.lstat()
            out[str(path.relative_to(top))] = (st.st_size, st.st_mtime_ns)
    return out


def test_a_site_built_from_hostile_inputs_runs_no_script_and_asks_nothing_outside(tmp_path, chromium):
    root = _copy_repo(tmp_path / "repo")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "before")
    _hostile_inputs(root)
    written = _python(root, "-m", "docgen", "write")
    assert written.returncode == 0, written.stdout + written.stderr
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", SUBJECT)

    site = tmp_path / "site"
    before = _tree(tmp_path, site)
    build = build_site(root, site)
    assert build.returncode == 0, build.output[-3000:]
    assert "Traceback" not in build.output
    after = _tree(tmp_path, site)
    # the build writes the self-hosted mermaid into docs/assets/js (git-ignored) and nothing else
    outside = sorted(k for k in after if before.get(k) != after[k] and not k.endswith("assets/js/mermaid.min.js"))
    assert outside == [], outside

    served = tmp_path / "served"
    served.mkdir()
    server, base = serve_site(site, served)
    scripts, requests, problems = 0, 0, []
    try:
        chromium.page("Page.enable")
        watch = chromium.page("Page.addScriptToEvaluateOnNewDocument", source=WATCH)["identifier"]
        try:
            for page in PAGES:
                url = base + page
                events = chromium.open(url)
                # mermaid renders after the load event: wait for its diagrams (or none) before judging
                assert chromium.wait_for("document.querySelectorAll('.mermaid:not([data-processed])').length === 0"
                                         " || !document.querySelector('.mermaid')"), f"/{page}: mermaid never finished"
                events += chromium.drain_events()
                requests += len(_requests(events))
                problems += [f"/{page}: {p}" for p in _problems(events, base)]
                problems += [f"/{page}: dialog" for e in events if e.get("method") == "Page.javascriptDialogOpening"]
                assert chromium.evaluate("typeof window.__dialogs") == "number", "the watch script did not run"
                ran = chromium.evaluate("[window.__dialogs, " + ", ".join(f"window.{c} || 0" for c in CANARIES) + "]")
                scripts += sum(ran)
                problems += [f"/{page}: script ran ({ran})"] if any(ran) else []
        finally:
            chromium.page("Page.removeScriptToEvaluateOnNewDocument", identifier=watch)
            chromium.open("about:blank")
    finally:
        server.shutdown()
        server.server_close()
    print(f"\nhostile site: {len(PAGES)} pages, {requests} requests; scripts run {scripts}, off-site or failed "
          f"requests and script errors {len(problems)}, files written outside the build {len(outside)}")
    assert requests > 20, "too few requests recorded: the Network domain is not reporting"
    assert problems == [] and scripts == 0
    # the payloads are on the pages, as text
    options = (site / "building" / "options" / "index.html").read_text()
    assert "__pwned_script" in options and "<script>window.__pwned" not in options
    graph = (site / "index.html").read_text()
    diagrams = "".join(body for _, body in re.findall(r'<(pre|div) class="mermaid"[^>]*>(.*?)</\1>', graph, re.S))
    assert "#37;#37;#123;init:#123;" in diagrams and "%%{init" not in diagrams   # in the diagram, as entities
    # elsewhere on the page only as text in code (the stage table under the diagram), which no mermaid reads
    outside = re.sub(r'<(pre|div) class="mermaid"[^>]*>.*?</\1>', "", graph, flags=re.S)
    assert "%%{init" not in re.sub(r"<code>[^<]*</code>", "", outside)


def test_an_actor_named_out_of_the_site_stops_the_build_naming_it_and_writes_nothing_outside(tmp_path):
    """The loader refuses the name before any page is made: the build stops on bad input (the snapshot and
    the key path named), and nothing is written outside the build folder."""
    root = _copy_repo(tmp_path / "repo")
    snapshot = root / "snapshot" / "nemo-rl.json"
    data = json.loads(snapshot.read_text())
    data["registry"]["actors"][0]["actor"] = "../../../../escaped/Worker"
    snapshot.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    site = tmp_path / "site"
    before = _tree(tmp_path, site)
    build = build_site(root, site)
    after = _tree(tmp_path, site)
    assert build.returncode != 0
    assert "malformed snapshot: registry.actors[0].actor" in build.output, build.output[-3000:]
    assert "Traceback" not in build.output, build.output[-3000:]
    assert sorted(k for k in after if before.get(k) != after[k] and not k.endswith("assets/js/mermaid.min.js")) == []
    assert not list(tmp_path.parent.glob("**/escaped"))
