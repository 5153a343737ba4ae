"""The site's search finds every registry actor by its class name and by the words of its role ("reward
model", "generation", "policy"): the index Material's search reads, and the search box in Chromium."""

from __future__ import annotations

import json

import pytest

from tests.site.visits import viewport

pytestmark = pytest.mark.slow


def search_docs(site) -> list[dict]:
    return json.loads((site / "search" / "search_index.json").read_text())["docs"]


def test_every_actor_has_a_search_entry_titled_by_its_class_with_its_role_in_words(site, repo_model):
    from docgen.model.stages import role_of

    docs = search_docs(site)
    by_title: dict[str, list[dict]] = {}
    for d in docs:
        by_title.setdefault(d["title"], []).append(d)
    assert repo_model.actors
    for actor in repo_model.actors:
        entries = [d for d in by_title.get(actor.class_name, []) if actor.fqn in d["text"]]
        assert entries, f"no search entry titled {actor.class_name} naming {actor.fqn}"
        text = entries[0]["text"].lower()
        role = role_of(actor.fqn)
        if role in ("policy", "generation", "environment", "value"):
            assert f"{role} worker" in text or role in text, (actor.fqn, role, text[:200])
    reward = [d for d in docs if "reward model" in d["text"].lower() and "RewardModelEnvironment" in d["title"]]
    assert reward, "searching 'reward model' would not find the reward-model environment"
    for role in ("generation", "policy"):
        actors = [a for a in repo_model.actors if role_of(a.fqn) == role]
        found = {d["title"] for d in docs if d["location"].startswith("reference/actors/") and f"{role} worker" in d["text"]}
        assert actors and {a.class_name for a in actors} <= found, role


# The search box as a reader uses it: type the words, read the titles of the results Material lists. The box
# is emptied first, and its results are seen gone, so that the results read are this query's, not the last one's
# (the four searches share one load of the page).
SEARCH = r"""
(async (query) => {
  const input = document.querySelector('input.md-search__input');
  const type = (text) => { input.focus(); input.value = text;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: 'l'})); };
  const items = () => [...document.querySelectorAll('.md-search-result__item')];
  if (input.value || items().length) {
    type('');
    for (let i = 0; i < 100 && items().length; i++) await new Promise(r => setTimeout(r, 100));
    if (items().length) return null;
  }
  type(query);
  for (let i = 0; i < 100; i++) {
    if (items().length) return items().map(e => e.textContent.replace(/\s+/g, ' ').trim());
    await new Promise(r => setTimeout(r, 100));
  }
  return [];
})
"""


@pytest.fixture(scope="module")
def search_page(chromium, site_server):
    """The home page at 1280 px, loaded once for the searches below; left on a blank page after them."""
    with viewport(chromium, 1280):
        chromium.open(site_server)
        chromium.wait_for("!!document.querySelector('input.md-search__input')")
        yield chromium
    chromium.open("about:blank")


@pytest.mark.browser
@pytest.mark.parametrize("query, expect", [("reward model", "RewardModelEnvironment"),
                                           ("VllmGenerationWorker", "VllmGenerationWorker"),
                                           ("generation worker", "GenerationWorker"),
                                           ("policy worker", "PolicyWorker")])
def test_the_search_box_finds_actors(search_page, query, expect):
    results = search_page.evaluate(f"({SEARCH})({json.dumps(query)})")
    assert results is not None, f"{query!r}: the previous search's results did not go when the box was emptied"
    assert any(expect in r for r in results[:10]), f"{query!r}: {results[:10]}"
