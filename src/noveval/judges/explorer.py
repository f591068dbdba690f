"""The judge study's instance explorer: every pair and idea with its gold label, and for every
backbone, change and run the verdict with the calls' answers (``noveval.core.explorer``).

A row is one aggregated verdict (an instance, a cell, a run). Flags: ``correct`` (the gold
label), ``tie``, ``failed`` (no call parsed), ``flipped`` (another verdict than the same judge's
reference cell on the same instance and run: the flip rates' count), ``wrong_everywhere`` (the
judge is wrong on the instance under every change it ran) and ``backbones_disagree`` (the
backbones' reference verdicts on the instance differ).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noveval.core.explorer import Explorer, filter_of, snippet
from noveval.inference.batches import CELLS
from noveval.judges.grid.cells import DERIVED, change_label
from noveval.judges.layout import JudgesPaths
from noveval.judges.statistics.aggregation import FAILED, TIE

REFERENCE = "reference"
CHOICES = {"pairwise": {0: "idea 1", 1: "idea 2"}, "pointwise": {1: "novel", 0: "not novel"}}
FLAGS = ["correct", "tie", "failed", "flipped", "wrong_everywhere", "backbones_disagree"]
COLUMNS = [
    {"name": "id", "kind": "id"},
    {"name": "instance", "label": "Instance", "kind": "key"},
    {"name": "format", "label": "Format", "kind": "key"},
    {"name": "setup", "label": "Setup", "kind": "key"},
    {"name": "model", "label": "Judge", "kind": "key"},
    {"name": "change", "label": "Change", "kind": "key"},
    {"name": "run", "label": "Run", "kind": "number"},
    {"name": "gold", "label": "Gold", "kind": "key"},
    {"name": "verdict", "label": "Verdict", "kind": "key"},
    *(
        {"name": flag, "label": flag.replace("_", " ").capitalize(), "kind": "flag"}
        for flag in FLAGS
    ),
    {"name": "calls", "label": "Calls", "kind": "number"},
    {"name": "cost_usd", "label": "Cost (USD)", "kind": "number"},
    {"name": "snippet", "label": "First answer", "kind": "text"},
]
TEXT_FIELDS = [{"name": "answers", "label": "The calls' answers (call, order: text)"}]


def explorer_inputs(grid, results: str, dataset: str) -> dict[str, list[str] | str]:
    """What a dataset's explorer reads (rule judges_explorer): the instances of each format and
    setup, every cell's verdicts (the custom judges' too), the models' responses, the metrics and
    the flip rates (``grid``: the config's ``noveval.judges.grid.inputs.JudgesGrid``)."""
    paths = JudgesPaths(results)
    formats = grid.formats(dataset)
    setups = dict.fromkeys((c.format, c.setup) for c in grid.cells if c.dataset == dataset)
    custom = [cell for cell in grid.custom if cell.dataset == dataset]
    return {
        "instances": [paths.instances(dataset, *keys) for keys in setups],
        "verdicts": [
            *(path for format in formats for path in grid.verdict_paths(results, dataset, format)),
            *(paths.custom_cell("verdicts.parquet", cell) for cell in custom),
        ],
        "responses": [
            paths.responses(dataset, model, batch)
            for data, model, batch in grid.batches()
            if data == dataset and batch == CELLS
        ],
        "metrics": [paths.metrics(dataset, format) for format in formats],
        "flip_rates": paths.output("flip_rates.csv", dataset),
    }


def cell_of(path: str | Path) -> dict:
    """A verdicts file's cell from its path: ``.../{model}/{format}/{setup}/{ideas}/{change}/``,
    or a custom judge's ``.../{model}/custom/{judge}/{format}/{setup}/{ideas}/{wording}/{change}/``;
    with the responses cell its answers are read from (none for a dedicated system's)."""
    parts = Path(path).parts
    if len(parts) > 8 and parts[-8] == "custom":
        model, judge, format, setup, ideas, wording, change = (parts[-9], *parts[-7:-1])
        label = change if wording == REFERENCE else f"{wording}:{change}"
        responses = f"custom/{judge}/{format}/{setup}/{ideas}/{wording}/{change}"
        return {
            "model": f"{judge} (own judge)",
            "backbone": model,
            "format": format,
            "setup": setup,
            "ideas": ideas,
            "change": change_label(label, ideas),
            "responses": responses,
        }
    model, format, setup, ideas, change = parts[-6:-1]
    source = REFERENCE if change in DERIVED else change
    return {
        "model": model,
        "backbone": model,
        "format": format,
        "setup": setup,
        "ideas": ideas,
        "change": change_label(change, ideas),
        "responses": f"{format}/{setup}/{ideas}/{source}",
    }


def read_verdicts(paths: list[str]) -> pd.DataFrame:
    """Every cell's verdicts, with its cell's keys."""
    frames = []
    for path in paths:
        frame = pd.read_parquet(path)
        cell = cell_of(path)
        frame = frame.drop(columns=[c for c in ("model", "setup", "ideas", "change") if c in frame])
        frames.append(frame.assign(**cell))
    return pd.concat(frames, ignore_index=True)


def call_answers(responses_paths: list[str]) -> dict[tuple[str, str, str], list[tuple[int, str]]]:
    """(backbone, responses cell, instance id) -> its calls: (index, "call c, order o: ...")."""
    answers: dict[tuple[str, str, str], list[tuple[int, str]]] = {}
    for path in responses_paths:
        backbone = Path(path).parents[1].name  # .../{model}/responses/cells.parquet
        frame = pd.read_parquet(path, columns=["item_id", "cell", "text", "error"])
        for item, cell, text, error in frame.itertuples(index=False):
            instance, order, call = item.rsplit("|", 2)
            said = text if isinstance(text, str) else f"(failed: {error})"
            key = (backbone, cell, instance)
            answers.setdefault(key, []).append((int(call), f"call {call}, order {order}: {said}"))
    return answers


def flags(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with their flags (module docstring)."""
    rows = rows.copy()
    rows["failed"] = rows["verdict"].isna() | (rows["verdict"] == FAILED)
    rows["tie"] = rows["verdict"] == TIE
    rows["correct"] = rows["verdict"] == rows["label"]
    judge = ["format", "setup", "model", "instance_id", "run"]
    reference = rows[(rows["change"] == REFERENCE)][[*judge, "verdict"]]
    reference = reference.rename(columns={"verdict": "reference_verdict"}).drop_duplicates(judge)
    rows = rows.merge(reference, on=judge, how="left")
    compared = rows["reference_verdict"].notna() & (rows["change"] != REFERENCE)
    rows["flipped"] = compared & (rows["verdict"] != rows["reference_verdict"])
    instance = ["format", "setup", "instance_id"]
    rows["wrong_everywhere"] = ~rows.groupby([*instance, "model"])["correct"].transform("any")
    first = (
        rows[rows["change"] == REFERENCE].sort_values("run").drop_duplicates([*instance, "model"])
    )
    chosen = first.groupby(instance)["verdict"].nunique()  # one verdict per judge: its first run
    rows["backbones_disagree"] = rows.set_index(instance).index.map(chosen).fillna(0) > 1
    return rows


def instance_sections(instances: pd.DataFrame) -> dict[str, dict]:
    """Each instance's ideas (with their titles and sources), area and gold label."""
    sections = {}
    for row in instances.to_dict("records"):
        key = instance_key(row["format"], row["setup"], row["instance_id"])
        ideas = [
            f"Idea {n} ({source}; {title}): {idea}"
            for n, (idea, title, source) in enumerate(
                zip(row["ideas"], row["titles"], row["sources"], strict=True), start=1
            )
        ]
        gold = CHOICES[row["format"]].get(row["label"], str(row["label"]))
        parts = [
            {"label": "Ideas", "items": ideas},
            {"label": "Research area", "items": [row["area"]]},
            {"label": "Gold label", "items": [gold]},
        ]
        title = f"{row['format']} {row['setup']} {row['instance_id']}"
        sections[key] = {"title": title, "sections": parts}
    return sections


def instance_key(format: str, setup: str, instance_id: str) -> str:
    return f"{format}:{setup}:{instance_id}"


def build(
    dataset: str,
    instances: pd.DataFrame,
    verdicts: pd.DataFrame,
    answers: dict[tuple[str, str, str], list[str]],
    metrics: pd.DataFrame,
    flip_rates: pd.DataFrame,
) -> Explorer:
    """The explorer of one dataset of the judge study from its verdicts and tables."""
    rows = flags(verdicts)
    rows["instance"] = [
        instance_key(*keys)
        for keys in zip(rows["format"], rows["setup"], rows["instance_id"], strict=True)
    ]
    rows["gold"] = [_choice(f, v) for f, v in zip(rows["format"], rows["label"], strict=True)]
    rows["verdict"] = [_choice(f, v) for f, v in zip(rows["format"], rows["verdict"], strict=True)]
    rows["id"] = [
        f"{instance}/{model}/{change}/{run}"
        for instance, model, change, run in zip(
            rows["instance"], rows["model"], rows["change"], rows["run"], strict=True
        )
    ]
    # a cell of single-call runs (no aggregation, sub-runs) has run r answered by call r
    cell = ["model", "format", "setup", "ideas", "change"]
    rows["sub_runs"] = rows.groupby(cell)["run"].transform("nunique") > 1
    texts, firsts = {}, []
    columns = ["id", "backbone", "responses", "instance_id", "run", "sub_runs"]
    for row in rows[columns].itertuples(index=False):
        calls = answers.get((row.backbone, row.responses, str(row.instance_id)), [])
        said = [text for call, text in calls if not row.sub_runs or call == row.run]
        texts[row.id] = {"answers": "\n\n".join(said)}
        firsts.append(snippet(said[0].split(": ", 1)[-1]) if said else "")
    rows["snippet"] = firsts
    rows = rows.rename(columns={"n_calls": "calls"})
    changes = [c for c in dict.fromkeys(rows["change"]) if c != REFERENCE]
    presets = [
        *(
            {"label": f"Flips under {c}", "filter": filter_of({"change": [c]}, ["flipped"])}
            for c in changes
        ),
        {"label": "Wrong under every change", "filter": filter_of(flags=["wrong_everywhere"])},
        {"label": "Ties", "filter": filter_of(flags=["tie"])},
        {"label": "Backbones disagree", "filter": filter_of(flags=["backbones_disagree"])},
    ]
    return Explorer(
        study="judges",
        dataset=dataset,
        title=f"Judges: {dataset}",
        columns=COLUMNS,
        rows=rows[[c["name"] for c in COLUMNS]],
        instance_column="instance",
        instance_label="instance",
        chunk_column="model",
        compare_column="model",
        match_columns=["instance", "change", "run"],
        text_fields=TEXT_FIELDS,
        texts=texts,
        instances=instance_sections(instances),
        tables=[_metrics_table(metrics), _flips_table(flip_rates)],
        presets=presets,
        summary=[
            ["Instances", int(rows["instance"].nunique())],
            ["Judges", int(rows["model"].nunique())],
            ["Verdicts", len(rows)],
            ["Cost of the calls (USD)", round(float(rows["cost_usd"].sum()), 4)],
        ],
    )


def _choice(format: str, value) -> str:
    if value is None or value != value or int(value) == FAILED:
        return "failed"
    return "tie" if int(value) == TIE else CHOICES[format].get(int(value), str(value))


# the metrics table's numbers: quality is pairwise strict accuracy, pointwise macro-F1
METRIC_COLUMNS = {"quality": "Quality", "soft_accuracy": "Soft accuracy", "tie_rate": "Tie rate",
                  "flip_rate": "Flip rate", "cost_usd": "Cost (USD)"}  # fmt: skip


def _metrics_table(metrics: pd.DataFrame) -> dict:
    """Quality, ties, flips and cost per format, judge and change (metrics.parquet); a number
    opens the verdicts behind it (the ties or the flips for their rates)."""
    rows, links = [], []
    for row in metrics.to_dict("records"):
        eq = {"format": [row["format"]], "model": [row["model"]], "change": [row["change_label"]]}
        rows.append([row["format"], row["model"], row["change_label"],
                     *(_number(row.get(column)) for column in METRIC_COLUMNS)])  # fmt: skip
        behind = filter_of(eq)
        shown = {"tie_rate": filter_of(eq, ["tie"]), "flip_rate": filter_of(eq, ["flipped"])}
        links.append([None, None, None, *(shown.get(c, behind) for c in METRIC_COLUMNS)])
    note = (
        "metrics.parquet of each format (quality: pairwise strict accuracy, pointwise macro-F1); "
        "a number opens the verdicts behind it."
    )
    header = ["Format", "Judge", "Change", *METRIC_COLUMNS.values()]
    return {"title": "Quality, ties and flips per judge and change", "note": note,
            "header": header, "rows": rows, "links": links}  # fmt: skip


def _flips_table(flip_rates: pd.DataFrame) -> dict:
    """The flip rates (flip_rates.csv); a rate opens the flipped verdicts."""
    header = ["Format", "Judge", "Change", "Against", "Instances", "Flipped", "Flip rate"]
    rows, links = [], []
    for row in flip_rates.to_dict("records"):
        rows.append(
            [
                row["format"],
                row["model"],
                row["change_label"],
                row["against"],
                int(row["n_instances"]),
                int(row["flipped"]),
                _number(row["flip_rate"]),
            ]
        )
        flipped = filter_of(
            {"format": [row["format"]], "model": [row["model"]], "change": [row["change_label"]]},
            ["flipped"] if row["against"] == REFERENCE else [],
        )
        links.append([None, None, None, None, None, flipped, flipped])
    return {
        "title": "Flip rates",
        "note": "flip_rates.csv",
        "header": header,
        "rows": rows,
        "links": links,
    }


def _number(value) -> float | None:
    return None if value is None or value != value else round(float(value), 4)
