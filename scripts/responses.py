"""Rule responses: the chunks of an inference batch → the batch's responses table."""

from noveval.batches import gather_responses

gather_responses(list(snakemake.input), snakemake.output[0], snakemake.log[0])
