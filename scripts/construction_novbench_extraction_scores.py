"""Rule novbench_extraction_scores: accuracy and macro-F1 per model and validated prompt."""

from noveval.construction import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    models = snakemake.params.models
    step = dict(zip(models, snakemake.input.step)) if snakemake.input.step else {}
    steps.validation_scores(
        {
            model: {"sentences": sentences, "step": step.get(model)}
            for model, sentences in zip(models, snakemake.input.sentences, strict=True)
        },
        snakemake.params.prompts,
        snakemake.params.labels,
        snakemake.params.max_tokens,
        snakemake.output[0],
    )
