"""A custom judge's calls: one cell's requests (its wording, one controlled change), built like
the paper's judges' (``noveval.inference.requests.build_request``, ``call_item_id``), so their ids,
journals and inference batches are the same machinery.

The template-independent changes (``CHANGES``) alter what every wording gets alike: ``retrieval``
fills the templates' ``related`` field, ``low_reasoning`` sends effort low, ``reviewers_cue``
(pairwise) opens the prompt with ``REVIEWERS_CUE``, and ``purpose_mechanism`` is the judge on the
instances' purpose-mechanism form (the caller passes those instances). ``reference`` is the judge
as configured.
"""

from __future__ import annotations

from noveval.core.registry import ModelSpec
from noveval.inference.requests import build_request
from noveval.judges.cards.judge import CHANGES, REFERENCE_WORDING, CustomJudge
from noveval.judges.prompts import call_item_id

# The framing that sets the paper's P3 apart from P4 (the authors' pairwise_ai_researcher_variation
# and _no_review templates): the pair is said to hold one idea that reviewers judged novel.
REVIEWERS_CUE = (
    "Reviewers for a top AI conference (like ICLR or ACL) judged one of the two ideas below "
    "novel and the other not."
)


def template_fields(instance: dict, order: int, related: list | None) -> dict:
    """The fields a template renders, for one instance in one presentation order."""
    ideas = list(instance["ideas"]) if order == 0 else list(instance["ideas"])[::-1]
    titles = list(instance.get("titles") or [""] * len(ideas))
    titles = titles if order == 0 else titles[::-1]
    shown = [] if related is None else (related if order == 0 else related[::-1])
    if instance["format"] == "pointwise":
        return {
            "idea": ideas[0],
            "area": instance["area"],
            "title": titles[0] if titles else "",
            "related": list(shown[0]) if shown else [],
        }
    return {
        "ideas": ideas,
        "idea_1": ideas[0],
        "idea_2": ideas[1],
        "area": instance["area"],
        "titles": titles,
        "related": [list(r) for r in shown],
    }


def custom_requests(
    judge: CustomJudge,
    instances: list[dict],
    spec: ModelSpec,
    decoding: dict,
    wording: str = REFERENCE_WORDING,
    change: str = "reference",
    related: dict[str, list[list[str]]] | None = None,
) -> list[dict]:
    """Every call of one cell: ``judge.calls`` per idea, or per presentation order per pair."""
    if change not in ("reference", *CHANGES):
        raise ValueError(f"judges.custom.{judge.name}: unknown change '{change}'")
    effort = "low" if change == "low_reasoning" else judge.effort
    rows = []
    for instance in instances:
        format = instance["format"]
        context = (related or {}).get(instance["instance_id"]) if change == "retrieval" else None
        for order in (0,) if format == "pointwise" else (0, 1):
            chat = judge.messages(format, wording, **template_fields(instance, order, context))
            if change == "reviewers_cue":
                chat[-1] = {**chat[-1], "content": f"{REVIEWERS_CUE}\n\n{chat[-1]['content']}"}
            for call in range(judge.calls):
                call_decoding = {**decoding, "seed": int(decoding["seed"]) + call}
                if effort and spec.effort_levels:  # a model without effort levels takes none
                    call_decoding["reasoning_effort"] = effort
                rows.append(
                    build_request(
                        item_id=call_item_id(instance["instance_id"], order, call),
                        spec=spec,
                        messages=chat,
                        decoding=call_decoding,
                    )
                )
    return rows
