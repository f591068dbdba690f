"""Rule judges_related (judges.retrieval.search: semantic_scholar): each idea's queries searched,
the candidates selected and formatted as the authors' related-work block."""

from noveval.judges.stages import retrieval
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    retrieval.searched_related_work(
        instances_path=snakemake.input.instances,
        queries_path=snakemake.input.queries,
        responses_path=snakemake.input.responses,
        responses_cell=snakemake.params.cell,
        retrieval=snakemake.params.retrieval,
        semantic_scholar=snakemake.params.semantic_scholar,
        cache_dir=snakemake.params.cache_dir,
        related_path=snakemake.output[0],
    )
