"""Rule construction_judges_notes: the venue's OpenReview notes, recorded or fetched."""

from noveval.construction import judge_steps
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    judge_steps.venue_notes(
        recorded=snakemake.input[0] if snakemake.input else None,
        venue_ids=snakemake.params.venue_ids,
        baseurl=snakemake.params.baseurl,
        notes_path=snakemake.output[0],
    )
