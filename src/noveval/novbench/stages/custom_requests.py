"""Stage novbench_custom_requests: the chat requests of one custom evaluator's cell."""

from __future__ import annotations

import logging

from noveval.core.registry import load_registry
from noveval.inference.requests import write_requests
from noveval.novbench import custom, records
from noveval.novbench.decoding import generation_config_of

log = logging.getLogger(__name__)


def cell_requests(
    inputs_path: str,
    evaluator: custom.CustomEvaluator,
    registry_path: str,
    decoding: dict,
    requests_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """One request per paper of the cell's (possibly perturbed) inputs, rendered from the
    evaluator's template, sent with the paper cells' decoding (``weights_manifests``: the open
    model's, whose generation config paper mode follows)."""
    spec = load_registry(registry_path).model(evaluator.model)
    papers = records.read_papers(inputs_path).to_dict("records")
    generation_config = generation_config_of(weights_manifests)
    rows = custom.custom_requests(evaluator, papers, spec, decoding, generation_config)
    write_requests(rows, requests_path, log, f"{evaluator.model}/{evaluator.strategy}")


def run(job) -> None:
    """One job of rule novbench_custom_requests (the template's text in its params)."""
    evaluator = custom.CustomEvaluator(
        name=custom.evaluator_of(job.wildcards.strategy),
        model=job.wildcards.model,
        template=job.params.template,
        system=job.params.system,
    )
    cell_requests(
        inputs_path=job.input.inputs,
        evaluator=evaluator,
        registry_path=job.params.registry,
        decoding=dict(job.params.decoding),
        requests_path=job.output[0],
        weights_manifests=list(job.input.weights),
    )
