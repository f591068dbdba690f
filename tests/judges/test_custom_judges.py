"""A custom judge's config (judges.custom): templates, answer rules and their named errors."""

import pytest

from noveval.core.registry import load_registry
from noveval.core.templates import template_fields
from noveval.judges.cards.judge import CustomJudgeError, custom_judge, custom_judges
from noveval.judges.grid.build import custom_cells

RULE = {"regex": r"verdict:\s*([a-z ]+)", "labels": {"novel": "novel", "not novel": "not_novel"}}
PAIR_RULE = {"json": "winner", "labels": {"1": "idea_1", "2": "idea_2"}}


def entry(**changes):
    base = {
        "model": "smollm2-135m",
        "pointwise": (
            "Area: {{ area }}\nIdea: {{ idea }}\nAnswer 'verdict: novel' or 'verdict: not novel'."
        ),
        "pairwise": 'A: {{ idea_1 }}\nB: {{ idea_2 }}\nReply {"winner": 1 or 2}',
        "answer": {"pointwise": RULE, "pairwise": PAIR_RULE},
    }
    return base | changes


def test_answer_rules_read_the_verdict_and_count_the_rest_unparseable():
    judge = custom_judge("mine", entry())
    assert judge.formats == ("pointwise", "pairwise")
    assert judge.verdict("Thinking... Verdict: Not  Novel", "pointwise") == 0
    assert judge.verdict("verdict: novel", "pointwise") == 1
    assert judge.verdict("verdict: maybe", "pointwise") is None  # a word no label maps
    assert judge.verdict("no verdict here", "pointwise") is None
    assert judge.verdict(None, "pointwise") is None
    assert judge.verdict('{"winner": 2}', "pairwise") == 1
    assert judge.verdict('{"winner": "1"} then {"other": 3}', "pairwise") == 0
    assert judge.verdict("{broken", "pairwise") is None


def test_messages_render_the_instance_fields_after_the_system_prompt():
    judge = custom_judge("mine", entry(system="Be strict."))
    sent = judge.messages("pointwise", "reference", idea="X", area="NLP", title="", related=[])
    assert sent[0] == {"role": "system", "content": "Be strict."}
    assert sent[1]["content"].startswith("Area: NLP\nIdea: X")


def test_variants_are_other_wordings_of_the_judges_formats():
    judge = custom_judge("mine", entry(variants={"terse": {"pointwise": "{{ idea }} verdict?"}}))
    assert judge.wordings == ("reference", "terse")
    with pytest.raises(CustomJudgeError, match=r"judges.custom.mine.variants.terse"):
        custom_judge("mine", entry(pairwise=None, variants={"terse": {"pairwise": "{{ ideas }}"}}))


def test_template_fields_are_read_by_jinja():
    assert template_fields("{{ idea }}{% for t, a in related %}{{ t }}{% endfor %}") == {
        "idea",
        "related",
    }


def test_a_field_the_instances_lack_is_an_error_naming_the_judge():
    with pytest.raises(CustomJudgeError, match=r"custom.mine: template pointwise .* abstract"):
        custom_judge("mine", entry(pointwise="{{ idea }} {{ abstract }}"))
    with pytest.raises(CustomJudgeError, match=r"judges.custom.mine: template pairwise"):
        custom_judge("mine", entry(pairwise="{{ idea }}"))  # pairwise instances have two


def test_a_malformed_template_is_an_error_naming_the_judge():
    with pytest.raises(CustomJudgeError, match=r"judges.custom.mine: .*variant.* is malformed"):
        custom_judge("mine", entry(variants={"variant": {"pointwise": "{{ idea "}}))


def test_an_answer_rule_that_maps_to_no_label_is_an_error_naming_the_judge():
    unmatched = {"regex": r"(yes|no)", "labels": {"yes": "accept", "no": "reject"}}
    with pytest.raises(CustomJudgeError, match=r"judges.custom.mine.answer.labels map to no"):
        custom_judge("mine", entry(pairwise=None, answer=unmatched))
    one_sided = {"regex": r"(yes|no)", "labels": {"yes": "novel"}}
    with pytest.raises(CustomJudgeError, match=r"no answer maps to not_novel"):
        custom_judge("mine", entry(pairwise=None, answer=one_sided))
    with pytest.raises(CustomJudgeError, match=r"a group must capture"):
        custom_judge("mine", entry(pairwise=None, answer={"regex": "yes", "labels": {}}))
    with pytest.raises(CustomJudgeError, match=r"does not compile"):
        custom_judge("mine", entry(pairwise=None, answer={"regex": "(", "labels": {}}))


def test_the_model_must_be_a_registry_model():
    registry = load_registry("config/models.yaml")
    with pytest.raises(CustomJudgeError, match=r"judges.custom.mine.model"):
        custom_judges({"custom": {"mine": entry(model="no-such-model")}}, registry)
    assert set(custom_judges({"custom": {"mine": entry()}}, registry)) == {"mine"}


def test_the_reviewers_cue_is_a_cell_of_the_pairs_only():
    judge = custom_judge("mine", entry(changes=["reviewers_cue", "low_reasoning"]))
    datasets = {"sample": {"human-only": {"pointwise": "p.yaml", "pairwise": "q.yaml"}}}
    cells = {(c.format, c.change) for c in custom_cells({"mine": judge}, datasets, False)}
    assert cells == {
        ("pointwise", "reference"),
        ("pointwise", "low_reasoning"),
        ("pairwise", "reference"),
        ("pairwise", "low_reasoning"),
        ("pairwise", "reviewers_cue"),
    }
