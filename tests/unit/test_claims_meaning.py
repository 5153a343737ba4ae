"""Claims checked for meaning (issue 22 point 4) and the claims coverage (point 8), on the repository's inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgen.blocks import parse_document
from docgen.check.mentions import scan
from docgen.check.prose import ALLOWED, COMPARED, RENDERED, REVIEWED, UNOWNED, Coverage, lint_document
from docgen.inputs.dockerfile import parse_dockerfile
from docgen.model.build import build_model
from docgen.model.claims import build_claims, builds_of, source_builds
from docgen.render.generators import GENERATORS
from docgen.render.values import VALUES
from docgen.snapshot.load import load_snapshot

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = load_snapshot(REPO / "snapshot" / "nemo-rl.json")


@pytest.fixture(scope="module")
def model():
    return build_model(parse_dockerfile((REPO / "Dockerfile.nmp-rl-base").read_text(), "Dockerfile"), SNAPSHOT)


def judge(text: str, model) -> tuple[list[str], list]:
    """The prose lint's findings and claims, then the mentions' (an actor's extras, a package's builds)."""
    doc = parse_document(text, "page.md", {n: g.params for n, g in GENERATORS.items()}, frozenset(VALUES))
    claims: list = []
    found = lint_document(doc, model, claims)
    for mention in scan(model, [doc]):
        found += mention.findings
        claims += mention.compared
    return [f"{f.line}: {f.message}" for f in sorted(found, key=lambda f: f.line or 0)], claims


def test_an_actor_beside_the_wrong_extra_or_interpreter_is_a_finding_and_the_right_one_is_checked(model):
    found, claims = judge("Intro.\n\n`NemoGym` runs in `nemo_gym` venvs.\n\n`NemoGym` runs in the `vllm` venvs.\n\n"
                          "`MegatronPolicyWorker` runs on the system interpreter.\n", model)
    assert len(found) == 2
    assert found[0].startswith("5: ") and "NemoGym runs with extra 'vllm'" in found[0] and "nemo_gym" in found[0]
    assert found[1].startswith("7: ") and "MegatronPolicyWorker runs on the system interpreter" in found[1]
    assert [c.line for c in claims if c.status == COMPARED] == [3, 5, 7]


def test_an_actor_is_named_by_any_tail_of_its_fqn_and_by_a_plain_class_name(model):
    """The mentions name an actor by its class name however it is spelled and by a dotted tail of its FQN, as
    the prose lint's own claim check did before the mentions judged these claims."""
    found, claims = judge("Intro.\n\n`VLMEnvironment` runs in the `vllm` venvs.\n\nThe `nemo_gym.NemoGym` actor runs "
                          "in `vllm` venvs.\n\nRAGEnvironment runs on the system interpreter.\n", model)
    assert found == ["3: the sentence says VLMEnvironment runs with extra 'vllm', but the model gives VLMEnvironment: the "
                     "system interpreter; render it from the model or fix the sentence",
                     "5: the sentence says nemo_gym.NemoGym runs with extra 'vllm', but the model gives NemoGym: "
                     "nemo_gym; render it from the model or fix the sentence"]
    assert [(c.line, c.text) for c in claims if c.status == COMPARED] == [
        (3, "VLMEnvironment runs with extra 'vllm'"), (5, "nemo_gym.NemoGym runs with extra 'vllm'"),
        (7, "RAGEnvironment runs on the system interpreter")]


def test_a_package_beside_built_from_source_shared_or_exactly_one_is_judged(model):
    found, claims = judge("The image builds torch from source.\n\nTransformer-Engine is built once and shared.\n\n"
                          "The vllm wheel is shared.\n\nThe lock holds exactly one TE.\n\n"
                          "TE stops being shared when the extras pin different versions.\n", model)
    assert len(found) == 2
    assert found[0].startswith("1: ") and "no warm step builds torch from source" in found[0]
    assert found[1].startswith("5: ") and "vllm is no source build shared" in found[1]
    assert {c.line for c in claims if c.status == COMPARED} == {1, 3, 5, 7}   # the denial on line 9 claims nothing


def test_a_hand_typed_uid_names_its_value_and_a_rendered_one_is_no_finding(model):
    found, claims = judge("A build user (uid 2000) owns them.\n\n"
                          "A build user (uid <!-- docgen:value build.uid -->2000<!-- docgen:end-value -->).\n", model)
    assert found == ["1: uid 'uid 2000' is written by hand; use <!-- docgen:value build.uid -->"]
    assert [(c.line, c.status) for c in claims] == [(3, RENDERED), (1, UNOWNED)]


def test_coverage_sorts_every_span_and_fails_only_on_unowned_ones(model):
    text = ("It has 9 venvs.\n\nIt has 9 venvs. <!-- docgen:allow prose an example -->\n\n"
            "<!-- docgen:begin quick-inventory -->\n<!-- docgen:end quick-inventory -->\n")
    _, claims = judge(text, model)
    coverage = Coverage((), tuple(claims))
    assert coverage.tally() == {RENDERED: 1, COMPARED: 0, REVIEWED: 0, ALLOWED: 1, UNOWNED: 1}
    assert round(coverage.percent, 1) == 66.7 and [c.line for c in coverage.unowned] == [1]
    assert coverage.line() == "docgen: claims coverage 66.7%: 1 rendered, 0 compared, 0 under review, 1 allowed, 1 unowned"


def test_source_builds_are_keyed_by_name_version_and_source(model):
    keys = [b.key for b in source_builds(model)]
    assert len(keys) == len(set(keys)) and keys == sorted(keys)
    te = builds_of(model, "transformer-engine")
    assert len(te) == 1 and te[0].extras == ("automodel", "mcore")
    second = SNAPSHOT.packages[next(k for k in SNAPSHOT.packages if k.startswith("transformer-engine=="))]
    other = second._replace(key="transformer-engine==9.9.9", version="9.9.9")
    packages = {**SNAPSHOT.packages, other.key: other}
    sets = {k: tuple(other.key if p == second.key else p for p in v) if k == "mcore" else v
            for k, v in SNAPSHOT.install_sets.items()}
    two = model._replace(snapshot=SNAPSHOT._replace(packages=packages, install_sets=sets))
    assert [(b.version, b.extras) for b in builds_of(two, "transformer-engine")] == \
        [("2.15.0+42b8400", ("automodel",)), ("9.9.9", ("mcore",))]


def test_a_builds_comment_over_a_prebuilt_package_is_a_claim_with_a_problem(model):
    assert not [c for c in build_claims(model) if c.problem]
    key = next(k for k in SNAPSHOT.packages if k.startswith("transformer-engine=="))
    wheel = SNAPSHOT.packages[key]._replace(source_built=False, source_kind="registry", source="registry+x")
    prebuilt = model._replace(snapshot=SNAPSHOT._replace(packages={**SNAPSHOT.packages, key: wheel}))
    problems = [c.problem for c in build_claims(prebuilt) if c.problem]
    assert len(problems) == 1 and "says it builds transformer-engine" in problems[0] and "prebuilt" in problems[0]


def test_a_value_the_model_cannot_give_is_none_and_a_bug_in_a_value_function_surfaces(model, monkeypatch):
    from docgen.errors import ArgError
    from docgen.render.values import known_value

    def missing(_model):
        raise ArgError("the Dockerfile has no such ARG")

    def broken(_model):
        return None.upper()   # a bug of docgen's, not a value the model lacks

    monkeypatch.setitem(VALUES, "test.missing", missing)
    monkeypatch.setitem(VALUES, "test.broken", broken)
    assert known_value("test.missing", model) is None and known_value("no.such.key", model) is None
    with pytest.raises(AttributeError):
        known_value("test.broken", model)
