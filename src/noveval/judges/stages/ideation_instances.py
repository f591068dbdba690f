"""Stage judges_ideation_instances: a stronger generator's ideas against a weaker one's."""

from __future__ import annotations

from noveval.inference.batches import read_responses
from noveval.judges import generation, instances
from noveval.judges.grid.cells import ideation_setup_name


def ideation_instances(
    pairs_path: str,
    stronger: tuple[str, str],
    weaker: tuple[str, str],
    responses_cell: str,
    instances_path: str,
) -> None:
    """Pairwise instances of a stronger vs a weaker generator ((model, responses path) each;
    ``responses_cell``: the generation cell of both)."""
    model, responses = stronger
    other, other_responses = weaker
    table = generation.ideation_setup(
        instances.read_instances(pairs_path),
        (model, read_responses(responses, responses_cell)),
        (other, read_responses(other_responses, responses_cell)),
        ideation_setup_name(model, other),
    )
    instances.write_instances(table, instances_path)


def run(job) -> None:
    """One job of rule judges_ideation_instances."""
    ideation_instances(
        job.input.pairs,
        (job.wildcards.stronger, job.input.stronger),
        (job.wildcards.weaker, job.input.weaker),
        job.params.responses_cell,
        job.output[0],
    )
