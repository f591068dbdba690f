"""Upstream files: digests checked on every read and on every fetch."""

from __future__ import annotations

import pytest
from conftest import shared_file

from noveval.core import upstream

COPIES = {"novbench": ("novbench", "upstream"), "judges": ("novelty-eval", "upstream")}
# Upstream files the shared copy does not hold yet (the retrieval change's templates): checked
# where present.
NOT_YET_SHARED = "src/novelty_eval/retrieval/templates/"
# The labelled sentences of Appendices A and B: pinned at the authors' repository's data/, held by
# the shared copy under other names.
SHARED_LABELS = {
    "data/COLING_labeled_data.csv": "coling2020_intro_sentence_labels.gbk.csv",
    "data/novelty_data.json": "review_sentences_novelty.json",
    "data/non_novelty_data.json": "review_sentences_not_novelty.json",
}


@pytest.mark.parametrize("study", upstream.STUDIES)
def test_every_pinned_file_of_the_shared_copy_has_its_digest(study):
    source = upstream.UpstreamSource(study, shared_file(*COPIES[study]))
    for path in upstream.pinned(study):
        if path.startswith(NOT_YET_SHARED) and not (source.root / path).exists():
            continue
        if path in SHARED_LABELS:
            continue  # below
        assert source.text(path)


def test_the_pinned_labels_are_the_shared_labelled_sentences():
    import hashlib

    pins = upstream.pinned("novbench")
    for path, shared in SHARED_LABELS.items():
        content = shared_file("novbench", shared).read_bytes()
        assert hashlib.sha256(content).hexdigest() == pins[path].sha256


def test_pins_name_the_authors_commits():
    assert upstream.pin("judges", "src/novelty_eval/judge.py").url == (
        "https://raw.githubusercontent.com/noy-sternlicht/novelty-eval/"
        "7159b2853ee4c8e1a7bd6a067898455f852dfc73/src/novelty_eval/judge.py"
    )
    assert upstream.pin("novbench", "code/comment_evaluate.py").commit.startswith("c34448e")
    assert upstream.pin("novelty_checker", "noveltychecker/models/ai_scientist/prompt.py").url == (
        "https://raw.githubusercontent.com/simra-shahid/idea_novelty_checker/"
        "60a030ae3372f7a0dd93c8e96cb276cd9dfbe0ae/noveltychecker/models/ai_scientist/prompt.py"
    )


def test_fetch_from_a_copy_checks_the_digest(tmp_path):
    copy = tmp_path / "copy"
    path = "src/novelty_eval/benchmark_data/paper_blocklist.yaml"
    original = shared_file("novelty-eval", "upstream", *path.split("/")).read_bytes()
    (copy / path).parent.mkdir(parents=True)
    (copy / path).write_bytes(original)
    target = tmp_path / "fetched" / path
    upstream.fetch(upstream.pin("judges", path), target, mirror=copy)
    assert target.read_bytes() == original

    (copy / path).write_bytes(original + b"\n# edited\n")
    with pytest.raises(upstream.UpstreamError, match="paper_blocklist.yaml.*is pinned at"):
        upstream.fetch(upstream.pin("judges", path), tmp_path / "again" / path, mirror=copy)
    assert not (tmp_path / "again" / path).exists()


def test_an_unpinned_path_is_refused():
    with pytest.raises(upstream.UpstreamError, match="not an upstream file"):
        upstream.pin("judges", "src/novelty_eval/other.py")
