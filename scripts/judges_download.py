"""Rule judges_download: fetch one file of the judge study's declared release."""

from noveval.judges import release
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    release.download(release.ReleaseFile(**snakemake.params.file), snakemake.output[0])
