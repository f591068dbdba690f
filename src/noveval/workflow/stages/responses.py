"""Stage responses: the chunks of an inference batch → the batch's responses table."""

from __future__ import annotations

from noveval.inference.batches import gather_responses


def run(job) -> None:
    """One job of rule responses."""
    gather_responses(list(job.input), job.output[0])
