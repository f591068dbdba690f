"""The judge loader on the shipped sample and on the authors' real release files."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from conftest import REPO, SHARED_DATA, shared_file, write_yaml

from noveval.judges import release
from noveval.judges.authors import apply_blocklist
from noveval.judges.instances import load_release, read_instances, release_files, write_instances

SAMPLE = REPO / "data" / "sample" / "judges"


@pytest.mark.parametrize(
    ("setup", "format", "count"),
    [
        ("human-only", "pairwise", 10),
        ("human-plus-generated", "pairwise", 13),
        ("human-only", "pointwise", 21),
        ("human-plus-generated", "pointwise", 26),
    ],
)
def test_real_release_samples_load_completely(setup, format, count):
    path = shared_file("novelty-eval", setup, f"{format}.yaml")
    frame = load_release(path, setup, format)
    assert len(frame) == count and frame["instance_id"].is_unique
    assert (frame["setup"] == setup).all() and (frame["format"] == format).all()
    assert frame["ideas"].map(len).eq(2 if format == "pairwise" else 1).all()
    assert frame["ideas"].map(lambda ideas: all(len(i) > 100 for i in ideas)).all()
    assert set(frame["label"]) == {0, 1}
    sources = {s for row in frame["sources"] for s in row}
    negative = "generated" if setup == "human-plus-generated" else "human-negative"
    assert sources == {"human-positive", negative}
    if format == "pairwise":  # the expected winner is always the human-positive idea
        winners = [s[label] for s, label in zip(frame["sources"], frame["label"])]
        assert set(winners) == {"human-positive"}
    else:
        assert (frame["label"] == frame["sources"].map(lambda s: s[0] == "human-positive")).all()


def test_real_release_folder_is_discovered():
    shared_file("novelty-eval", "human-only", "pairwise.yaml")
    files = release_files(SHARED_DATA / "novelty-eval")
    assert {"human-only", "human-plus-generated"} <= set(files)
    assert set(files["human-only"]) >= {"pairwise", "pointwise"}


def test_shipped_sample_has_both_setups_formats_and_several_areas(tmp_path):
    files = release_files(SAMPLE)
    assert set(files) == {"human-only", "human-plus-generated"}
    for setup, kinds in files.items():
        pairs = load_release(kinds["pairwise"], setup, "pairwise")
        ideas = load_release(kinds["pointwise"], setup, "pointwise")
        assert len(pairs) == 8 and pairs["area"].nunique() >= 4
        assert set(pairs["label"]) == {0, 1}  # the novel idea is shown first and second
        assert len(ideas) == 16 and ideas["label"].sum() == 8
        write_instances(pairs, tmp_path / f"{setup}.parquet")
        back = read_instances(tmp_path / f"{setup}.parquet")
        assert back.equals(pairs)


def test_malformed_release_names_the_instance(tmp_path):
    bad = tmp_path / "pairwise.yaml"
    bad.write_text("7: {context: a, expected_winners: [2], ideas: {0: x, 1: y}}\n")
    message = r"pairwise.yaml: 1 of 1 instances are bad:\n  instance 7: expected_winners"
    with pytest.raises(ValueError, match=message):
        load_release(bad, "s", "pairwise")


BLOCKED = {"a blocked paper"}


def _table(format: str, rows: dict) -> pd.DataFrame:
    """Instances ``{key: (ideas, titles)}`` of one format, all in area 'a'."""
    return pd.DataFrame(
        {
            "instance_id": list(rows),
            "format": format,
            "area": "a",
            "ideas": [list(ideas) for ideas, _ in rows.values()],
            "titles": [list(titles) for _, titles in rows.values()],
        }
    )


def test_blocked_partners_are_found_by_text_where_key_arithmetic_misses():
    """Pointwise keys that do not follow the pairs (pair n's ideas at 2n and 2n+1): the blocked
    idea sits at key 1, whose arithmetic partner (key 0) belongs to pair 1; its real partner,
    the same text as in pair 0, sits at key 2. Key 3 repeats the partner's title in another
    wording and stays."""
    pairs = _table(
        "pairwise",
        {"0": (["Blocked text.", " Partner text. "], ["A Blocked Paper", "Partner"]),
         "1": (["Third text.", "Fourth text."], ["Third", "Fourth"])},
    )  # fmt: skip
    points = _table(
        "pointwise",
        {"0": (["Third text."], ["Third"]), "1": (["Blocked text."], ["A Blocked Paper"]),
         "2": (["Partner text."], ["Partner"]), "3": (["Fourth text."], ["Fourth"]),
         "4": (["Partner, reworded."], ["Partner"])},
    )  # fmt: skip
    kept = apply_blocklist(points, BLOCKED, pairs)["instance_id"].tolist()
    assert kept == ["0", "3", "4"]
    assert apply_blocklist(pairs, BLOCKED)["instance_id"].tolist() == ["1"]
    # without a pairwise source only the blocked idea itself goes
    assert apply_blocklist(points, BLOCKED)["instance_id"].tolist() == ["0", "2", "3", "4"]


def test_a_rewritten_partner_is_found_as_the_blocked_ideas_neighbour():
    """Plan-form texts match no pair's text: the partner is the key next to the blocked idea
    with the partner's title and area (key 5); the same title two keys away (8) stays."""
    pairs = _table("pairwise", {"9": (["x", "y"], ["Partner", "A blocked paper"])})
    points = _table(
        "pointwise",
        {"4": (["Purpose: p"], ["Other"]), "5": (["Purpose: q"], ["Partner"]),
         "6": (["Purpose: r"], ["A blocked paper"]), "7": (["Purpose: s"], ["Third"]),
         "8": (["Purpose: t"], ["Partner"])},
    )  # fmt: skip
    assert apply_blocklist(points, BLOCKED, pairs)["instance_id"].tolist() == ["4", "7", "8"]


def test_a_generated_partner_goes_with_its_blocked_human_idea():
    """Generated setups key their ideas p<pair> and g<pair>: the generated partner of a blocked
    D₊ idea is found by its text."""
    pairs = _table("pairwise", {"3": (["human", "generated"], ["A blocked paper", "generated-3"])})
    points = _table(
        "pointwise",
        {"p3": (["human"], ["A blocked paper"]), "g3": (["generated"], ["generated-3"]),
         "p4": (["other"], ["Other"])},
    )  # fmt: skip
    assert apply_blocklist(points, BLOCKED, pairs)["instance_id"].tolist() == ["p4"]


def test_the_paper_declares_154_pairs_299_and_308_ideas_per_file():
    """Human-Only's pointwise files hold 299 ideas; Human+Generated's (plan form and the three
    D₋ backbones too) the two ideas of each of the 154 pairs: 308."""
    entry = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["judges"]["datasets"]
    files = release.release_files("novelty-eval", entry["novelty-eval"], "dl")
    declared = {file.path: file.instances for file in files if file.kind != "other"}
    for path, count in declared.items():
        if path.startswith("ai-only/"):
            assert count == 161
        elif "pairwise" in path:
            assert count == 154, path
        else:
            assert count == (299 if path.startswith("human-only/") else 308), path


def _served(tmp_path, pairs: int) -> release.ReleaseFile:
    """A hand-made pairwise release file of ``pairs`` pairs, declared as holding 3."""
    content = {
        key: {"context": "a", "expected_winners": [0], "ideas": {0: f"new {key}", 1: f"old {key}"}}
        for key in range(pairs)
    }
    source = write_yaml(tmp_path / "served.yaml", content)
    return release.ReleaseFile(
        path="human-plus-generated/pairwise.yaml",
        url=source.as_uri(),
        local=str(tmp_path / "dl" / "pairwise.yaml"),
        setup="human-plus-generated",
        kind="pairwise",
        chars=len(source.read_text()),
        instances=3,
    )


def test_a_downloaded_release_file_holds_its_declared_instances(tmp_path):
    file = _served(tmp_path, pairs=3)
    release.download(file, file.local)
    assert len(load_release(file.local, file.setup, "pairwise")) == 3
    short = _served(tmp_path, pairs=2)
    target = tmp_path / "short.yaml"
    message = rf"{target} \(.*\): 2 instances, but the release declares 3 for {short.path}"
    with pytest.raises(ValueError, match=message):
        release.download(short, str(target))
    assert not target.exists()
    # a file judged by no cell declares nothing and is not counted
    release.download(release.ReleaseFile(**{**short.__dict__, "instances": None}), str(target))
    assert target.exists()
