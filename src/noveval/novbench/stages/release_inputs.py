"""Stage novbench_release_inputs: a cell's inputs from the authors' released perturbed papers."""

from __future__ import annotations

from noveval.novbench import records


def release_inputs(release_path: str, inputs_path: str) -> None:
    """Inputs of a ``change`` or ``del`` cell from the authors' released perturbed papers."""
    inputs = records.load_perturbation_release(release_path)
    records.write_papers(inputs, inputs_path)


def run(job) -> None:
    """One job of rule novbench_release_inputs."""
    release_inputs(job.input[0], job.output[0])
