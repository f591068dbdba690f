"""Input perturbations: ``del`` keeps a seeded 80% of the descriptions, ``change`` paraphrases
each description with an LLM (an ordinary cached call). A dataset with a perturbation release
(Table 5) is the released papers, and its ``change`` and ``del`` inputs are the authors'.

A perturbed paper's ``novelty_text`` (what the authors' prompts insert) is its new list's repr."""

from __future__ import annotations

import logging
import math
import random
import re

import pandas as pd

from noveval.core.registry import ModelSpec
from noveval.core.templates import render
from noveval.inference.requests import build_request
from noveval.novbench.decoding import call_decoding

log = logging.getLogger(__name__)

PERTURBATIONS = ("none", "change", "del")
MIN_PARAPHRASE_CHARS = 10
_LEADING_LABEL = re.compile(r"^(paraphrased sentence|paraphrase|sentence)\s*:\s*", re.IGNORECASE)


def delete_sentences(papers: pd.DataFrame, keep_fraction: float, seed: int) -> pd.DataFrame:
    """Keep floor(keep_fraction·n) descriptions per paper (at least one), in their order."""

    def kept(row) -> list[str]:
        sentences = list(row["descriptions"])
        count = max(1, math.floor(keep_fraction * len(sentences)))
        rng = random.Random(f"{seed}:{row['paper_id']}")
        return [sentences[i] for i in sorted(rng.sample(range(len(sentences)), count))]

    perturbed = papers.copy()
    perturbed["descriptions"] = papers.apply(kept, axis=1)
    perturbed["novelty_text"] = [str(list(sentences)) for sentences in perturbed["descriptions"]]
    return perturbed


def paraphrase_requests(
    papers: pd.DataFrame, spec: ModelSpec, decoding: dict, generation_config: dict | None = None
) -> list[dict]:
    """One paraphrase call per description; item id ``<paper_id>#<index>`` (``generation_config``:
    an open model's, for ``decoding.mode: authors``)."""
    sent = call_decoding(decoding, spec, generation_config)
    return [
        build_request(
            item_id=f"{paper['paper_id']}#{index}",
            spec=spec,
            messages=[
                {"role": "user", "content": render("novbench/paraphrase.j2", sentence=sentence)}
            ],
            decoding=sent,
        )
        for paper in papers.to_dict("records")
        for index, sentence in enumerate(paper["descriptions"])
    ]


def clean_paraphrase(text: str | None) -> str | None:
    """The paraphrase in a reply, or None when the reply holds no usable sentence."""
    for line in (text or "").splitlines():
        line = _LEADING_LABEL.sub("", line.strip()).strip().strip('"').strip()
        if line:
            return line if len(line) >= MIN_PARAPHRASE_CHARS else None
    return None


def apply_paraphrases(papers: pd.DataFrame, responses: pd.DataFrame) -> pd.DataFrame:
    """Replace each description by its paraphrase; keep the original where the reply is unusable.

    The count of kept originals per paper goes to ``n_paraphrase_fallbacks``.
    """
    by_item = dict(zip(responses["item_id"], responses["text"]))
    descriptions, fallbacks = [], []
    for paper in papers.to_dict("records"):
        sentences, failed = [], 0
        for index, original in enumerate(paper["descriptions"]):
            paraphrase = clean_paraphrase(by_item.get(f"{paper['paper_id']}#{index}"))
            failed += paraphrase is None
            sentences.append(paraphrase or original)
        descriptions.append(sentences)
        fallbacks.append(failed)
    perturbed = papers.copy()
    perturbed["descriptions"] = descriptions
    perturbed["novelty_text"] = [str(sentences) for sentences in descriptions]
    perturbed["n_paraphrase_fallbacks"] = fallbacks
    if sum(fallbacks):
        log.warning(
            "%d descriptions kept their original wording (unusable paraphrase)", sum(fallbacks)
        )
    return perturbed


def released_papers(papers: pd.DataFrame, releases: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The papers the authors' perturbation releases hold, in their order (Table 5's subset),
    with their original descriptions: the ``none`` inputs and what every cell is scored against.
    """
    ids = list(dict.fromkeys(i for release in releases.values() for i in release["paper_id"]))
    missing = [i for i in ids if i not in set(papers["paper_id"])]
    if missing:
        raise ValueError(
            f"{len(missing)} papers of the perturbation release are not in the dataset "
            f"(ids {', '.join(missing[:10])})"
        )
    return papers.set_index("paper_id").loc[ids].reset_index()[list(papers.columns)]
