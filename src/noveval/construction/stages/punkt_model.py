"""Stage construction_punkt_model: NLTK's English Punkt model (punkt_tab) at its pinned digest."""

from __future__ import annotations

from noveval.construction.sentences import download_punkt_model


def run(job) -> None:
    """One job of rule construction_punkt_model."""
    download_punkt_model(job.output[0])
