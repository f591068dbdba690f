"""Stage novbench_changed_inputs: the inputs of the 'change' perturbation."""

from __future__ import annotations

from noveval.inference.batches import PARAPHRASE, read_responses
from noveval.novbench import perturbation, records


def changed_inputs(papers_path: str, responses_path: str, inputs_path: str) -> None:
    """Inputs of the ``change`` perturbation from the paraphrase responses."""
    papers = records.read_papers(papers_path)
    changed = perturbation.apply_paraphrases(papers, read_responses(responses_path, PARAPHRASE))
    records.write_papers(changed, inputs_path)


def run(job) -> None:
    """One job of rule novbench_changed_inputs."""
    changed_inputs(job.input.papers, job.input.responses, job.output[0])
