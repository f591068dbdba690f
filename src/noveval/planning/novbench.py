"""The NovBench track's workloads: generations of each cell and the paraphrases of `change`."""

from __future__ import annotations

import logging
import math

from noveval.core.registry import Registry
from noveval.inference.batches import CELLS, PARAPHRASE
from noveval.inference.workloads import (
    PROMPT_ONLY,
    PlanSettings,
    Workload,
    output_tokens_per_call,
    prompt_tokens,
    text_tokens,
)
from noveval.novbench import custom, generation, perturbation, records
from noveval.novbench.releases import perturbation_releases, release_files

log = logging.getLogger(__name__)


def novbench_workloads(
    cells: list[dict],
    datasets: dict,
    paraphrase_model: str,
    novbench: dict,
    decoding: dict,
    registry: Registry,
    downloads: str,
    settings: PlanSettings,
) -> list[Workload]:
    """One workload per NovBench inference job of the grid ``cells`` (no paraphrases where the
    dataset's perturbations release has its `change` descriptions)."""
    releases = release_files(datasets, downloads)
    evaluators = custom.custom_evaluators(novbench)  # config novbench.custom
    workloads = []
    for dataset in dict.fromkeys(cell["dataset"] for cell in cells):
        release = releases[dataset]
        source = release.path if release.available else settings.sample
        papers = records.load_release(source)
        size = release.paper_count()
        scale = size / len(papers)
        log.info("%s: %d papers; prompts rendered from %s", dataset, size, source)
        mine = [cell for cell in cells if cell["dataset"] == dataset]
        rendered = {}
        for strategy, kind in dict.fromkeys((c["strategy"], c["perturbation"]) for c in mine):
            # `change` inputs are paraphrases (a model's output): the originals stand in for them
            inputs = papers
            if kind == "del":
                inputs = perturbation.delete_sentences(
                    papers, novbench["keep_fraction"], novbench["seed"]
                )
            name = custom.evaluator_of(strategy)
            if name is None:
                rows = generation.generation_requests(
                    inputs, papers, strategy, PROMPT_ONLY, decoding, novbench
                )
            else:  # a custom evaluator's cell: its own template
                records_of = inputs.to_dict("records")
                rows = custom.custom_requests(evaluators[name], records_of, PROMPT_ONLY, decoding)
            rendered[strategy, kind] = round(prompt_tokens(rows, settings) * scale)
        common = {"track": "novbench", "dataset": dataset, "papers": size}
        common["stand_in"] = not release.available
        for cell in mine:
            spec = registry.model(cell["model"])
            per_call = output_tokens_per_call(spec, decoding["max_tokens"], settings)
            workloads.append(
                Workload(
                    **common,
                    model=cell["model"],
                    batch=CELLS,
                    step="generation",
                    strategy=cell["strategy"],
                    perturbation=cell["perturbation"],
                    calls=size,
                    input_tokens=rendered[cell["strategy"], cell["perturbation"]],
                    output_tokens=size * per_call,
                )
            )
        released = "change" in perturbation_releases(datasets, downloads).get(dataset, {})
        if not released and any(cell["perturbation"] == "change" for cell in mine):
            spec = registry.model(paraphrase_model)
            rows = perturbation.paraphrase_requests(papers, spec, decoding)
            # a paraphrase is about as long as its sentence
            sentences = [s for descriptions in papers["descriptions"] for s in descriptions]
            answer = math.ceil(sum(text_tokens(s, settings) for s in sentences) / len(sentences))
            reasoning = settings.reasoning_tokens if spec.reasoning else 0
            calls = round(len(rows) * scale)
            workloads.append(
                Workload(
                    **common,
                    model=paraphrase_model,
                    batch=PARAPHRASE,
                    step="paraphrase",
                    strategy="-",
                    perturbation="change",
                    calls=calls,
                    input_tokens=round(prompt_tokens(rows, settings) * scale),
                    output_tokens=calls * min(decoding["max_tokens"], answer + reasoning),
                )
            )
    return workloads
