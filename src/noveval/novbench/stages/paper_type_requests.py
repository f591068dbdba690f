"""Stage novbench_paper_type_requests: the authors' paper-type prompt, one call per paper."""

from __future__ import annotations

from pathlib import Path

from noveval.core.registry import load_registry
from noveval.core.upstream import UpstreamSource
from noveval.inference.requests import write_requests
from noveval.novbench import paper_type, records


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
    write_requests(rows, requests_path)


def run(job) -> None:
    """One job of rule novbench_paper_type_requests."""
    classification_requests(
        job.input.papers,
        job.input.script,
        job.wildcards.model,
        job.params.registry,
        job.params.decoding,
        job.output[0],
    )
