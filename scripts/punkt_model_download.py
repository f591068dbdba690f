"""Rule punkt_model: NLTK's English Punkt model (punkt_tab) at its pinned digest."""

from noveval.construction.sentences import download_punkt_model
from noveval.logs import log_to

with log_to(snakemake.log[0]):
    download_punkt_model(snakemake.output[0])
