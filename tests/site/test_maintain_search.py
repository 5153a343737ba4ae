"""The maintainer's runbooks are found by the words people search with: "upgrade" and "update NeMo-RL" find
the page that moves the image to a newer NeMo-RL, "review bump" the review runbook, "release" the release
runbook. Judged on the index Material's search reads (search/search_index.json): a page's own entry (its
title, which the search ranks highest) carries every word of the query."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.slow

QUERIES = {
    "upgrade": "maintain/upgrade-nemo-rl/",
    "update NeMo-RL": "maintain/upgrade-nemo-rl/",
    "newer NeMo-RL": "maintain/upgrade-nemo-rl/",
    "review bump": "maintain/review-bump/",
    "release": "maintain/release/",
}


def words(text: str) -> set[str]:
    return {w for w in re.split(r"[\s\-,.()]+", text.lower()) if w}


@pytest.mark.parametrize("query, location", QUERIES.items())
def test_the_runbook_is_found_by_its_title(site, query, location):
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    [page] = [d for d in docs if d["location"] == location]
    assert words(query) <= words(page["title"]), (query, page["title"])
    others = [d["location"] for d in docs if "#" not in d["location"] and words(query) <= words(d["title"])]
    assert others == [location], f"{query!r} also titles {others}"
