"""NovBench's instance explorer: every paper's claims and reviews, and for every model, strategy
and perturbation the evaluation it wrote with its scores (``noveval.core.explorer``)."""

from __future__ import annotations

import pandas as pd

from noveval.core.explorer import Explorer, filter_of, snippet
from noveval.novbench.layout import NovBenchLayout
from noveval.novbench.tables import HUMAN, METRICS

LABELS = {
    "relevance": "Relevance",
    "coverage": "Coverage",
    "clarity": "Clarity",
    "dist_acc": "DistAcc",
}
COLUMNS = [
    {"name": "id", "kind": "id"},
    {"name": "paper", "label": "Paper", "kind": "key"},
    {"name": "model", "label": "Model", "kind": "key"},
    {"name": "strategy", "label": "Strategy", "kind": "key"},
    {"name": "perturbation", "label": "Perturbation", "kind": "key"},
    *({"name": m, "label": LABELS[m], "kind": "number"} for m in METRICS),
    {"name": "items", "label": "Items", "kind": "number"},
    *(
        {"name": f, "label": f.capitalize(), "kind": "flag"}
        for f in ("empty", "repetitive", "unparseable", "failed")
    ),
    {"name": "snippet", "label": "Evaluation", "kind": "text"},
]
TEXT_FIELDS = [
    {"name": "answer", "label": "The evaluation as written"},
    {"name": "items", "label": "Its items as parsed (label: text)"},
]


def explorer_inputs(grid, results: str, dataset: str) -> dict[str, list[str] | str]:
    """What a dataset's explorer reads (rule novbench_explorer): its papers, each perturbation's
    inputs, the scores, every cell's parsed answers, the models' responses and the table
    (``grid``: the config's ``noveval.novbench.grid.NovBenchGrid``)."""
    layout = NovBenchLayout(results)
    cells = grid.cells_of(dataset)
    models = list(dict.fromkeys(cell.model for cell in cells))
    perturbations = dict.fromkeys(cell.perturbation for cell in cells)
    return {
        "papers": layout.papers(dataset),
        "inputs": [grid.inputs_path(results, dataset, p) for p in perturbations],
        "scores": grid.score_paths(results, dataset),
        "parsed": [p for model in models for p in grid.parsed_paths(results, dataset, model)],
        "responses": list(dict.fromkeys(grid.responses(results, dataset, m) for m in models)),
        "table": layout.table(dataset, "csv"),
    }


def read_answers(parsed_paths: list[str], responses_paths: list[str]) -> pd.DataFrame:
    """Per model, strategy, perturbation and paper: the answer's text and its parsed items."""
    parsed = pd.concat([pd.read_parquet(path) for path in parsed_paths], ignore_index=True)
    texts = pd.concat(
        [pd.read_parquet(path, columns=["request_id", "text"]) for path in responses_paths],
        ignore_index=True,
    ).drop_duplicates("request_id")
    answers = parsed.merge(texts, on="request_id", how="left")
    answers["items"] = [
        "\n".join(f"{label}: {text}" for label, text in zip(labels, items, strict=True))
        for labels, items in zip(answers["items_label"], answers["items_text"], strict=True)
    ]
    return answers[["model", "strategy", "perturbation", "paper_id", "text", "items"]]


def paper_sections(papers: pd.DataFrame, inputs: dict[str, pd.DataFrame]) -> dict[str, dict]:
    """Each paper's title, the novelty claims the models saw (each perturbation's form), the
    reviewers' novelty sentences with their labels, and the RAG cells' retrieved papers."""
    perturbed = {
        name: frame.set_index("paper_id")["descriptions"]
        for name, frame in inputs.items()
        if name != "none"
    }
    sections = {}
    for paper in papers.to_dict("records"):
        paper_id = paper["paper_id"]
        parts = [
            {
                "label": "Novelty claims (as the models saw them)",
                "items": list(paper["descriptions"]),
            }
        ]
        for name, claims in perturbed.items():
            if paper_id in claims.index:
                label = f"Novelty claims, perturbation {name}"
                parts.append({"label": label, "items": list(claims[paper_id])})
        reviews = [
            f"{label}: {text}"
            for label, text in zip(paper["gold_labels"], paper["gold_texts"], strict=True)
        ]
        parts.append({"label": "Reviewers' novelty sentences", "items": reviews})
        retrieved = paper.get("retrieved_titles")
        if retrieved is not None and len(retrieved):
            label = "Retrieved context of the RAG cells (titles)"
            parts.append({"label": label, "items": list(retrieved)})
        sections[paper_id] = {"title": f"{paper_id}: {paper['title']}", "sections": parts}
    return sections


def build(
    dataset: str,
    papers: pd.DataFrame,
    inputs: dict[str, pd.DataFrame],
    scores: pd.DataFrame,
    answers: pd.DataFrame,
    table: pd.DataFrame,
) -> Explorer:
    """The explorer of one dataset from its outputs (the scores of every model, the reviews'
    included; the answers; the table)."""
    keys = ["model", "strategy", "perturbation", "paper_id"]
    rows = scores.merge(answers, on=keys, how="left")
    human = rows["model"] == HUMAN
    gold = papers.set_index("paper_id")["gold_text"]
    rows.loc[human, "text"] = rows.loc[human, "paper_id"].map(gold)
    rows["id"] = rows[keys].astype(str).agg("/".join, axis=1)
    rows = rows.rename(columns={"paper_id": "paper", "n_items": "items_count"})
    texts = {
        row_id: {"answer": text, "items": items}
        for row_id, text, items in zip(
            rows["id"], rows["text"].fillna(""), rows["items"].fillna(""), strict=True
        )
    }
    rows["snippet"] = rows["text"].map(snippet)
    rows["items"] = rows.pop("items_count")
    tables = [_table(table)]
    presets = [
        {"label": "Failed or unparseable answers", "filter": filter_of(flags=["unparseable"])},
        {"label": "Relevance below 0.2", "filter": filter_of(relevance=[None, 0.2])},
        {"label": "The reviewers (human row)", "filter": filter_of({"model": [HUMAN]})},
    ]
    models = sorted(set(rows["model"]) - {HUMAN})
    return Explorer(
        study="novbench",
        dataset=dataset,
        title=f"NovBench: {dataset}",
        columns=COLUMNS,
        rows=rows[[c["name"] for c in COLUMNS]],
        instance_column="paper",
        instance_label="paper",
        chunk_column="model",
        compare_column="model",
        match_columns=["paper", "strategy", "perturbation"],
        text_fields=TEXT_FIELDS,
        texts=texts,
        instances=paper_sections(papers, inputs),
        tables=tables,
        presets=presets,
        summary=[
            ["Papers", int(papers["paper_id"].nunique())],
            ["Models", len(models)],
            ["Evaluations", int((~human).sum())],
        ],
    )


def _table(table: pd.DataFrame) -> dict:
    """The dataset's table (table.csv), each score a link to the papers behind it."""
    header = ["Model", "Strategy", "Perturbation", *(LABELS[m] for m in METRICS), "Papers"]
    rows, links = [], []
    for row in table.to_dict("records"):
        rows.append(
            [
                row["model"],
                row["strategy"],
                row["perturbation"],
                *(_number(row[m]) for m in METRICS),
                int(row["n_papers"]),
            ]
        )
        behind = filter_of(
            {
                "model": [row["model"]],
                "strategy": [row["strategy"]],
                "perturbation": [row["perturbation"]],
            }
        )
        links.append([None, None, None, *([behind] * len(METRICS)), behind])
    note = "Means over papers (table.csv); a score opens the papers behind it."
    return {
        "title": "Scores per model, strategy and perturbation",
        "note": note,
        "header": header,
        "rows": rows,
        "links": links,
    }


def _number(value) -> float | None:
    return None if value is None or value != value else round(float(value), 3)
