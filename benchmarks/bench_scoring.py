"""Batched NovBench scoring vs. a per-paper loop, per-part rates, and the fluency LM's bound.

Builds papers × 3 synthetic model outputs (from the COLING-2020 pairs when the shared data is
present, else from the shipped sample) and scores them both ways with the same loaded models:
the batched scorer (each unique sentence once, length-sorted batches) and a per-paper loop that
calls the models once per sentence, re-embedding a paper's descriptions and gold items for each of
its outputs. It checks that the scores agree within 1e-6, then times each part of the batched pass
on its own (Relevance embeddings, Coverage embeddings, fluency perplexity) and a bare forward pass
of the fluency LM over the same number of tokens in dense batches of the same token budget: the
ratio of the two is how close the perplexity pass runs to the model's forward-pass bound. The
last line is the batched pass's model FLOPs per CPU-second, the rate
``noveval.inference.scoring_cost`` plans with (CPU time, unlike wall time, leaves out the time
other processes held the cores).

    PYTHONPATH=src .venv/bin/python benchmarks/bench_scoring.py [--papers 6] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from noveval.core.registry import load_registry
from noveval.inference.encoders import PerplexityScorer, use_threads
from noveval.inference.scoring_cost import params_m
from noveval.novbench.grid import scorer_references
from noveval.novbench.records import load_release
from noveval.novbench.scoring import (
    NovBenchScorer,
    SentenceScores,
    papers_by_id,
    score_output,
    sentence_texts,
)

REPO = Path(__file__).resolve().parents[1]
COLING_PAIRS = REPO.parent / "shared" / "data" / "novbench" / "coling2020_pairs.json"
SAMPLE = REPO / "data" / "sample" / "novbench_sample.json"
# the embedded default's metric models, by their registry names (config/models.yaml holds what
# each loads; noveval.inference.scoring_cost counts their parameters)
SCORING = {
    "relevance_encoder": "all-minilm-l6-v2",
    "coverage_encoder": "all-minilm-l6-v2",
    "fluency_lm": "smollm2-135m",
}
NUMERIC_COLUMNS = ["relevance", "coverage", "kc", "ls", "fs", "clarity", "dist_acc"]
TOLERANCE = 1e-6


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


def score_per_paper(
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


@torch.inference_mode()
def forward_bound(lm: PerplexityScorer, tokens: int, width: int) -> float:
    """Tokens/s of the bare forward pass over ``tokens`` tokens in dense rows of ``width``,
    batched in the scorer's token budget: no padding, no mask, no loss."""
    rows = max(1, tokens // width)
    per_batch = max(1, lm.batch_tokens // width)
    ids = torch.randint(0, lm.model.config.vocab_size, (rows, width), device=lm.device)
    start = time.perf_counter()
    for first in range(0, rows, per_batch):
        lm.model(input_ids=ids[first : first + per_batch])
    return rows * width / (time.perf_counter() - start)


def encoder_tokens(scorer: NovBenchScorer, texts: list[str]) -> int:
    """Tokens the Relevance encoder reads for the unique ``texts``."""
    model = scorer.relevance_encoder.model
    encoded = model.tokenizer(list(dict.fromkeys(texts)), truncation=True)["input_ids"]
    return sum(min(len(ids), model.max_seq_length) for ids in encoded)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=6)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    use_threads(args.threads)

    source = COLING_PAIRS if COLING_PAIRS.exists() else SAMPLE
    papers = load_release(source).head(args.papers)
    parsed = synthetic_outputs(papers)
    descriptions, gold_texts, items = sentence_texts(papers, parsed)
    print(f"{len(papers)} papers x 3 configurations = {len(parsed)} outputs from {source}")
    references = scorer_references(load_registry(REPO / "config" / "models.yaml"), SCORING)
    models = ", ".join(dict.fromkeys(references.values()))
    print(f"{len(items)} items; models: {models}; {args.threads} torch threads")

    scorer, load_seconds = timed(
        NovBenchScorer, references["relevance"], references["coverage"], references["fluency"]
    )
    _, warm_seconds = timed(scorer.score, papers, parsed.head(1))  # first calls: lazy set-up
    print(f"model loading and warm-up (not timed below): {load_seconds + warm_seconds:.1f}s")
    cpu_start = time.process_time()
    batched, batched_seconds = timed(scorer.score, papers, parsed)
    batched_cpu_seconds = time.process_time() - cpu_start
    looped, looped_seconds = timed(score_per_paper, scorer, papers, parsed)
    gap = float((batched[NUMERIC_COLUMNS] - looped[NUMERIC_COLUMNS]).abs().max().max())
    agree = np.allclose(
        batched[NUMERIC_COLUMNS], looped[NUMERIC_COLUMNS], rtol=TOLERANCE, atol=TOLERANCE
    )
    print(f"batched NovBenchScorer: {batched_seconds:.1f}s")
    print(f"per-paper loop:         {looped_seconds:.1f}s")
    print(f"speed-up: {looped_seconds / batched_seconds:.1f}x")
    print(f"scores agree within {TOLERANCE:g} (relative): {agree} (largest gap {gap:.2e})")
    if not agree:
        raise SystemExit("batched and per-paper scores differ")

    lm = scorer.fluency_lm
    relevance_texts, coverage_texts = descriptions + items, gold_texts + items
    parts = {
        "Relevance embeddings": (scorer.relevance_encoder.encode, relevance_texts),
        "Coverage embeddings": (scorer.coverage_encoder.encode, coverage_texts),
        "fluency perplexity": (lm.perplexities, items),
    }
    seconds = {}
    for part, (function, texts) in parts.items():
        unique = len(dict.fromkeys(texts))
        _, seconds[part] = timed(function, texts)
        print(f"{part}: {unique} sentences in {seconds[part]:.2f}s, {unique / seconds[part]:.1f}/s")
    lm_tokens = [len(lm.token_ids(text)) for text in dict.fromkeys(items)]
    scorer_rate = sum(lm_tokens) / seconds["fluency perplexity"]
    bound = forward_bound(lm, sum(lm_tokens), round(float(np.mean(lm_tokens))))
    print(
        f"fluency LM: {scorer_rate:.0f} tokens/s; bare forward pass at that batch budget "
        f"{bound:.0f} tokens/s: {scorer_rate / bound:.0%} of the bound"
    )
    encoder_flops = params_m(SCORING["relevance_encoder"], 1) * encoder_tokens(
        scorer, relevance_texts + gold_texts
    )
    flops = 2e6 * (encoder_flops + params_m(SCORING["fluency_lm"], 1) * sum(lm_tokens))
    rate = flops / 1e9 / (batched_seconds * args.threads)
    print(f"batched pass: {flops / 1e9:.0f} model GFLOP, {rate:.1f} GFLOP/s per thread (wall)")
    # CPU seconds count only the time this process had a core: the rate of a dedicated core
    print(f"effective GFLOP per CPU-second: {flops / 1e9 / batched_cpu_seconds:.1f}")


if __name__ == "__main__":
    main()
