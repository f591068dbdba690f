"""What the report compares: the configured datasets mapped to the published ones, the NovBench
cells whose requests it checks, and the run's outputs it reads (the rule's inputs)."""

from __future__ import annotations

from pathlib import Path

from noveval.core.published import published
from noveval.core.registry import load_registry
from noveval.judges.grid.build import system_models
from noveval.judges.grid.cells import configured_changes
from noveval.judges.layout import JudgesPaths
from noveval.novbench.custom import evaluator_of
from noveval.novbench.layout import NovBenchLayout

RELEASE_SUBSET = "emnlp2023-release100"  # Table 5: a dataset that declares perturbations_release


# The lists of :func:`inputs`.
INPUTS = (
    "tables",
    "scores",
    "metrics",
    "expert",
    "releases",
    "requests",
    "built_from",
    "scripts",
    "paper_tables",
    "extraction",
    "weights",
)


# The expert study's file of a judge release: its counts are published numbers.
EXPERT_FILE = "expert-annotations/judge_errors.csv"


DATASETS = {
    "emnlp2023": "the authors' Final_data.json, 1,684 papers (config/paper.yaml)",
    "coling2020": "the authors' 73 COLING-2020 papers (config/paper.yaml)",
    RELEASE_SUBSET: "no dataset in novbench.datasets declares perturbations_release (Table 5: "
    "the authors' 100-paper perturbation subset, Final_data_change/del.json)",
    "novelty-eval": "the judge study's full release with its blocklist",
}


def mapped(study: str) -> set[str]:
    """Dataset names that a study's published numbers are compared with."""
    return set(published(study)["dataset"])


def configured(config: dict, not_runnable: dict | None = None) -> dict:
    """What the config runs, as plain data: the configured dataset (name and models) compared
    with each published one, and the strategies, perturbations, judges and changes;
    ``not_runnable``: the judges whose cells the grid skips (``JudgesGrid.not_runnable``)."""
    section = config["novbench"]
    novbench = {}
    for name, entry in section["datasets"].items():
        if entry is None:  # an overlay dropped it
            continue
        given = entry if isinstance(entry, dict) else {}
        key = RELEASE_SUBSET if given.get("perturbations_release") else name
        if key in mapped("novbench"):
            models = given.get("models") or section["models"]
            novbench.setdefault(key, {"name": name, "models": list(models)})
    judges = config["judges"]
    return {
        "novbench": {
            "datasets": novbench,
            "strategies": list(section["strategies"]),
            "perturbations": list(section["perturbations"]),
        },
        "judges": {
            "datasets": {
                name: {"name": name}
                for name, entry in judges["datasets"].items()
                if entry is not None and name in mapped("judges")
            },
            "models": [*judges["models"], *system_models(judges)],
            "changes": [*configured_changes(judges), *(judges.get("systems") or {})],
            "not_runnable": {model: why for model, (why, _) in (not_runnable or {}).items()},
        },
    }


def cells(results: str, grid: dict, novbench) -> list[dict]:
    """Every NovBench cell of the datasets compared with a paper's: its keys, its requests
    table, and the inputs and pool its requests were built from."""
    layout = NovBenchLayout(results)
    return [
        {
            "dataset": name,
            "model": cell.model,
            "strategy": cell.strategy,
            "perturbation": cell.perturbation,
            "requests": layout.requests(name, cell.model, cell.name),
            "inputs": novbench.inputs_path(results, name, cell.perturbation),
            "papers": layout.papers(name),
        }
        for name in (d["name"] for d in grid["novbench"]["datasets"].values())
        for cell in novbench.cells_of(name)
        if evaluator_of(cell.strategy) is None  # a custom evaluator's cells have no paper number
    ]


def authors_scripts(results: str, cells: list[dict], registry: str | Path) -> list[str]:
    """The authors' scripts (fetched) that the paper mode's requests of ``cells`` are built
    from, for the models of ``registry``."""
    from noveval.novbench.authors import upstream_inputs

    specs = load_registry(registry).models
    return sorted(
        {
            path
            for cell in cells
            if cell["model"] in specs
            for path in upstream_inputs(results, specs[cell["model"]], cell["strategy"])
        }
    )


def inputs(
    results: str,
    grid: dict,
    novbench,
    judges,
    cells: list[dict] = (),
    scripts: list[str] = (),
    paper_tables=None,
    extraction: list[str] = (),
    weights: list[str] = (),
) -> dict[str, list[str]]:
    """The outputs the report reads: of the configured datasets compared with a paper's (and the
    judge datasets' expert-study file where their release declares one, and the NovBench
    datasets' appendix tables where ``paper_tables``, the config's declarations, has them), the
    requests of their ``cells`` with what they were built from, the authors' ``scripts``, and the
    extraction validation's scores (``extraction``: none or one table), and the NovBench models'
    weights manifests (``weights``: the commit each ran at)."""
    novbench_sets = [d["name"] for d in grid["novbench"]["datasets"].values()]
    judges_sets = [d["name"] for d in grid["judges"]["datasets"].values()]
    return {
        "tables": [NovBenchLayout(results).table(d, "csv") for d in novbench_sets],
        "scores": [p for d in novbench_sets for p in novbench.score_paths(results, d)],
        "metrics": [
            JudgesPaths(results).metrics(d, f, "csv")
            for d in judges_sets
            for f in judges.formats(d)
        ],
        "expert": [
            file.local
            for d in judges_sets
            for file in judges.releases.get(d, [])
            if file.path == EXPERT_FILE
        ],
        "releases": [novbench.releases[d].path for d in novbench_sets],
        "requests": [cell["requests"] for cell in cells],
        "built_from": sorted({path for cell in cells for path in (cell["inputs"], cell["papers"])}),
        "scripts": list(scripts),
        "paper_tables": [
            path
            for path in (paper_tables.outputs(results, novbench) if paper_tables else [])
            if Path(path).parent.name in novbench_sets
        ],
        "extraction": list(extraction),
        "weights": list(weights),
    }
