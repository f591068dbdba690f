"""Stage novbench_radar: the sentiment radar from the scores tables."""

from __future__ import annotations

from noveval.core.files import read_tables


def sentiment_radar(scores_paths: list[str], png_path: str) -> None:
    """The radar of label shares from the scores tables alone."""
    from noveval.novbench import radar

    radar.plot(read_tables(scores_paths), png_path)


def run(job) -> None:
    """One job of rule novbench_radar."""
    sentiment_radar(list(job.input.scores), job.output[0])
