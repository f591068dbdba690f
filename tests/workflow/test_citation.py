"""LICENSE and CITATION.cff: the citation names this version, its licence and both studies."""

from __future__ import annotations

import re
import tomllib

import yaml
from conftest import REPO


def citation() -> dict:
    return yaml.safe_load((REPO / "CITATION.cff").read_text())


def test_citation_names_the_package_version_and_licence():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    cff = citation()
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == project["version"]
    assert cff["license"] == "MIT"
    assert (REPO / "LICENSE").read_text().startswith("MIT License\n")


def test_citation_references_both_studies_as_the_specs_name_them():
    """Each reference has authors, the year and an arXiv id that its URL points at."""
    references = {ref["title"]: ref for ref in citation()["references"]}
    assert set(references) == {
        "NovBench: Evaluating Large Language Models on Academic Paper Novelty Assessment",
        "Old Ideas, Novel Problems: The Instability of LLM-Based Novelty Evaluation",
    }
    for ref in references.values():
        assert ref["authors"] and ref["year"] == 2026
        (arxiv,) = [i["value"] for i in ref["identifiers"]]
        assert re.fullmatch(r"arXiv:\d{4}\.\d{5}", arxiv)
        assert ref["url"] == f"https://arxiv.org/abs/{arxiv.removeprefix('arXiv:')}"
