"""The steps of NovBench's appendix tables built from the authors' released annotations.

Per dataset, the config may declare (``novbench.datasets.<name>``): ``paper_types`` (the
authors' classification file, Tables 6–7, or ``{classifier: <model>}`` to label the papers with
their prompt), ``review_confidence`` (Table 8) and ``human_eval`` (one spreadsheet per
annotator, Section 4.3). A file is a local path or ``{url, sha256}`` downloaded to
``{results}/downloads/novbench/<dataset>/<kind>.json`` (where ``noveval.novbench.layout`` puts
it, and the tables).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from noveval.inference.scoring_cost import mem_mb, planned_load, runtime_minutes
from noveval.novbench.layout import NovBenchLayout
from noveval.novbench.releases import ReleaseFile

log = logging.getLogger(__name__)

FILE_KINDS = ("paper_types", "review_confidence")
ANNOTATIONS_DIGEST = "annotations_sha256"  # the column recording the annotation file's SHA-256


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
            return NovBenchLayout(results).paper_type_labels(dataset)
        return self.file(dataset, "paper_types").path

    def outputs(self, results: str, grid) -> list[str]:
        """Every appendix table the config asks for (Table 8 where the NovBench ``grid`` runs
        some model on the dataset)."""
        declared = {(d, k) for d, k in self.files if k != "review_confidence" or grid.cells_of(d)}
        declared |= {(d, "paper_types") for d in self.classifiers}
        declared |= {(d, "human_eval") for d in self.human_eval}
        layout = NovBenchLayout(results)
        return sorted(layout.appendix_table(d, k) for d, k in declared)


def paper_tables(config: dict) -> PaperTables:
    """The appendix-table declarations of the config's NovBench datasets."""
    layout = NovBenchLayout(config["results"])
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
                path=given.get("path") or layout.annotation_download(name, kind),
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
