"""Generated D₋: a generator model gets only a primary area and writes a novel idea.

Each D₊ idea of a base setup's pairs gets one generated idea of its area (the k-th D₊ idea of an
area gets seed + k, so its request is distinct). The generated setup pairs every D₊ idea with its
generated idea, in the slot the human D₋ idea had; its pointwise file holds both pools.

Comparing ideation systems reuses the same generations: the ideation setup pairs, area by area,
a stronger generator's idea with a weaker one's, the stronger being the expected winner.
"""

from __future__ import annotations

import logging

import pandas as pd

from noveval.core.registry import ModelSpec
from noveval.core.templates import render
from noveval.inference.requests import build_request, requests_table
from noveval.judges.instances import INSTANCE_SCHEMA
from noveval.judges.verdicts import strip_reasoning

log = logging.getLogger(__name__)

MIN_IDEA_CHARS = 40


def generation_requests(pairs: pd.DataFrame, spec: ModelSpec, decoding: dict) -> pd.DataFrame:
    """One idea request per pair of the base setup (item id = the pair's instance id)."""
    rows, seen = [], {}
    for pair in pairs.to_dict("records"):
        k = seen[pair["area"]] = seen.get(pair["area"], -1) + 1
        rows.append(
            build_request(
                item_id=pair["instance_id"],
                spec=spec,
                messages=[
                    {
                        "role": "user",
                        "content": render("judges/generate_idea.j2", area=pair["area"]),
                    }
                ],
                decoding={**decoding, "seed": int(decoding["seed"]) + k},
            )
        )
    return requests_table(rows)


def generated_ideas(responses: pd.DataFrame) -> dict[str, str]:
    """Generated idea per base pair; failed or (nearly) empty generations are absent."""
    ideas = {}
    for row in responses.to_dict("records"):
        if not pd.isna(row["error"]):
            continue
        text = strip_reasoning(row["text"]).strip()
        if len(text) >= MIN_IDEA_CHARS:
            ideas[row["item_id"]] = text
    return ideas


def generated_setup(
    pairs: pd.DataFrame, responses: pd.DataFrame, setup: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pairwise and pointwise instances of the generated setup.

    A pair whose generation failed or came back (nearly) empty is left out and counted.
    """
    ideas = generated_ideas(responses)
    pairwise, pointwise = [], []
    for pair in pairs.to_dict("records"):
        generated = ideas.get(pair["instance_id"])
        if generated is None:
            continue
        winner = int(pair["label"])
        slots = [None, None]
        slots[winner] = (pair["ideas"][winner], pair["titles"][winner], pair["sources"][winner])
        slots[1 - winner] = (generated, f"generated-{pair['instance_id']}", "generated")
        common = {"setup": setup, "area": pair["area"]}
        pairwise.append(
            {
                "instance_id": pair["instance_id"],
                **common,
                "format": "pairwise",
                "ideas": [s[0] for s in slots],
                "titles": [s[1] for s in slots],
                "sources": [s[2] for s in slots],
                "label": winner,
            }
        )
        for prefix, (idea, title, source), label in (
            ("p", slots[winner], 1),
            ("g", slots[1 - winner], 0),
        ):
            pointwise.append(
                {
                    "instance_id": f"{prefix}{pair['instance_id']}",
                    **common,
                    "format": "pointwise",
                    "ideas": [idea],
                    "titles": [title],
                    "sources": [source],
                    "label": label,
                }
            )
    left_out = len(pairs) - len(pairwise)
    if left_out:
        log.warning("%s: %d pairs left out, their generation failed or was empty", setup, left_out)
    _require_pairs(setup, pairwise, len(pairs))
    columns = INSTANCE_SCHEMA.names
    return pd.DataFrame(pairwise, columns=columns), pd.DataFrame(pointwise, columns=columns)


def ideation_setup(
    pairs: pd.DataFrame,
    stronger: tuple[str, pd.DataFrame],
    weaker: tuple[str, pd.DataFrame],
    setup: str,
) -> pd.DataFrame:
    """Pairwise instances pitting two generators' ideas for the same area against each other.

    ``stronger`` and ``weaker`` are (model, generation responses). The stronger idea takes slot
    0 and 1 in turn, so a judge's position bias cannot pass for a preference; it is the label.
    A pair missing either idea is left out and counted.
    """
    (strong_model, strong), (weak_model, weak) = (
        (model, generated_ideas(responses)) for model, responses in (stronger, weaker)
    )
    rows = []
    for pair in pairs.to_dict("records"):
        key = pair["instance_id"]
        if key not in strong or key not in weak:
            continue
        entries = [(strong[key], strong_model), (weak[key], weak_model)]
        winner = len(rows) % 2
        if winner:
            entries.reverse()
        rows.append(
            {
                "instance_id": key,
                "setup": setup,
                "format": "pairwise",
                "area": pair["area"],
                "ideas": [idea for idea, _ in entries],
                "titles": [f"{model}-{key}" for _, model in entries],
                "sources": ["generated", "generated"],
                "label": winner,
            }
        )
    left_out = len(pairs) - len(rows)
    if left_out:
        log.warning("%s: %d pairs left out, a generation failed or was empty", setup, left_out)
    _require_pairs(setup, rows, len(pairs))
    return pd.DataFrame(rows, columns=INSTANCE_SCHEMA.names)


def _require_pairs(setup: str, rows: list, base: int) -> None:
    """A generated setup with no pair left has nothing to judge: an error naming why."""
    if not rows:
        raise ValueError(
            f"{setup}: no pair to judge: the generations for all {base} base pairs failed or "
            f"were empty (under {MIN_IDEA_CHARS} characters once reasoning is stripped); see "
            "the generation batch's responses"
        )
