"""Stage novbench_inputs: the inputs of the 'none' and 'del' perturbations."""

from __future__ import annotations

from noveval.novbench import perturbation, records


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


def run(job) -> None:
    """One job of rule novbench_inputs."""
    perturbed_inputs(
        job.input[0],
        job.wildcards.perturbation,
        job.output[0],
        keep_fraction=job.params.keep_fraction,
        seed=job.params.seed,
    )
