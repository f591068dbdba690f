"""Set each published number (``published/*.csv``) beside ours, with a verdict and its reason.

A configured dataset is compared with a paper table when its name is the ``dataset`` of the
published rows: NovBench ``emnlp2023`` (Tables 2, 3; Tables 6–8 where the dataset declares the
authors' annotations), ``coling2020`` (Table 4); Table 5 with the dataset that declares
``perturbations_release`` (the authors' 100-paper perturbation subset, whatever its name); the
judge study's ``novelty-eval`` (its full release, blocklist applied). The human agreement
(Section 4.3) is compared from whichever compared dataset declares the annotators' sheets.
Verdicts: ``match`` = equal when both are rounded to the paper's printed decimals; ``within`` =
inside the metric's tolerance (:data:`TOLERANCES`); ``outside``; ``not comparable`` (our value
exists, but was produced under other conditions than the paper's, or with too many failed or empty
answers: the reason names each); ``not run`` with the reason.

Conditions (:func:`judged`): every compared value carries the conditions it was produced under,
read from what the run recorded (the tables' scorers, paper counts, failed and empty answers,
``substitutes_for``; the release file's SHA-256; the appendix tables' annotation files'
SHA-256 and annotator count) and from the config the steps read (prompt mode, decoding, each
model's registry wire, calls, aggregation, where the paper-type labels come from). The paper's
conditions are the same read from ``config/paper.yaml`` over ``config/config.yaml`` with
``config/models.yaml`` (:func:`paper_conditions`), the project's statement of the authors'
protocol.
Each published number says where it comes from (``source_kind``): ``printed`` in the paper,
``authors' file`` (``source_file``), or ``own regression value``; a value reconstructed from the
authors' files carries its ``reconstruction_error`` and is at best ``within``.
The judge study's rows also compare flip rates, the plan-format cells, the ideation comparison
(over several cells), dataset sizes (instances scored) and the expert study's counts (the
release's ``judge_errors.csv``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
from pathlib import Path

import pandas as pd
import yaml

from noveval.files import read_tables
from noveval.judges.ai_scientist import system_settings
from noveval.judges.cells import CHANGES, STANDARD, configured_changes, split_change
from noveval.judges.grid import system_models
from noveval.judges.prompts import calls_of
from noveval.novbench.paper_tables import ANNOTATIONS_DIGEST
from noveval.novbench.tables import HUMAN
from noveval.registry import Registry, load_registry

log = logging.getLogger(__name__)

PUBLISHED = Path(__file__).parent / "published"
RELEASE_SUBSET = "emnlp2023-release100"  # Table 5: a dataset that declares perturbations_release
COLUMNS = [
    "study",
    "table",
    "cell",
    "metric",
    "paper_value",
    "source_kind",
    "our_value",
    "difference",
    "tolerance",
    "verdict",
    "reason",
    "conditions",
]
VERDICTS = ["match", "within", "outside", "not comparable", "not run"]
PRINTED, AUTHORS_FILE, OWN = "printed", "authors' file", "own regression value"
# Shares of a cell's answers over which its numbers are not comparable (config key reproduction).
SHARE_LIMITS = {"empty_share": "max_empty_share", "failed_share": "max_failed_share"}
# The judge settings that shape each request, and those that turn calls into a decision.
JUDGE_REQUESTS = (
    "max_tokens",
    "structured_output",
    "reasoning_chars",
    "reasoning_summary",
    "prompt_caching",
)
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
JUDGE_AGGREGATION = ("no_aggregation", "even_split", "all_failed")
# Absolute tolerances of ``within``: NovBench per metric, the judge study per printed unit (a
# cost is within 10% of the paper's).
TOLERANCES = {
    "relevance": 0.05,
    "coverage": 0.01,
    "clarity": 0.01,
    "dist_acc": 0.02,
    "kc": 0.005,
    "ls": 0.005,
    "similarity": 0.02,
    "percent": 2.0,
    "fraction": 0.02,
    "count": 0.0,
}
COST_TOLERANCE = 0.10
# Published judge-study numbers that are counts in a release file, not metrics of a judge cell.
EXPERT_FILE = "expert-annotations/judge_errors.csv"
RELEASE_FACTS = ("errors", "controls")
# The metric the run's paired bootstrap against the reference tests (statistics.quality).
QUALITY = {"pairwise": "strict_accuracy", "pointwise": "macro_f1"}
SIZES = {"n_pairs": "n_instances", "n_ideas": "n_instances"}  # instances scored per setup
PAPER_SCORERS = {
    "relevance": ("relevance_encoder", "spiced"),
    "coverage": ("coverage_encoder", "all-minilm-l6-v2"),
    "clarity": ("fluency_lm", "distilgpt2"),
}
DATASETS = {
    "emnlp2023": "the authors' Final_data.json, 1,684 papers (config/paper.yaml)",
    "coling2020": "the authors' 73 COLING-2020 papers (config/paper.yaml)",
    RELEASE_SUBSET: "no dataset in novbench.datasets declares perturbations_release (Table 5: "
    "the authors' 100-paper perturbation subset, Final_data_change/del.json)",
    "novelty-eval": "the judge study's full release with its blocklist",
}
# NovBench's appendix tables from the authors' annotations: the published subset → our output
# file (results/novbench/<dataset>/) and the config key that declares its input.
PAPER_TABLES = {
    "paper_type": ("paper_type.csv", "paper_types"),
    "reviewer_confidence": ("reviewer_confidence.csv", "review_confidence"),
    "human_agreement": ("human_agreement.csv", "human_eval"),
}
ANNOTATION_FILES = ("paper_types", "review_confidence")  # declared files, compared by SHA-256
PAPER_TABLE_TOLERANCES = {
    "similarity_diff": 0.005,
    "fleiss_kappa": 0.05,
    "agreement": 0.02,
    "spearman": 0.05,
}
PUBLISHED_ANNOTATORS = 4  # Section 4.3; two annotators' sheets were released
HUMAN_AGREEMENT_METRIC = "overall"  # the metric preference compared with the published numbers


def published(study: str) -> pd.DataFrame:
    """The project's reference table of one study's published numbers, with their sources."""
    return pd.read_csv(PUBLISHED / f"{study}.csv", dtype={"table": str}, keep_default_na=False)


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
    return [
        {
            "dataset": name,
            "model": cell.model,
            "strategy": cell.strategy,
            "perturbation": cell.perturbation,
            "requests": f"{results}/novbench/{name}/{cell.model}/{cell.name}/requests.parquet",
            "inputs": novbench.inputs_path(results, name, cell.perturbation),
            "papers": f"{results}/novbench/{name}/papers.parquet",
        }
        for name in (d["name"] for d in grid["novbench"]["datasets"].values())
        for cell in novbench.cells_of(name)
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
        "tables": [f"{results}/novbench/{d}/table.csv" for d in novbench_sets],
        "scores": [p for d in novbench_sets for p in novbench.score_paths(results, d)],
        "metrics": [
            f"{results}/judges/{d}/{f}/metrics.csv" for d in judges_sets for f in judges.formats(d)
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


def conditions(config: dict, registry: Registry) -> dict:
    """The conditions a (validated) config runs under, by study: what its steps read, with each
    configured model's registry wire (reference, API, request options)."""
    from noveval.novbench.generation import call_decoding

    novbench, judges, decoding = config["novbench"], config["judges"], config["decoding"]
    judge_models = [
        *judges["models"],
        *(judges.get("substitutions") or {}).values(),
        *system_models(judges),
    ]
    datasets = {
        name: entry if isinstance(entry, dict) else {}
        for name, entry in novbench["datasets"].items()
        if entry is not None
    }
    return {
        "novbench": {
            "prompts": novbench.get("prompts", "builtin"),
            "decoding": {
                "mode": decoding.get("mode", "greedy"),
                **call_decoding({"mode": "greedy", **decoding}),
            },
            "models": {name: registry.model(name).wire() for name in novbench["models"]},
            "settings": {
                "few_shot_examples": novbench.get("few_shot_examples"),
                "seed": novbench.get("seed"),
                "keep_fraction": novbench.get("keep_fraction"),
                "paraphrase_model": novbench.get("paraphrase_model"),
            },
            "scoring": {key: novbench["scoring"][key] for key, _ in PAPER_SCORERS.values()},
            "datasets": {
                name: {"sha256": entry.get("sha256"), "papers": entry.get("papers")}
                for name, entry in datasets.items()
            },
            "annotations": {name: annotations(entry) for name, entry in datasets.items()},
        },
        "judges": {
            "prompts": judges.get("prompts", "builtin"),
            "requests": {
                "temperature": _set(decoding.get("temperature")),
                "seed": _set(decoding.get("seed")),
                **{key: _set(judges.get(key)) for key in JUDGE_REQUESTS},
            },
            "models": {name: registry.model(name).wire() for name in judge_models},
            "datasets": {
                name: {
                    "commit": entry.get("commit") if isinstance(entry, dict) else None,
                    "blocklist": judges.get("blocklist"),
                }
                for name, entry in judges["datasets"].items()
                if entry is not None
            },
            "calls": {
                "calls": judges["calls"],
                "calls_by_change": judges.get("calls_by_change", {}),
            },
            "aggregation": {key: _set(judges.get(key)) for key in JUDGE_AGGREGATION},
            "retrieval": {"search": (judges.get("retrieval") or {}).get("search", "embedding")},
            "ai_scientist": {
                **system_settings((judges.get("systems") or {}).get("ai_scientist") or {}),
                "search": RUN_AI_SCIENTIST_SEARCH,
            },
            "novelty_checker": checker_conditions(judges, registry),
        },
    }


def checker_conditions(judges: dict, registry) -> dict:
    """The Idea Novelty Checker's conditions: its embedder, its reranker's wire and the order its
    RankGPT windows are applied in (ours: back to front, as built)."""
    settings = judges.get("novelty_checker") or {}
    if "novelty_checker" not in (judges.get("systems") or {}):
        return {}
    reranker = settings.get("reranker")
    return {
        "encoder": registry.encoder(settings.get("encoder", "all-minilm-l6-v2")),
        "reranker": registry.model(reranker).wire() if reranker else "the backbone",
        "windows": CHECKER_WINDOWS,
    }


def annotations(dataset: dict) -> dict:
    """The appendix tables' annotation files a dataset entry declares: each file's SHA-256 (None
    where the config pins none) and where the paper-type labels come from (the declared file, or
    a classifier model's answers)."""
    out = {}
    for key in ANNOTATION_FILES:
        given = dataset.get(key)
        if isinstance(given, dict) and "classifier" in given:
            out[key] = {"source": f"classifier {given['classifier']}", "sha256": None}
        elif given is not None:
            sha256 = given.get("sha256") if isinstance(given, dict) else None
            out[key] = {"source": "file", "sha256": sha256}
    return out


def _set(value):
    """A setting's value as a condition: null (none, no cap) is a value, not an unknown."""
    return "null" if value is None else value


def paper_config(default: str | Path, paper: str | Path, schema: str | Path) -> dict:
    """``paper`` over ``default``, validated (schema defaults filled), as the workflow reads it."""
    from snakemake.utils import update_config, validate

    config = yaml.safe_load(Path(default).read_text(encoding="utf-8"))
    update_config(config, yaml.safe_load(Path(paper).read_text(encoding="utf-8")))
    validate(config, str(schema))
    return config


AUTHORS_RETRIEVAL_SEARCH = "Ai2 Paper Finder (relevance >= 0.8)"
# The AI-Scientist check's searches: Semantic Scholar's index and ranking when the run searches,
# and when the authors searched (their runs' search results were not released).
RUN_AI_SCIENTIST_SEARCH = "Semantic Scholar at this run"
AUTHORS_AI_SCIENTIST_SEARCH = "Semantic Scholar at the authors' run (results not released)"
AUTHORS_CHECKER_ENCODER = "allenai/specter2_base with the specter2 adapter (first token)"
AUTHORS_CHECKER_WINDOWS = "in the order their answers arrived"
CHECKER_WINDOWS = "back to front, as built"


def paper_conditions(
    default: str | Path, paper: str | Path, schema: str | Path, registry: str | Path
) -> dict:
    """The paper's conditions: :func:`conditions` of the paper overlay with the project's
    registry."""
    found = conditions(paper_config(default, paper, schema), load_registry(registry))
    # The retrieval change's search engine: the authors searched Ai2's Paper Finder (their
    # ablations.yaml, use_semantic_scholar: false), whose results were not released; the paper
    # overlay runs their Semantic Scholar path, so retrieval numbers are never compared as equal.
    found["judges"]["retrieval"]["search"] = AUTHORS_RETRIEVAL_SEARCH
    # The AI-Scientist check searches the live index: what its rounds find may differ from what
    # the authors' found, so its numbers are never compared as equal either.
    found["judges"]["ai_scientist"]["search"] = AUTHORS_AI_SCIENTIST_SEARCH
    # The checker's embedder: their Specter2 base with its proximity adapter, the first token's
    # vector (ranking/embedding.py); and their RankGPT windows, all sent at once, each reordering
    # the list as its answer arrived.
    if found["judges"]["novelty_checker"]:
        found["judges"]["novelty_checker"] |= {
            "encoder": AUTHORS_CHECKER_ENCODER,
            "windows": AUTHORS_CHECKER_WINDOWS,
        }
    return found


def flat(values: dict, prefix: str = "") -> dict:
    """Nested conditions as one level of dotted names (``decoding.mode``)."""
    out = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out |= flat(value, f"{name}.")
        else:
            out[name] = value
    return out


def _shown(value) -> str:
    if value is None:
        return "not set"
    return json.dumps(value, default=str) if isinstance(value, (dict, list)) else str(value)


def differences(ours: dict, paper: dict) -> list[str]:
    """Each condition of ours that is not the paper's, as ``name ours (paper: theirs)``; a
    condition whose paper value is None (not known) is not compared."""
    mine, theirs = flat(ours), flat(paper)
    found = [
        f"{name} {_shown(mine.get(name))} (paper: {_shown(value)})"
        for name, value in theirs.items()
        if value is not None and mine.get(name) != value
    ]
    extra = [
        f"{name} {_shown(value)} (paper: not set)"
        for name, value in mine.items()
        if name not in theirs and paper.get(name.split(".")[0]) is not None
    ]
    return found + extra


def over_limits(ours: dict, limits: dict) -> list[str]:
    """The shares of failed or empty answers over their limit (config ``reproduction``)."""
    return [
        f"{share} {ours[share]:.3f} over reproduction.{key} {limits[key]:g}"
        for share, key in SHARE_LIMITS.items()
        if ours.get(share) is not None and ours[share] > limits[key]
    ]


def verdict(paper: float, ours: float, decimals: int, tolerance: float) -> str:
    if round(ours, decimals) == round(paper, decimals):
        return "match"
    return "within" if abs(ours - paper) <= tolerance else "outside"


def judged(
    row,
    ours: float,
    tolerance: float,
    ours_conditions: dict,
    paper_conditions: dict,
    limits: dict,
    notes: tuple[str, ...] = (),
) -> dict:
    """Our value of one published number (``row``: ``paper_value``, ``decimals``, and optionally
    ``source_kind``, ``source_file``, ``source``, ``reconstruction_error``, ``statistic``) with its
    verdict: match, within or outside only when every condition of ``ours_conditions`` equals
    ``paper_conditions`` and no share of failed or empty answers passes ``limits``; otherwise
    not comparable, naming each. The report's columns our_value … conditions."""
    error = float(getattr(row, "reconstruction_error", "") or 0)
    outcome = verdict(row.paper_value, ours, int(row.decimals), tolerance + error)
    if getattr(row, "statistic", "") == "at_least" and ours >= row.paper_value:
        outcome = "match"  # a bound such as 'more than two thirds'
    reasons = [note for note in notes if note]
    kind = getattr(row, "source_kind", PRINTED)
    if kind == AUTHORS_FILE:
        reasons.insert(0, f"against the authors' file {row.source_file} (not printed)")
    elif kind == OWN:
        reasons.insert(0, f"against our own regression value ({row.source}), not a published one")
    if error:
        outcome = "within" if outcome == "match" else outcome
        reasons.append(
            f"reconstructed paper value (error up to {error:g}, added to the tolerance): "
            "within at best"
        )
    differing = differences(ours_conditions, paper_conditions) + over_limits(
        ours_conditions, limits
    )
    if differing:
        outcome = "not comparable"
        reasons.insert(0, "not comparable: " + "; ".join(differing))
    return {
        "our_value": ours,
        "difference": ours - row.paper_value,
        "tolerance": tolerance,
        "verdict": outcome,
        "reason": "; ".join(reasons),
        "conditions": json.dumps(flat(ours_conditions), sort_keys=True, default=str),
    }


def _not_run(reason: str) -> dict:
    return {"verdict": "not run", "reason": reason}


def _unconfigured(kind: str, name: str, key: str) -> str:
    hint = f" ({DATASETS[name]})" if name in DATASETS else ""
    return f"{kind} '{name}' not in the config ({key}){hint}"


def release_digest(path: str | Path) -> str:
    """The SHA-256 of a dataset's release file as the run read it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cell_settings(row, settings: dict) -> dict:
    """The settings that shape a NovBench cell's inputs and prompts: the few-shot draw, the
    deletion's kept share, the paraphrase model (none where the authors' release gives the
    perturbed inputs: Table 5's subset)."""
    chosen = {}
    if row.strategy == "few":
        chosen |= {"few_shot_examples": settings["few_shot_examples"], "seed": settings["seed"]}
    if row.dataset != RELEASE_SUBSET and row.perturbation == "del":
        chosen |= {"keep_fraction": settings["keep_fraction"], "seed": settings["seed"]}
    if row.dataset != RELEASE_SUBSET and row.perturbation == "change":
        chosen |= {"paraphrase_model": settings["paraphrase_model"]}
    return {key: _set(value) for key, value in chosen.items()}


def requests_digest(request_ids) -> str:
    """One digest of a cell's requests: of their ids, each a hash of everything that reaches the
    model (its wire, messages and call parameters)."""
    return hashlib.sha256("\n".join(sorted(request_ids)).encode("utf-8")).hexdigest()[:16]


def authors_requests(cell: dict, paper: dict, registry: Registry, upstream_root: str) -> str | None:
    """The digest of the requests the paper mode sends for ``cell``'s inputs: the authors'
    prompts (their pinned scripts under ``upstream_root``) with the paper's decoding, settings
    and model wire (``paper``: :func:`paper_conditions`' NovBench part; None: a model the
    project's registry does not hold)."""
    from noveval.novbench import generation, records

    if cell["model"] not in registry.models:
        return None
    settings = {"prompts": "authors", **paper["settings"]}
    requests = generation.generation_requests(
        inputs=records.read_papers(cell["inputs"]),
        pool=records.read_papers(cell["papers"]),
        strategy=cell["strategy"],
        spec=registry.model(cell["model"]),
        decoding=paper["decoding"],
        settings=settings,
        prompts="authors",
        upstream_root=upstream_root,
    )
    return requests_digest(request["request_id"] for request in requests)


def cell_requests(
    cells: list[dict], basis: dict, registry: str | Path | None, upstream_root: str | None
) -> dict[tuple, dict]:
    """Per cell (dataset, model, strategy, perturbation): the digest of the requests the run
    sent, and of those the paper mode sends for the same inputs (computed when the run used
    the authors' prompts, whose scripts it then fetched; None otherwise)."""
    paper = basis["paper"]["novbench"]
    authors = basis["run"]["novbench"]["prompts"] == "authors" and registry and upstream_root
    known = load_registry(registry) if authors else None
    out = {}
    for cell in cells:
        sent = pd.read_parquet(cell["requests"], columns=["request_id"])["request_id"]
        key = (cell["dataset"], cell["model"], cell["strategy"], cell["perturbation"])
        out[key] = {
            "ours": requests_digest(sent),
            "paper": authors_requests(cell, paper, known, upstream_root) if authors else None,
        }
    return out


def novbench_conditions(row, settings: dict, table: pd.DataFrame, found, digest) -> dict:
    """What one NovBench number was produced under: the dataset (the release file's SHA-256,
    the human row's paper count), the metric's scorer, and for a model's row the prompts,
    decoding, the model's wire, the cell's settings and the shares of empty and failed answers
    (table.csv), and the hub commit of an open model's weights (``settings["weights"]``)."""
    human = table[table["model"] == HUMAN]
    papers = int(human["n_papers"].iloc[0]) if len(human) and "n_papers" in human else None
    out = {"dataset": {"sha256": digest, "papers": papers}}
    if row.metric in PAPER_SCORERS:
        out["scorer"] = found[PAPER_SCORERS[row.metric][0]]
    if row.model != HUMAN:
        out |= _model_conditions(row, settings)
        if row.model in settings.get("weights", {}):  # the paper states none: not compared
            out["weights"] = {"commit": settings["weights"][row.model]}
        for share, column in (("empty_share", "n_empty"), ("failed_share", "n_failed")):
            if column in found and found.get("n_papers"):
                out[share] = float(found[column]) / float(found["n_papers"])
    return out


def _model_conditions(row, settings: dict) -> dict:
    """The conditions of a model's NovBench cell that the run and the paper both state: prompts,
    decoding, the model's wire and the cell's settings."""
    return {
        "prompts": settings["prompts"],
        "decoding": settings["decoding"],
        "model": settings["models"].get(row.model),
        "settings": cell_settings(row, settings["settings"]),
    }


def novbench_paper(row, settings: dict) -> dict:
    """The paper's conditions of one NovBench number (:func:`novbench_conditions`' keys)."""
    out = {"dataset": settings["datasets"].get(row.dataset, {"sha256": None, "papers": None})}
    if row.metric in PAPER_SCORERS:
        out["scorer"] = settings["scoring"][PAPER_SCORERS[row.metric][0]]
    if row.model != HUMAN:
        out |= _model_conditions(row, settings)
    return out


def novbench_row(
    row,
    grid: dict,
    tables: dict[str, pd.DataFrame],
    basis: dict,
    digests: dict[str, str],
    requests: dict[tuple, dict] | None = None,
) -> dict:
    """Our value of one published NovBench number, or why there is none (``requests``:
    :func:`cell_requests`)."""
    dataset = grid["datasets"].get(row.dataset)
    if dataset is None:
        if row.dataset == RELEASE_SUBSET:
            return _not_run(DATASETS[RELEASE_SUBSET])
        return _not_run(_unconfigured("dataset", row.dataset, "novbench.datasets"))
    if row.model != HUMAN and (missing := _unconfigured_cell(row, dataset, grid)):
        return _not_run(missing)
    table = tables[dataset["name"]]
    found = table[
        (table["model"] == row.model)
        & (table["strategy"] == row.strategy)
        & (table["perturbation"] == row.perturbation)
    ]
    if found.empty:
        return _not_run(f"no row in {dataset['name']}/table.csv (cell left out; see the run's log)")
    if row.metric not in found:
        return _not_run(f"no column '{row.metric}' in {dataset['name']}/table.csv")
    ours = found.iloc[0]
    if pd.isna(ours[row.metric]):
        return _not_run(f"no value of '{row.metric}' in {dataset['name']}/table.csv")
    run = novbench_conditions(
        row, basis["run"]["novbench"], table, ours, digests.get(dataset["name"])
    )
    paper = novbench_paper(row, basis["paper"]["novbench"])
    key = (dataset["name"], row.model, row.strategy, row.perturbation)
    if key in (requests or {}):
        run["requests"], paper["requests"] = requests[key]["ours"], requests[key]["paper"]
    value, tolerance = float(ours[row.metric]), TOLERANCES[row.metric]
    return judged(row, value, tolerance, run, paper, basis["limits"], (row.note,))


def _unconfigured_cell(row, dataset: dict, grid: dict) -> str | None:
    """Why a published NovBench cell's model, strategy or perturbation is not run (None: all
    configured)."""
    for kind, value, known, key in [
        ("model", row.model, dataset["models"], "models"),
        ("strategy", row.strategy, grid["strategies"], "strategies"),
        ("perturbation", row.perturbation, grid["perturbations"], "perturbations"),
    ]:
        if value not in known:
            return _unconfigured(kind, value, f"novbench.{key}")
    return None


def paper_table_row(
    row,
    grid: dict,
    tables: dict[str, pd.DataFrame],
    paper_tables: dict[tuple[str, str], pd.DataFrame],
    basis: dict,
    digests: dict[str, str],
    requests: dict[tuple, dict] | None = None,
) -> dict:
    """Our value of one published number of Tables 6–8 or of the human agreement, from the
    appendix tables (``paper_tables``: (dataset, file name) → table), or why there is none. Its
    conditions are the cell's (:func:`novbench_conditions`) with the annotation file's SHA-256
    and where the paper-type labels come from; Table 8's papers without an output of the cell
    count as its empty answers."""
    subset, _, part = row.subset.partition("=")
    file, key = PAPER_TABLES[subset]
    if subset == "human_agreement":  # computed from the annotators' sheets alone
        return _human_agreement(row, paper_tables, file, basis["limits"])
    dataset = grid["datasets"].get(row.dataset)
    if dataset is None:
        return _not_run(_unconfigured("dataset", row.dataset, "novbench.datasets"))
    if missing := _unconfigured_cell(row, dataset, grid):
        return _not_run(missing)
    name = dataset["name"]
    table = paper_tables.get((name, file))
    if table is None:
        return _not_run(f"novbench.datasets.{name}.{key} is not declared")
    found = table[
        (table["model"] == row.model)
        & (table["strategy"] == row.strategy)
        & (table["perturbation"] == row.perturbation)
    ]
    if subset == "paper_type":
        found, column = found[found["paper_type"] == part], row.metric
    else:
        column = part
    if found.empty:
        return _not_run(f"no row in {name}/{file} (cell left out; see the run's log)")
    ours = found.iloc[0]
    settings, paper_settings = basis["run"]["novbench"], basis["paper"]["novbench"]
    cell_table = tables.get(name, pd.DataFrame(columns=["model"]))
    run = novbench_conditions(row, settings, cell_table, ours, digests.get(name))
    paper = novbench_paper(row, paper_settings)
    cell = (name, row.model, row.strategy, row.perturbation)
    if cell in (requests or {}):
        run["requests"], paper["requests"] = requests[cell]["ours"], requests[cell]["paper"]
    unknown = {"source": None, "sha256": None}
    declared = settings.get("annotations", {}).get(name, {}).get(key, unknown)
    run[key] = {"source": declared["source"], "sha256": ours.get(ANNOTATIONS_DIGEST)}
    paper[key] = paper_settings.get("annotations", {}).get(row.dataset, {}).get(key, unknown)
    notes = [row.note]
    if subset == "reviewer_confidence":
        run["scorer"] = ours["encoder"]  # the authors embed with their Coverage encoder
        paper["scorer"] = paper_settings["scoring"]["coverage_encoder"]
        run["empty_share"] = float(ours["n_missing"]) / float(ours["n_papers"])
        if ours["n_missing"]:
            notes.append(
                f"{ours['n_missing']} of the {ours['n_papers']} papers of the confidence file "
                f"have no output of this cell (counted with the empty text, as the authors did)"
            )
    tolerance = PAPER_TABLE_TOLERANCES.get(row.metric) or TOLERANCES[row.metric]
    return judged(row, float(ours[column]), tolerance, run, paper, basis["limits"], tuple(notes))


def _human_agreement(
    row, paper_tables: dict[tuple[str, str], pd.DataFrame], file: str, limits: dict
) -> dict:
    """A human-agreement number from the dataset that declares the annotators' sheets (they
    alone make the table): not comparable with fewer annotators than the paper's four."""
    declared = sorted(dataset for dataset, name in paper_tables if name == file)
    if not declared:
        return _not_run("no compared dataset declares human_eval (novbench.datasets.<name>)")
    where = f"{declared[0]}/{file}"
    table = paper_tables[(declared[0], file)]
    metric = "-" if row.metric == "fleiss_kappa" else HUMAN_AGREEMENT_METRIC
    found = table[(table["statistic"] == row.metric) & (table["metric"] == metric)]
    if found.empty:
        return _not_run(f"no {row.metric} of metric '{metric}' in {where}")
    ours = found.iloc[0]
    annotators = int(ours["n_annotators"])
    notes = [where]
    if row.metric != "fleiss_kappa":
        notes.append(
            f"majority of {annotators} ({ours['n_ties']} ties dropped); the metric preference "
            f"is the mean of the four metrics (Relevance as (Rel - 1) / 4), the paper's "
            f"combination is not in the released code"
        )
    return judged(
        row,
        float(ours["value"]),
        PAPER_TABLE_TOLERANCES[row.metric],
        {"annotators": annotators},
        {"annotators": PUBLISHED_ANNOTATORS},
        limits,
        tuple(notes),
    )


def selects(pattern: str, name: str) -> bool:
    """Whether a published row's setup, change or model (``*`` and ``|`` alternatives, as in
    ``P3|P4|P5``) names ``name``."""
    return any(fnmatch.fnmatchcase(name, part) for part in pattern.split("|"))


def expert_counts(path: str) -> dict[str, int]:
    """The expert study's judge errors (the judge's verdict differs from the gold) and controls
    (it agrees) in the release's ``judge_errors.csv``."""
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    wrong = table["predicted"] != table["gold"]
    return {"errors": int(wrong.sum()), "controls": int((~wrong).sum())}


def _aggregate(row, values: pd.Series) -> tuple[float, str]:
    """One value from the run's cells a published row names, and the note saying how."""
    if row.statistic in ("", "at_least"):
        if len(values) > 1:
            raise ValueError(f"published/judges.csv: '{row.cell}' names {len(values)} cells")
        return float(values.iloc[0]), ""
    pick = {"min": values.min, "max": values.max, "max_abs": values.abs().max}[row.statistic]
    return float(pick()), f"{row.statistic} over {len(values)} cells"


def judges_conditions(row, settings: dict, found: pd.DataFrame | None) -> dict:
    """What one judge-study number was produced under: prompts, request settings, each judge's
    wire, the dataset (release commit, blocklist), calls and aggregation of the cells' changes,
    the models they substitute for and the share of failed calls (metrics.csv)."""
    out = {"dataset": settings["datasets"].get(row.dataset)}
    if found is None:  # a count in a release file
        return out
    models, changes = sorted(set(found["model"])), sorted(set(found["change"]))
    calls = settings["calls"]
    out |= {
        "prompts": settings["prompts"],
        "requests": settings["requests"],
        "model": {model: settings["models"].get(model) for model in models},
        "calls": {
            change: calls_of(split_change(change)[0], calls["calls"], calls["calls_by_change"])
            for change in changes
        },
        "aggregation": settings["aggregation"],
    }
    if any(split_change(change)[0] == "retrieval" for change in changes):
        out["retrieval"] = settings.get("retrieval")
    if "ai_scientist" in changes:
        out["ai_scientist"] = settings.get("ai_scientist")
    if "novelty_checker" in changes:
        out["novelty_checker"] = settings.get("novelty_checker")
    return out


def recorded(found: pd.DataFrame) -> dict:
    """What the run's metrics recorded of its cells: substitutions and failed calls."""
    out = {}
    if "substitutes_for" in found:
        named = sorted({str(m) for m in found["substitutes_for"] if pd.notna(m) and m})
        out["substitutes_for"] = ", ".join(named) or "none"
    if {"n_failed_calls", "n_calls"} <= set(found) and found["n_calls"].sum():
        out["failed_share"] = float(found["n_failed_calls"].sum() / found["n_calls"].sum())
    return out


def judges_row(
    row,
    grid: dict,
    metrics: dict[tuple[str, str], pd.DataFrame],
    expert: dict[str, dict[str, int]],
    basis: dict,
) -> dict:
    """Our value of one published judge-study number, or why there is none."""
    run, paper = basis["run"]["judges"], basis["paper"]["judges"]
    if row.not_run_reason:  # the paper grid runs no such cell (published/judges.csv says why)
        return _not_run(row.not_run_reason)
    if row.metric in RELEASE_FACTS:
        if row.dataset not in expert:
            return _not_run(f"the run read no {EXPERT_FILE} of dataset '{row.dataset}'")
        return judged(
            row,
            expert[row.dataset][row.metric],
            TOLERANCES[row.unit],
            judges_conditions(row, run, None),
            judges_conditions(row, paper, None),
            basis["limits"],
            (row.note,),
        )
    if not all(any(selects(part, c) for c in CHANGES) for part in row.change.split("|")):
        return _not_run(f"'{row.change}' is another system, not a change of this pipeline")
    if row.dataset not in grid["datasets"]:
        return _not_run(_unconfigured("dataset", row.dataset, "judges.datasets"))
    not_runnable = grid.get("not_runnable", {})
    skipped = [m for m in not_runnable if row.model and selects(row.model, m)]
    runnable = [m for m in grid["models"] if m not in not_runnable]
    if skipped and not any(selects(row.model, m) for m in runnable):
        model = skipped[0]
        return _not_run(
            f"{model}: {not_runnable[model]}; its cells are skipped "
            f"(judges.substitutions: {{{model}: <successor>}} runs another model in its place)"
        )
    if row.model and not any(selects(row.model, m) for m in grid["models"]):
        return _not_run(_unconfigured("model", row.model, "judges.models"))
    if not any(selects(row.change, c) for c in grid["changes"]):
        key = "judges.idea_formats" if split_change(row.change)[1] != STANDARD else "judges.changes"
        return _not_run(_unconfigured("change", row.change, key))
    if row.versus:
        return _not_run(
            f"the run's flip rates are against each judge's reference; this one is against "
            f"{row.versus}"
        )
    table = metrics.get((row.dataset, row.format))
    if table is None:
        return _not_run(f"no {row.format} instances in dataset '{row.dataset}'")
    where = f"{row.dataset}/{row.format}/metrics.csv"
    found = table[
        table["setup"].map(lambda setup: selects(row.setup, setup))
        & table["change"].map(lambda change: selects(row.change, change))
        & table["model"].map(lambda model: not row.model or selects(row.model, model))
    ]
    if found.empty:
        return _not_run(f"no row for setup '{row.setup}', change '{row.change}' in {where}")
    column = SIZES.get(row.metric, row.metric)
    if column not in found:
        return _not_run(f"no column '{column}' in {where}")
    scale = 100 if row.unit == "percent" else 1
    if row.metric in SIZES:  # every judge of a setup scores the same instances
        counts = sorted(found[column].astype(int).unique())
        ours, how = float(counts[-1]), "" if len(counts) == 1 else f"judges scored {counts}"
    else:
        ours, how = _aggregate(row, found[column].astype(float) * scale)
    tolerance = COST_TOLERANCE * row.paper_value if row.unit == "usd" else TOLERANCES[row.unit]
    notes = [row.note, how]
    if row.significant and row.metric != QUALITY[row.format]:
        notes.append(
            f"significant: paper {row.significant}; the run's bootstrap tests "
            f"{QUALITY[row.format]}, not {row.metric}"
        )
    elif row.significant and "significant" in found:
        ours_mark = {True: "yes", False: "no"}[bool(found["significant"].iloc[0])]
        agree = "agrees" if ours_mark == row.significant else "differs"
        notes.append(f"significant: paper {row.significant}, ours {ours_mark} ({agree})")
    return judged(
        row,
        ours,
        tolerance,
        judges_conditions(row, run, found) | recorded(found),
        judges_conditions(row, paper, found) | {"substitutes_for": "none"},
        basis["limits"],
        tuple(notes),
    )


def rows(
    grid: dict,
    tables: dict,
    metrics: dict,
    basis: dict,
    expert: dict | None = None,
    digests: dict[str, str] | None = None,
    requests: dict[tuple, dict] | None = None,
    paper_tables: dict[tuple[str, str], pd.DataFrame] | None = None,
    extraction: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One report row per published number of both studies. ``basis``: the run's and the
    paper's conditions (:func:`conditions`, :func:`paper_conditions`) and the share limits
    (config ``reproduction``); ``expert``: the expert-study counts per judge dataset
    (:func:`expert_counts`); ``digests``: the SHA-256 of each NovBench dataset's release file;
    ``requests``: the digests of each cell's requests (:func:`cell_requests`); ``paper_tables``:
    NovBench's appendix tables (:func:`paper_table_row`); ``extraction``: the extraction
    validation's scores (:func:`extraction_row`)."""
    out = []
    for row in published("novbench").itertuples(index=False):
        if row.subset.partition("=")[0] in PAPER_TABLES:
            ours = paper_table_row(
                row, grid["novbench"], tables, paper_tables or {}, basis, digests or {}, requests
            )
        else:
            ours = novbench_row(row, grid["novbench"], tables, basis, digests or {}, requests)
        out.append(_base(row) | ours)
    for row in published("extraction").itertuples(index=False):
        out.append(_base(row) | extraction_row(row, extraction, basis["limits"]))
    for row in published("judges").itertuples(index=False):
        out.append(_base(row) | judges_row(row, grid["judges"], metrics, expert or {}, basis))
    return pd.DataFrame(out, columns=COLUMNS)


def extraction_row(row, scores: pd.DataFrame | None, limits: dict) -> dict:
    """Our accuracy or macro-F1 of an extraction prompt (Appendices A and B): the paper's model
    where the validation ran it, else the first model that ran the prompt, not comparable then.
    Conditions: the model, the labelled sentences scored, the token cap (the authors set none)
    and the share of failed calls."""
    if scores is None:
        return _not_run("no extraction validation (construction.novbench.validation.models)")
    ran = scores[(scores["step"] == row.step) & (scores["prompt"] == row.prompt)]
    if ran.empty:
        return _not_run(f"the extraction validation ran no {row.prompt} prompt")
    mine = ran[ran["model"] == row.model]
    found = (mine if len(mine) else ran).iloc[0]
    cap = found["max_tokens"]
    ours = {
        "model": found["model"],
        "sentences": int(found["sentences"]),
        "max_tokens": "none" if pd.isna(cap) else int(cap),
        "failed_share": found["unanswered"] / found["sentences"],
    }
    paper = {"model": row.model, "sentences": int(row.sentences), "max_tokens": "none"}
    return judged(row, float(found[row.metric]), TOLERANCES["fraction"], ours, paper, limits)


def _base(row) -> dict:
    return {
        c: getattr(row, c)
        for c in ("study", "table", "cell", "metric", "paper_value", "source_kind")
    }


def summary(report: pd.DataFrame, largest: int = 5) -> str:
    """Per table, how many numbers match, are within, outside, not comparable or not run, and
    the ``largest`` differences (in tolerances; a count's in units) with their reasons."""
    counts = (
        report.groupby(["study", "table", "verdict"], sort=False)
        .size()
        .unstack(fill_value=0)
        .reindex(columns=VERDICTS, fill_value=0)
        .reset_index()
    )
    valued = report[report["our_value"].notna()].copy()
    scale = valued["tolerance"].where(valued["tolerance"] > 0, 1.0)
    valued["in_tolerances"] = valued["difference"].abs() / scale
    top = valued.sort_values("in_tolerances", ascending=False).head(largest)
    shown = top[["study", "table", "cell", "metric", "paper_value", "our_value", "difference"]]
    shown = shown.assign(verdict=top["verdict"], reason=top["reason"]).round(4)
    return "\n\n".join(
        [
            "## Summary",
            counts.to_markdown(index=False),
            f"Largest differences (|ours − paper| in tolerances), top {largest}:",
            shown.to_markdown(index=False) if len(shown) else "None.",
        ]
    )


def markdown(report: pd.DataFrame, uncertainty_sections: dict[str, str]) -> str:
    """The summary, the compared numbers, reasons of the rest, uncertainty."""
    compared = report[report["verdict"] != "not run"].drop(columns="conditions")
    skipped = report[report["verdict"] == "not run"].groupby(["study", "reason"]).size()
    parts = [
        "# Reproduction report",
        summary(report),
        "Every published number of NovBench (Tables 2–8 and the human agreement of Section 4.3) "
        "and of the judge study (figure values) beside ours (report.csv holds every row, with the "
        "conditions each of ours was produced under). match: equal at the paper's printed "
        "decimals; within: |ours − paper| ≤ tolerance (NovBench: Relevance 0.05, Coverage 0.01, "
        "Clarity 0.01, DistAcc 0.02, KC and LS 0.005, similarity 0.02, Table 8's Diff 0.005, "
        "Fleiss' kappa 0.05, agreement 0.02, Spearman's rho 0.05; judge study: 2 percentage "
        "points, 0.02 for a fraction, 10% of a cost, a count exactly; a bound such as 'more than "
        "two thirds' matches when ours is at least the bound); not comparable: ours was produced "
        "under other conditions than the paper's (prompts, decoding, model wire, dataset, "
        "annotation files, annotators, scorer, calls, aggregation, a substitute judge) or with "
        "too many failed or empty answers, each named in the reason. "
        "source_kind: printed in the paper, taken from an authors' file (the reason names it), "
        "or our own regression value; a paper value reconstructed from the authors' files is "
        "at best within. A judge row over several cells (every judge, P3|P4|P5) compares the "
        "min, max or largest |value| of the run's cells; a published significance mark is set "
        "beside ours in the reason.",
        "## Compared numbers",
        compared.round(4).to_markdown(index=False) if len(compared) else "None.",
        "## Not run, by reason",
        skipped.rename("rows").reset_index().to_markdown(index=False) if len(skipped) else "None.",
    ]
    for dataset, text in uncertainty_sections.items():
        parts += [f"## NovBench uncertainty on {dataset} (beyond both papers)", text]
    return "\n\n".join(parts) + "\n"


def with_commits(basis: dict, manifests: list[str]) -> dict:
    """``basis`` with the hub commit of each NovBench model's weights (rule weights' manifests)
    among the run's conditions."""
    commits = {}
    for manifest in manifests:
        record = json.loads(Path(manifest).read_text())
        commits[record["model"]] = record["revision"]
    run = {**basis["run"], "novbench": {**basis["run"]["novbench"], "weights": commits}}
    return {**basis, "run": run}


def write(
    paths: dict[str, list[str]],
    grid: dict,
    basis: dict,
    csv_path: str,
    markdown_path: str,
    summary_path: str,
    cells: list[dict] = (),
    registry: str | None = None,
    upstream_root: str | None = None,
) -> None:
    """Read the configured outputs (``paths``: :func:`inputs`' lists; paths name their dataset
    and format; an expert-study file its dataset, as
    ``{downloads}/{dataset}/expert-annotations/judge_errors.csv``; an appendix table its dataset,
    as ``novbench/{dataset}/paper_type.csv``; the release files in the order of the grid's
    NovBench datasets) and write the report and its summary. ``cells``:
    :func:`cells`; ``registry`` and ``upstream_root``: the project's registry and the fetched
    authors' scripts, for the paper mode's requests of each cell."""
    from noveval.novbench import uncertainty  # scipy: here, not when the Snakefile imports this

    tables = {Path(p).parent.name: pd.read_csv(p) for p in paths["tables"]}
    metrics = {
        (Path(p).parent.parent.name, Path(p).parent.name): pd.read_csv(p) for p in paths["metrics"]
    }
    expert = {Path(p).parent.parent.name: expert_counts(p) for p in paths["expert"]}
    names = [d["name"] for d in grid["novbench"]["datasets"].values()]
    digests = {name: release_digest(p) for name, p in zip(names, paths["releases"], strict=True)}
    scores = {}
    for path in paths["scores"]:
        scores.setdefault(Path(path).parent.parent.name, []).append(path)
    requests = cell_requests(list(cells), basis, registry, upstream_root)
    basis = with_commits(basis, paths.get("weights", []))
    paper_tables = {
        (Path(p).parent.name, Path(p).name): pd.read_csv(p) for p in paths["paper_tables"]
    }
    extraction = pd.read_csv(paths["extraction"][0]) if paths.get("extraction") else None
    report = rows(grid, tables, metrics, basis, expert, digests, requests, paper_tables, extraction)
    sections = {d: uncertainty.markdown(read_tables(paths)) for d, paths in scores.items()}
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    report.to_csv(csv_path, index=False)
    Path(markdown_path).write_text(markdown(report, sections))
    Path(summary_path).write_text(f"# Reproduction summary\n\n{summary(report)}\n")
    log.info("%s", report["verdict"].value_counts().to_dict())
