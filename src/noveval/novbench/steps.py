"""The NovBench stages as file-to-file functions; each Snakemake rule calls exactly one.

The modules that load torch, scipy or matplotlib are imported by the steps that use them: each
job is a fresh process, importing them takes seconds, and most jobs need none of them.
"""

from __future__ import annotations

import logging

import pandas as pd

from noveval.batches import PARAPHRASE, read_responses
from noveval.chat_requests import REQUEST_COLUMNS
from noveval.files import read_tables, write_table
from noveval.novbench import generation, perturbation, records, releases, tables
from noveval.novbench.decoding import read_generation_config
from noveval.novbench.parsing import parse_evaluation
from noveval.registry import load_registry
from noveval.weights import ran_at, use_offline

log = logging.getLogger(__name__)

CELL_COLUMNS = ["model", "strategy", "perturbation"]
HUMAN_CELL = {"model": "human", "strategy": "-", "perturbation": "-"}
PARSED_COLUMNS = [
    *CELL_COLUMNS,
    "paper_id",
    "request_id",
    "items_text",
    "items_label",
    "empty",
    "repetitive",
    "unparseable",
    "error",
]


def download_release(url: str, sha256: str | None, dataset: str, path: str) -> None:
    """Fetch a dataset's release file (checked against its SHA-256 when the config gives one)."""
    releases.download(releases.ReleaseFile(name=dataset, path=path, url=url, sha256=sha256))


def load_papers(
    release_path: str, papers_path: str, perturbation_paths: dict[str, str] | None = None
) -> None:
    """Release-format JSON → validated papers table; with the authors' perturbation releases,
    only the papers they hold."""
    papers = records.load_release(release_path)
    if perturbation_paths:
        releases = {
            kind: records.load_perturbation_release(path)
            for kind, path in perturbation_paths.items()
        }
        papers = perturbation.released_papers(papers, releases)
    log.info("%s: %d papers", release_path, len(papers))
    records.write_papers(papers, papers_path)


def perturbed_inputs(
    papers_path: str, kind: str, inputs_path: str, keep_fraction: float, seed: int
) -> None:
    """Inputs of the ``none`` and ``del`` perturbations (no model involved)."""
    papers = records.read_papers(papers_path)
    if kind == "del":
        papers = perturbation.delete_sentences(papers, keep_fraction, seed)
    elif kind != "none":
        raise ValueError(f"perturbation '{kind}' is not computed without a model")
    records.write_papers(papers, inputs_path)


def release_inputs(release_path: str, inputs_path: str) -> None:
    """Inputs of a ``change`` or ``del`` cell from the authors' released perturbed papers."""
    inputs = records.load_perturbation_release(release_path)
    records.write_papers(inputs, inputs_path)


def paraphrase_requests(
    papers_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    requests_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """Requests of the ``change`` perturbation: one paraphrase per description
    (``weights_manifests``: the open model's, whose generation config authors mode follows)."""
    spec = load_registry(registry_path).model(model)
    papers = records.read_papers(papers_path)
    rows = perturbation.paraphrase_requests(
        papers, spec, decoding, generation_config_of(weights_manifests)
    )
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def changed_inputs(papers_path: str, responses_path: str, inputs_path: str) -> None:
    """Inputs of the ``change`` perturbation from the paraphrase responses."""
    papers = records.read_papers(papers_path)
    changed = perturbation.apply_paraphrases(papers, read_responses(responses_path, PARAPHRASE))
    records.write_papers(changed, inputs_path)


def generation_requests(
    inputs_path: str,
    papers_path: str,
    strategy: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
    upstream_root: str | None = None,
    weights_manifests: list[str] = (),
    source_roots: dict[str, str] | None = None,
) -> None:
    """Chat requests of one grid cell (``settings['prompts']``: builtin or authors;
    ``weights_manifests``: the open model's, whose generation config authors mode follows)."""
    spec = load_registry(registry_path).model(model)
    generation_config = generation_config_of(weights_manifests)
    if generation_config is not None:
        log.info("%s: generation_config.json %s", model, generation_config)
    rows = generation.generation_requests(
        inputs=records.read_papers(inputs_path),
        pool=records.read_papers(papers_path),
        strategy=strategy,
        spec=spec,
        decoding=decoding,
        settings=settings,
        prompts=settings["prompts"],
        upstream_root=upstream_root,
        generation_config=generation_config,
        source_roots=source_roots,
    )
    log.info("%s/%s: %d requests", model, strategy, len(rows))
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def generation_config_of(weights_manifests: list[str]) -> dict | None:
    """The generation config of the one downloaded snapshot named (None: no manifest)."""
    if not weights_manifests:
        return None
    (manifest,) = weights_manifests
    return read_generation_config(manifest)


def parse_responses(
    responses_path: str,
    cell: dict,
    parsed_path: str,
    think_opened: bool = False,
    keep_duplicates: bool = False,
) -> None:
    """Model outputs of one cell (from its batch's responses) → items with labels and
    instruction-following flags (``think_opened``: the registry's ``think_opened_by_template``
    of the cell's model; ``keep_duplicates``: repeated items count, as in the authors' scoring)."""
    responses = read_responses(responses_path, f"{cell['strategy']}-{cell['perturbation']}")
    rows = []
    for response in responses.to_dict("records"):
        parsed = parse_evaluation(response["text"], think_opened, keep_duplicates)
        rows.append(
            {
                **cell,
                "paper_id": response["item_id"],
                "request_id": response["request_id"],
                "items_text": [text for _, text in parsed.items],
                "items_label": [label for label, _ in parsed.items],
                "empty": parsed.empty,
                "repetitive": parsed.repetitive,
                "unparseable": parsed.unparseable,
                "error": response["error"],
            }
        )
    frame = pd.DataFrame(rows, columns=PARSED_COLUMNS)
    log.info(
        "%d outputs: %d empty, %d repetitive, %d unparseable, %d failed calls",
        len(frame),
        frame["empty"].sum(),
        frame["repetitive"].sum(),
        frame["unparseable"].sum(),
        frame["error"].notna().sum(),
    )
    write_table(frame, parsed_path)


def gold_as_parsed(papers: pd.DataFrame) -> pd.DataFrame:
    """The reviewers' gold items in the parsed layout, to score the human row."""
    return pd.DataFrame(
        {
            **HUMAN_CELL,
            "paper_id": papers["paper_id"],
            "request_id": None,
            "items_text": papers["gold_texts"],
            "items_label": papers["gold_labels"],
            "empty": False,
            "repetitive": False,
            "unparseable": False,
            "error": None,
        }
    )


def score(
    papers_path: str,
    parsed_paths: list[str],
    scoring: dict,
    registry_path: str,
    scores_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """Per-paper scores of a model's cells, or of the human row when ``parsed_paths`` is empty.

    The metric models load once, and each unique sentence is embedded and scored once. The hub
    scorers load from the snapshots of ``weights_manifests`` (rule weights), with the hub off.
    """
    from noveval.novbench.scoring import NovBenchScorer

    located = use_offline(weights_manifests)
    registry = load_registry(registry_path)
    papers = records.read_papers(papers_path)
    if parsed_paths:
        parsed = read_tables(parsed_paths)
    else:
        parsed = gold_as_parsed(papers)
    references = {
        "relevance_encoder": registry.encoder(scoring["relevance_encoder"]),
        "coverage_encoder": registry.encoder(scoring["coverage_encoder"]),
        "fluency_lm": registry.language_model(scoring["fluency_lm"]),
    }
    loaded = {key: located.get(reference, reference) for key, reference in references.items()}
    log.info("scorers: %s", loaded)
    scorer = NovBenchScorer(**loaded, coverage_threshold=scoring["coverage_threshold"])
    scores = scorer.score(papers, parsed)
    scores[CELL_COLUMNS] = parsed[CELL_COLUMNS]
    for key in ("relevance_encoder", "coverage_encoder", "fluency_lm"):
        scores[key] = scoring[key]
    log.info("scored %d outputs of %d cells", len(scores), len(parsed_paths) or 1)
    write_table(scores, scores_path)


def table(
    scores_paths: list[str], csv_path: str, markdown_path: str, weights_manifests: list[str] = ()
) -> None:
    """The paper's Table 2 layout, with bootstrap intervals and tests, from the scores alone;
    its notes name the hub commit of each open model's weights (``weights_manifests``)."""
    from noveval.novbench import uncertainty

    scores = read_tables(scores_paths)
    summary = tables.summarise(scores)
    commits = {m: at for m, at in ran_at(weights_manifests).items() if m in set(summary["model"])}
    tables.write(summary, csv_path, markdown_path, uncertainty.markdown(scores), commits)


def sentiment_radar(scores_paths: list[str], png_path: str) -> None:
    """The radar of label shares from the scores tables alone."""
    from noveval.novbench import radar

    radar.plot(read_tables(scores_paths), png_path)
