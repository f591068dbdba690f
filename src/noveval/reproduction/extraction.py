"""The extraction prompts' published accuracy and macro-F1 (NovBench Appendices A and B) beside the
run's extraction validation."""

from __future__ import annotations

import pandas as pd

from noveval.reproduction.verdicts import TOLERANCES, judged, not_run


def extraction_row(row, scores: pd.DataFrame | None, limits: dict) -> dict:
    """Our accuracy or macro-F1 of an extraction prompt (Appendices A and B): the paper's model
    where the validation ran it, else the first model that ran the prompt, not comparable then.
    Conditions: the model, the labelled sentences scored, the token cap (the authors set none)
    and the share of failed calls."""
    if scores is None:
        return not_run("no extraction validation (construction.novbench.validation.models)")
    ran = scores[(scores["step"] == row.step) & (scores["prompt"] == row.prompt)]
    if ran.empty:
        return not_run(f"the extraction validation ran no {row.prompt} prompt")
    mine = ran[ran["model"] == row.model]
    ours = (mine if len(mine) else ran).iloc[0]
    cap = ours["max_tokens"]
    run = {
        "model": ours["model"],
        "sentences": int(ours["sentences"]),
        "max_tokens": "none" if pd.isna(cap) else int(cap),
        "failed_share": ours["unanswered"] / ours["sentences"],
    }
    paper = {"model": row.model, "sentences": int(row.sentences), "max_tokens": "none"}
    return judged(row, float(ours[row.metric]), TOLERANCES["fraction"], run, paper, limits)
