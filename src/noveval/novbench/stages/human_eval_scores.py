"""Stage novbench_human_eval_scores: the metrics of the human-evaluation samples' two outputs."""

from __future__ import annotations

from noveval.core.files import write_table
from noveval.core.registry import load_registry
from noveval.novbench import human_agreement


def human_eval_scores(
    sheet_paths: list[str], scoring: dict, registry_path: str, scores_path: str
) -> None:
    """The NovBench metrics of each sample's Model A and Model B outputs (the first sheet's
    texts; every sheet holds the same)."""
    from noveval.novbench.scoring import NovBenchScorer

    samples, _ = human_agreement.read_choices(sheet_paths)
    papers, outputs = human_agreement.scoring_inputs(samples)
    registry = load_registry(registry_path)
    scorer = NovBenchScorer(
        relevance_encoder=registry.encoder(scoring["relevance_encoder"]),
        coverage_encoder=registry.encoder(scoring["coverage_encoder"]),
        fluency_lm=registry.language_model(scoring["fluency_lm"]),
        coverage_threshold=scoring["coverage_threshold"],
    )
    scores = scorer.score(papers, outputs).assign(output=outputs["output"])
    for key in ("relevance_encoder", "coverage_encoder", "fluency_lm"):
        scores[key] = scoring[key]
    write_table(scores, scores_path)


def run(job) -> None:
    """One job of rule novbench_human_eval_scores."""
    human_eval_scores(
        list(job.input),
        job.params.scoring,
        job.params.registry,
        job.output[0],
    )
