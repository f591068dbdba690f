"""The steps of NovBench's appendix tables built from the authors' released annotations.

Per dataset, the config may declare (``novbench.datasets.<name>``): ``paper_types`` (the
authors' classification file, Tables 6–7, or ``{classifier: <model>}`` to label the papers with
their prompt), ``review_confidence`` (Table 8) and ``human_eval`` (one spreadsheet per
annotator, Section 4.3). A file is a local path or ``{url, sha256}`` downloaded to
``{results}/downloads/novbench/<dataset>/<kind>.json``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from noveval.assets import file_digest
from noveval.batches import PAPER_TYPE as PAPER_TYPE_BATCH
from noveval.batches import read_responses
from noveval.chat_requests import REQUEST_COLUMNS
from noveval.files import read_tables, write_bytes, write_table
from noveval.novbench import confidence, human_agreement, paper_type, records
from noveval.novbench.releases import ReleaseFile, download
from noveval.registry import load_registry
from noveval.scoring_cost import mem_mb, planned_load, runtime_minutes
from noveval.upstream import UpstreamSource
from noveval.weights import use_offline

log = logging.getLogger(__name__)

FILE_KINDS = ("paper_types", "review_confidence")
ANNOTATIONS_DIGEST = "annotations_sha256"  # the column recording the annotation file's SHA-256
OUTPUTS = {
    "paper_types": "paper_type.csv",
    "review_confidence": "reviewer_confidence.csv",
    "human_eval": "human_agreement.csv",
}


@dataclass(frozen=True)
class PaperTables:
    """What the config declares for the appendix tables of each dataset."""

    files: dict[tuple[str, str], ReleaseFile]
    classifiers: dict[str, str]  # dataset → the model that labels its papers
    human_eval: dict[str, list[str]]

    def file(self, dataset: str, kind: str) -> ReleaseFile:
        if (dataset, kind) not in self.files:
            raise ValueError(f"novbench.datasets.{dataset}: no '{kind}' file declared")
        return self.files[(dataset, kind)]

    def labels_path(self, results: str, dataset: str) -> str:
        """The paper-type labels of a dataset: the declared file, or the classifier's."""
        if dataset in self.classifiers:
            return f"{results}/novbench/{dataset}/{PAPER_TYPE_BATCH}/labels.json"
        return self.file(dataset, "paper_types").path

    def outputs(self, results: str, grid) -> list[str]:
        """Every appendix table the config asks for (Table 8 where the NovBench ``grid`` runs
        some model on the dataset)."""
        declared = {(d, k) for d, k in self.files if k != "review_confidence" or grid.cells_of(d)}
        declared |= {(d, "paper_types") for d in self.classifiers}
        declared |= {(d, "human_eval") for d in self.human_eval}
        return sorted(f"{results}/novbench/{d}/{OUTPUTS[k]}" for d, k in declared)


def paper_tables(config: dict) -> PaperTables:
    """The appendix-table declarations of the config's NovBench datasets."""
    downloads = f"{config['results']}/downloads/novbench"
    files, classifiers, sheets = {}, {}, {}
    for name, entry in config["novbench"]["datasets"].items():
        if not isinstance(entry, dict):
            continue
        for kind in FILE_KINDS:
            given = entry.get(kind)
            if given is None:
                continue
            if isinstance(given, dict) and "classifier" in given:
                classifiers[name] = given["classifier"]
                continue
            given = {"path": given} if isinstance(given, str) else given
            release = ReleaseFile(
                name=f"{name}.{kind}",
                path=given.get("path") or f"{downloads}/{name}/{kind}.json",
                url=given.get("url"),
                sha256=given.get("sha256"),
            )
            if not release.available and not release.url:
                raise FileNotFoundError(
                    f"novbench.datasets.{name}.{kind}: no file at {release.path}"
                )
            files[(name, kind)] = release
        if entry.get("human_eval"):
            for path in entry["human_eval"]:
                if not Path(path).is_file():
                    raise FileNotFoundError(f"novbench.datasets.{name}.human_eval: no file {path}")
            sheets[name] = list(entry["human_eval"])
    return PaperTables(files, classifiers, sheets)


def human_eval_resources(config: dict) -> dict:
    """Resources of rule ``novbench_human_eval_scores``: the scoring estimate of its samples
    (two outputs each), as rule ``novbench_score``'s."""
    scoring = config["novbench"]["scoring"]

    def runtime(wildcards, input, threads) -> int:
        samples = len(pd.read_excel(input[0], usecols=["id"]))
        return runtime_minutes(planned_load(samples, 2 * samples), scoring, threads)

    return {"runtime": runtime, "mem_mb": mem_mb(scoring)}


def download_annotation(url: str, sha256: str | None, name: str, path: str) -> None:
    """Fetch a declared annotation file (checked against its SHA-256 when the config gives one)."""
    download(ReleaseFile(name=name, path=path, url=url, sha256=sha256))


def classification_requests(
    papers_path: str,
    script_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    requests_path: str,
) -> None:
    """One call per paper with the authors' paper-type prompt, read from their pinned script
    (``script_path``: the fetched ``rebuttal_result/type_class.py``, digest checked)."""
    root = Path(script_path).parents[paper_type.CLASSIFIER_SCRIPT.count("/")]
    prompt = paper_type.classifier_prompt(
        UpstreamSource("novbench", root).text(paper_type.CLASSIFIER_SCRIPT)
    )
    spec = load_registry(registry_path).model(model)
    papers = records.read_papers(papers_path)
    rows = paper_type.classification_requests(papers, prompt, spec, decoding)
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def classification_labels(responses_path: str, labels_path: str) -> None:
    """The classifier's answers in the authors' file format (``id``, ``classification``)."""
    labels = paper_type.labels_from_responses(read_responses(responses_path, PAPER_TYPE_BATCH))
    write_bytes(json.dumps(labels, ensure_ascii=False, indent=1).encode("utf-8"), labels_path)


def paper_type_table(scores_paths: list[str], labels_path: str, csv_path: str) -> None:
    """Tables 6 and 7: the dataset's scores summarised per paper type, with the labels file's
    SHA-256 (``annotations_sha256``)."""
    table = paper_type.split_table(read_tables(scores_paths), paper_type.read_labels(labels_path))
    table[ANNOTATIONS_DIGEST] = file_digest(Path(labels_path))
    table.to_csv(csv_path, index=False)
    log.info("%s", table.groupby("paper_type")["n_papers"].max().to_dict())


def reviewer_confidence_table(
    responses_paths: list[str],
    pairs_path: str,
    encoder: str,
    registry_path: str,
    csv_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """Table 8: each cell's mean similarity to the high- and low-confidence reviews, with the
    confidence file's SHA-256 (``annotations_sha256``; responses paths name their model, as
    ``.../<model>/responses/cells.parquet``). A hub encoder loads from its snapshot of
    ``weights_manifests`` (rule weights), with the hub off."""
    located = use_offline(weights_manifests)
    from noveval.encoders import SentenceEncoder

    outputs = []
    for path in responses_paths:
        responses = pd.read_parquet(path)
        strategy_perturbation = responses["cell"].str.split("-", n=1, expand=True)
        outputs.append(
            pd.DataFrame(
                {
                    "model": Path(path).parent.parent.name,
                    "strategy": strategy_perturbation[0],
                    "perturbation": strategy_perturbation[1],
                    "paper_id": responses["item_id"].astype(str),
                    "text": responses["text"].where(responses["error"].isna()),
                }
            )
        )
    texts = confidence.cell_texts(
        pd.concat(outputs, ignore_index=True), confidence.read_pairs(pairs_path)
    )
    reference = load_registry(registry_path).encoder(encoder)
    vectors = SentenceEncoder(located.get(reference, reference)).encode(
        confidence.texts_to_embed(texts)
    )
    table = confidence.similarities(texts, vectors).assign(
        encoder=encoder, **{ANNOTATIONS_DIGEST: file_digest(Path(pairs_path))}
    )
    table.to_csv(csv_path, index=False)


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


def human_agreement_table(sheet_paths: list[str], scores_path: str, csv_path: str) -> None:
    """Section 4.3: Fleiss' kappa, and each metric's agreement and Spearman's rho with the
    annotators."""
    _, choices = human_agreement.read_choices(sheet_paths)
    differences = human_agreement.metric_differences(pd.read_parquet(scores_path))
    table = human_agreement.statistics(choices, differences)
    table.to_csv(csv_path, index=False)
    log.info("\n%s", table.to_string(index=False))
