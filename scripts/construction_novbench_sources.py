"""Rule novbench_construction_sources: NLPeer papers and reviews → papers, sentences, left out."""

from noveval.construction import steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    steps.read_sources(
        snakemake.params.nlpeer,
        snakemake.params.reading,
        snakemake.input.punkt[0] if snakemake.input.punkt else None,
        snakemake.output.papers,
        snakemake.output.sentences,
        snakemake.output.skipped,
    )
