"""A custom NovBench evaluator (novbench.custom): its config's named errors, its messages and
requests, and its cells in the grid."""

import copy
import re

import pytest
import yaml
from conftest import REPO, SAMPLE, shared_file

from noveval.core.registry import load_registry
from noveval.inference.requests import build_request
from noveval.novbench.custom import (
    CustomEvaluatorError,
    custom_evaluator,
    custom_requests,
    custom_strategy,
    evaluator_of,
)
from noveval.novbench.grid import novbench_grid
from noveval.workflow.wildcards import CARD_NAME, constraints

REGISTRY = load_registry(REPO / "config" / "models.yaml")
TEMPLATE = "Contributions:\n{% for s in descriptions %}- {{ s }}\n{% endfor %}Evaluate."
RAG = (
    "{{ descriptions | join(' ') }}\n"
    "{% for r in related %}{{ r.title }}: {{ r.abstract }}\n{% endfor %}"
)
PAPER = {
    "paper_id": "p1",
    "descriptions": ["We add X.", "We prove Y."],
    "retrieved_titles": ["T1", "T2"],
    "retrieved_abstracts": ["A1", "A2"],
}
DECODING = {"mode": "greedy", "temperature": 0.0, "seed": 0, "max_tokens": 64}


def entry(**changes):
    return {"model": "smollm2-135m", "template": TEMPLATE} | changes


def test_a_template_that_does_not_parse_is_an_error_naming_the_entry():
    with pytest.raises(CustomEvaluatorError) as error:
        custom_evaluator("mine", entry(template="{% for s in descriptions %}{{ s }}"), REGISTRY)
    assert str(error.value).startswith("novbench.custom.mine: template is malformed: ")
    assert "(line 1)" in str(error.value)


def test_a_field_the_papers_lack_is_an_error_naming_the_entry():
    with pytest.raises(CustomEvaluatorError) as error:
        custom_evaluator("mine", entry(template="{{ descriptions }} {{ abstract }}"), REGISTRY)
    assert str(error.value) == (
        "novbench.custom.mine: template uses abstract, which the papers do not have "
        "(they have descriptions, related)"
    )


def test_an_unknown_model_is_an_error_naming_the_entry():
    with pytest.raises(CustomEvaluatorError) as error:
        custom_evaluator("mine", entry(model="no-such-model"), REGISTRY)
    assert str(error.value).startswith(
        "novbench.custom.mine: model: unknown model 'no-such-model' (registry knows: "
    )


def test_a_name_the_cards_folder_reserves_and_a_missing_template_are_errors():
    with pytest.raises(CustomEvaluatorError, match=r"^novbench.custom.leaderboard: a name"):
        custom_evaluator("leaderboard", entry())
    with pytest.raises(CustomEvaluatorError, match=r"^novbench.custom.mine: give the template"):
        custom_evaluator("mine", {"model": "smollm2-135m"})


def test_a_template_file_is_read_and_the_messages_render_the_papers_fields(tmp_path):
    (tmp_path / "mine.j2").write_text(TEMPLATE)
    evaluator = custom_evaluator(
        "mine", entry(template="mine.j2", system="Be brief."), root=tmp_path
    )
    assert not evaluator.uses_related
    assert evaluator.messages(PAPER) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Contributions:\n- We add X.\n- We prove Y.\nEvaluate."},
    ]
    rag = custom_evaluator("rag", entry(template=RAG))
    assert rag.uses_related
    assert rag.messages(PAPER)[0]["content"] == "We add X. We prove Y.\nT1: A1\nT2: A2"
    with pytest.raises(ValueError, match="paper p1: the template reads related, none retrieved"):
        rag.messages(PAPER | {"retrieved_titles": [], "retrieved_abstracts": []})


def test_requests_are_the_paper_cells_request_per_paper_with_their_decoding():
    evaluator = custom_evaluator("mine", entry())
    spec = REGISTRY.model("smollm2-135m")
    (request,) = custom_requests(evaluator, [PAPER], spec, DECODING)
    expected = build_request(
        item_id="p1",
        spec=spec,
        messages=evaluator.messages(PAPER),
        decoding={"temperature": 0.0, "seed": 0, "max_tokens": 64},
    )
    assert request == expected


def test_the_strategy_names_the_evaluator():
    assert custom_strategy("mine") == "custom-mine"
    assert evaluator_of("custom-my-eval") == "my-eval"
    assert evaluator_of("zero") is None


def test_a_cell_folder_splits_into_the_custom_strategy_and_its_perturbation():
    patterns = constraints()
    cell = re.compile(
        rf"(?P<strategy>{patterns['strategy']})-(?P<perturbation>{patterns['perturbation']})"
    )
    found = cell.fullmatch("custom-my-eval-del")
    assert found.group("strategy", "perturbation") == ("custom-my-eval", "del")
    assert cell.fullmatch("zero-none").group("strategy") == "zero"
    assert re.fullmatch(patterns["evaluator"], "my-eval")
    card = rf"(?P<evaluator>{CARD_NAME})\.md"  # rule novbench_card's: not the leaderboard
    assert re.fullmatch(card, "my-eval.md") and not re.fullmatch(card, "leaderboard.md")


def default_config() -> dict:
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def test_the_grid_adds_a_cell_per_dataset_and_perturbation_after_the_papers_cells(caplog):
    config = default_config()
    coling = shared_file("novbench", "coling2020_pairs.json")
    config["novbench"]["datasets"] = {"sample": str(SAMPLE), "coling2020": str(coling)}
    before = novbench_grid(copy.deepcopy(config), REGISTRY)
    config["novbench"]["custom"] = {"mine": entry(), "rag": entry(template=RAG)}
    grid = novbench_grid(config, REGISTRY)
    assert grid.cells[: len(before.cells_of("sample"))] == tuple(before.cells_of("sample"))
    assert set(grid.cells) - set(before.cells) == set(grid.custom_cells("mine")) | set(
        grid.custom_cells("rag")
    )
    assert [(c.dataset, c.perturbation) for c in grid.custom_cells("mine")] == [
        ("sample", "none"),
        ("sample", "change"),
        ("sample", "del"),
        ("coling2020", "none"),
        ("coling2020", "change"),
        ("coling2020", "del"),
    ]
    assert {c.dataset for c in grid.custom_cells("rag")} == {"sample"}  # coling has no retrieval
    assert "coling2020: custom evaluator rag left out" in caplog.text
    assert grid.custom_cells("mine")[0].name == "custom-mine-none"
    assert grid.card_datasets("mine") == ["sample", "coling2020"]
    assert grid.card_outputs("r")[-2:] == [
        "r/novbench/cards/leaderboard.md",
        "r/novbench/cards/leaderboard.csv",
    ]
    assert before.card_outputs("r") == []


def test_the_grid_checks_the_entries_before_any_call():
    config = default_config()
    config["novbench"]["custom"] = {"mine": entry(template="{{ title }}")}
    with pytest.raises(CustomEvaluatorError, match=r"^novbench.custom.mine: template uses title"):
        novbench_grid(config, REGISTRY)
