"""The built site in a real Chromium: mermaid diagrams render, and no request leaves the local server.

Every page is loaded once for all the tests that look at it in the browser's own window (the plain tour,
tests/site/visits.py); each test asserts on what that visit saw."""

from __future__ import annotations

import pytest

from tests.site.conftest import versions_json
from tests.site.html_pages import participant_labels, read_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Pages whose diagrams are rendered and checked: the workflow sequence diagrams first.
DIAGRAM_PAGES = ("concepts/workflows/", "", "image/layering/")


def _requests(events):
    return [e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"]


def _problems(events, base):
    """Requests that left the server, local ones that failed, and script errors."""
    out = []
    for url in _requests(events):
        # the version selector's one request outside the version's folder: mike's versions.json above it
        if not url.startswith((base, "data:", "blob:", "about:")) and url != versions_json(base):
            out.append(f"outside request: {url}")
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Network.responseReceived" and params["response"]["status"] >= 400:
            out.append(f"HTTP {params['response']['status']}: {params['response']['url']}")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            out.append(f"failed: {params.get('errorText')} (request {params['requestId']})")
        elif method == "Runtime.exceptionThrown":
            out.append(f"script error: {params['exceptionDetails'].get('text')}")
    return out


@pytest.mark.parametrize("url", DIAGRAM_PAGES)
def test_diagrams_render_with_their_participants(plain_tour, site, site_server, url):
    sources = read_site(site)[url].mermaid_sources
    assert sources, f"/{url} has no mermaid diagram (are its docgen blocks filled?)"
    visit = plain_tour[url]
    assert visit.rendered, f"/{url}: not every diagram turned into an SVG"
    rendered = visit.svgs
    assert len(rendered) == len(sources)
    for source, svg in zip(sources, rendered):
        assert "Syntax error" not in svg["text"], source[:200]
        assert svg["nodes"] >= 2, f"/{url}: a diagram rendered without nodes: {source[:200]}"
        if source.lstrip().startswith("sequenceDiagram"):
            assert svg["role"] == "sequence"
            labels = participant_labels(source)
            assert len(labels) >= 2
            missing = [label for label in labels if label not in svg["text"]]
            assert missing == [], f"/{url}: participants not drawn"
    assert _problems(visit.events, site_server) == []


def test_workflow_diagrams_show_the_workers(plain_tour, site):
    """DPO touches a policy worker only; GRPO adds the vLLM generation workers. Each lifeline is named by its
    role and extra (the table under the diagram names the classes)."""
    sources = read_site(site)["concepts/workflows/"].mermaid_sources
    assert len(sources) == 3  # DPO, GRPO on V2, GRPO on Megatron
    dpo, grpo_v2, grpo_megatron = (participant_labels(s) for s in sources)

    def lane(labels: list[str], noun: str, extra: str = "") -> bool:   # a label's lines, as the page holds them
        return any(p.startswith(noun) and p.endswith(extra) for p in labels)
    assert lane(dpo, "policy worker") and not lane(dpo, "generation worker")
    assert lane(grpo_v2, "policy worker", "automodel") and lane(grpo_v2, "generation worker", "vllm")
    assert lane(grpo_megatron, "policy worker", "mcore") and lane(grpo_megatron, "generation worker", "vllm")

    visit = plain_tour["concepts/workflows/"]
    assert visit.rendered
    # artifacts/site-workflows-dpo.png, as captured in this run
    assert len(visit.shot) > 10_000  # a blank capture of this size compresses to a few hundred bytes


def test_no_page_requests_anything_outside_the_site(plain_tour, site, site_server):
    problems, seen = [], 0
    for url in read_site(site):
        events = plain_tour[url].events
        seen += len(_requests(events))
        problems += [f"/{url}: {p}" for p in _problems(events, site_server)]
    assert seen > 50, "too few requests recorded: the Network domain is not reporting"
    assert problems == []
