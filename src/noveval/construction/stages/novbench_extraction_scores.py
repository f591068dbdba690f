"""Stage construction_novbench_extraction_scores: accuracy and macro-F1 per model and validated
prompt."""

from __future__ import annotations

import pandas as pd

from noveval.construction import extraction, validation
from noveval.construction.validation import labelled_sentences
from noveval.core.files import write_bytes
from noveval.inference.batches import SENTENCES


def validation_scores(
    responses: dict[str, dict[str, str]],
    prompts: list[str],
    labels: dict,
    max_tokens: int | None,
    scores_path: str,
) -> None:
    """Accuracy and macro-F1 per model and prompt (``responses``: model → batch → responses
    table), with the token cap the calls were sent with."""
    rows = []
    for model, batches in responses.items():
        for prompt in prompts:
            sentences = labelled_sentences(prompt, labels)
            if prompt == "step":
                answers = _cell_or_none(batches["step"], "step_decision")
            else:
                answers = _cell_or_none(batches[SENTENCES], prompt)
            decided = extraction.decisions(sentences["item_id"], answers)
            step = "review" if prompt == "review" else "introduction"
            scored = validation.scores(sentences, decided)
            rows.append(
                {"step": step, "model": model, "prompt": prompt, **scored, "max_tokens": max_tokens}
            )
    table = pd.DataFrame(rows, columns=[*validation.SCORE_COLUMNS, "max_tokens"])
    write_bytes(table.to_csv(index=False).encode("utf-8"), scores_path)


def _cell_or_none(path: str, cell: str) -> pd.DataFrame:
    """A cell's responses, or none when the batch held no request of it."""
    responses = pd.read_parquet(path)
    if cell not in set(responses["cell"]):
        return pd.DataFrame(columns=["item_id", "text"])
    return responses[responses["cell"] == cell]


def run(job) -> None:
    """One job of rule construction_novbench_extraction_scores."""
    models = job.params.models
    step = dict(zip(models, job.input.step)) if job.input.step else {}
    validation_scores(
        {
            model: {"sentences": sentences, "step": step.get(model)}
            for model, sentences in zip(models, job.input.sentences, strict=True)
        },
        job.params.prompts,
        job.params.labels,
        job.params.max_tokens,
        job.output[0],
    )
