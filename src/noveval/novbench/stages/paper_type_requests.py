"""Stage novbench_paper_type_requests: the authors' paper-type prompt, one call per paper."""

from __future__ import annotations

from pathlib import Path

from noveval.core.upstream import UpstreamSource
from noveval.inference.requests import RequestsTarget, write_requests
from noveval.novbench import paper_type, records


def classification_requests(target: RequestsTarget, papers_path: str, script_path: str) -> None:
    """One call per paper with the authors' paper-type prompt, read from their pinned script
    (``script_path``: the fetched ``rebuttal_result/type_class.py``, digest checked)."""
    root = Path(script_path).parents[paper_type.CLASSIFIER_SCRIPT.count("/")]
    prompt = paper_type.classifier_prompt(
        UpstreamSource("novbench", root).text(paper_type.CLASSIFIER_SCRIPT)
    )
    spec = target.spec()
    papers = records.read_papers(papers_path)
    rows = paper_type.classification_requests(papers, prompt, spec, target.decoding)
    write_requests(rows, target.requests_path)


def run(job) -> None:
    """One job of rule novbench_paper_type_requests."""
    classification_requests(RequestsTarget.of_job(job), job.input.papers, job.input.script)
