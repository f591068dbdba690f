"""Human agreement (Section 4.3, Appendix D): annotators' A/B choices against the metrics.

The authors sampled 100 EMNLP-2023 papers, each with the outputs of two random configurations
(Model A = ``original_text_1``, Model B = ``original_text_2``, written as "Positive:" /
"Neutral:" / "Negative:" sections with one item a line; ``code/human_sample.py``), and asked four
annotators which evaluation is closer to the reviewers' (``review_text``). One spreadsheet per
annotator (``output``: A or B); two were released.

What we compute, as the paper defines it: Fleiss' kappa among the annotators; the majority choice
per sample (a tie is dropped) and the share of samples where the metric prefers the same output
(agreement); Spearman's rho between the annotators' share of A votes and the metric's score
difference A − B. The metric's preference is computed per metric and for ``overall``, the mean of
the four metrics with Relevance put on 0–1 as (Rel − 1) / 4; the released code does not say how
the paper combined them.
"""

from __future__ import annotations

import re

import pandas as pd

from noveval.novbench.parsing import parse_evaluation
from noveval.novbench.tables import METRICS

SAMPLE_COLUMNS = ["id", "review_text", "introduction", "original_text_1", "original_text_2"]
CHOICES = ("A", "B")
OUTPUTS = {"A": "original_text_1", "B": "original_text_2"}
OVERALL = "overall"
SECTION = re.compile(r"^(Positive|Neutral|Negative):\s*$")
MIN_ITEM_CHARS = 10  # the authors' filter of items (human_sample.py transfer)


def read_sheet(path: str) -> pd.DataFrame:
    """One annotator's spreadsheet: the samples and the ``output`` choice, checked."""
    sheet = pd.read_excel(path, dtype={"output": str})
    missing = [c for c in [*SAMPLE_COLUMNS, "output"] if c not in sheet]
    if missing:
        raise ValueError(f"{path}: no column(s) {', '.join(missing)}")
    choices = sheet["output"].str.strip()
    bad = sheet.loc[~choices.isin(CHOICES), "id"].tolist()
    if bad:
        raise ValueError(f"{path}: 'output' is not A or B for id(s) {bad}")
    return sheet.assign(output=choices)


def read_choices(paths: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The samples (from the first sheet) and one column of choices per annotator; every sheet
    must hold the same samples in the same order."""
    if len(paths) < 2:
        raise ValueError(
            f"human_eval: agreement needs at least two annotators' sheets, got {paths}"
        )
    sheets = [read_sheet(path) for path in paths]
    samples = sheets[0][SAMPLE_COLUMNS]
    for path, sheet in zip(paths[1:], sheets[1:]):
        if not sheet[SAMPLE_COLUMNS].equals(samples):
            raise ValueError(f"{path}: not the samples of {paths[0]} (ids or texts differ)")
    choices = pd.DataFrame(
        {f"annotator_{i + 1}": sheet["output"].to_numpy() for i, sheet in enumerate(sheets)},
        index=samples["id"].astype(str),
    )
    return samples.reset_index(drop=True), choices


def sheet_items(text: str) -> list[tuple[str, str]]:
    """(label, text) items of a Model A/B cell: a line each under its section, without the
    authors' dropped items (shorter than 10 characters, or "None")."""
    items, label = [], None
    for line in str(text).splitlines():
        header = SECTION.match(line.strip())
        if header:
            label = header.group(1)
            continue
        item = line.strip()
        if label and len(item) >= MIN_ITEM_CHARS and item.lower() != "none":
            items.append((label, item))
    return items


def scoring_inputs(samples: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The samples as papers (descriptions: the introduction's lines; gold: the review text)
    and as parsed outputs of the cells ``A`` and ``B``, for the NovBench scorer."""
    gold = [parse_evaluation(text) for text in samples["review_text"]]
    papers = pd.DataFrame(
        {
            "paper_id": samples["id"].astype(str),
            "descriptions": [
                [line.strip() for line in str(text).splitlines() if line.strip()]
                for text in samples["introduction"]
            ],
            "gold_texts": [g.texts for g in gold],
            "gold_labels": [g.labels for g in gold],
        }
    )
    outputs = []
    for choice, column in OUTPUTS.items():
        for paper_id, text in zip(papers["paper_id"], samples[column]):
            items = sheet_items(text)
            outputs.append(
                {
                    "output": choice,
                    "paper_id": paper_id,
                    "items_text": [t for _, t in items],
                    "items_label": [label for label, _ in items],
                    "empty": not items,
                    "repetitive": False,
                    "unparseable": False,
                }
            )
    return papers, pd.DataFrame(outputs)


def metric_differences(scores: pd.DataFrame) -> pd.DataFrame:
    """Per sample (paper_id) and metric, score of A − score of B, with ``overall``."""
    wide = scores.pivot(index="paper_id", columns="output", values=METRICS)
    differences = pd.DataFrame(
        {metric: wide[(metric, "A")] - wide[(metric, "B")] for metric in METRICS}
    )
    rescaled = differences.assign(relevance=differences["relevance"] / 4)
    differences[OVERALL] = rescaled[METRICS].mean(axis=1)
    return differences


def statistics(choices: pd.DataFrame, differences: pd.DataFrame) -> pd.DataFrame:
    """Fleiss' kappa among annotators, and per metric the agreement of its preference with the
    majority and Spearman's rho (rows: statistic, metric, value, n)."""
    # imported here, not with the module: the workflow imports it to plan, and scipy and
    # statsmodels take a second to import
    from scipy.stats import spearmanr
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    counts, _ = aggregate_raters(choices.to_numpy())
    rows = [
        {
            "statistic": "fleiss_kappa",
            "metric": "-",
            "value": fleiss_kappa(counts, method="fleiss"),
            "n": len(choices),
        },
        {
            "statistic": "annotator_agreement",
            "metric": "-",
            "value": float(choices.nunique(axis=1).eq(1).mean()),
            "n": len(choices),
        },
    ]
    votes_a = choices.eq("A").sum(axis=1)
    votes_b = choices.eq("B").sum(axis=1)
    majority = pd.Series("tie", index=choices.index).mask(votes_a > votes_b, "A")
    majority = majority.mask(votes_b > votes_a, "B")
    share_a = votes_a / choices.shape[1]
    differences = differences.reindex(choices.index)
    for metric in [OVERALL, *METRICS]:
        difference = differences[metric]
        preference = pd.Series("tie", index=difference.index).mask(difference > 0, "A")
        preference = preference.mask(difference < 0, "B")
        decided = (majority != "tie") & (preference != "tie")
        rows.append(
            {
                "statistic": "agreement",
                "metric": metric,
                "value": float((majority[decided] == preference[decided]).mean()),
                "n": int(decided.sum()),
            }
        )
        constant = share_a.nunique() < 2 or difference.nunique() < 2  # rho is not defined
        rho = float("nan") if constant else spearmanr(share_a, difference).statistic
        rows.append({"statistic": "spearman", "metric": metric, "value": rho, "n": len(share_a)})
    table = pd.DataFrame(rows)
    table["n_annotators"] = choices.shape[1]
    table["n_ties"] = int((majority == "tie").sum())
    return table
