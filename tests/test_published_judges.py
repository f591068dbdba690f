"""Every published judge-study number maps to a cell of the paper grid, or says why it cannot."""

from __future__ import annotations

import yaml
from conftest import REPO
from snakemake.utils import update_config

from noveval.judges.grid import judges_grid
from noveval.registry import load_registry
from noveval.reproduction import report


def paper_grid():
    """The judge grid of config/paper.yaml overlaid on config/config.yaml (no file, no network)."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    return judges_grid(config, load_registry(REPO / "config" / "models.yaml"))


def cells_of(row, grid) -> list:
    """The grid's cells a published row names (a row over several judges or changes names them
    with ``*`` and ``|``)."""
    return [
        cell
        for cell in grid.cells
        if cell.dataset == row.dataset
        and cell.format == row.format
        and report.selects(row.setup, cell.setup)
        and report.selects(row.change, cell.change)
        and (row.model == "" or report.selects(row.model, cell.model))
    ]


def test_every_published_judge_row_maps_to_a_paper_grid_cell_or_states_why_not():
    grid = paper_grid()
    published = report.published("judges")
    unmapped, wrongly_excused = [], []
    for row in published.itertuples(index=False):
        mapped = bool(cells_of(row, grid))
        if not mapped and not row.not_run_reason:
            unmapped.append(f"{row.table}: {row.cell}")
        if mapped and row.not_run_reason:
            wrongly_excused.append(f"{row.table}: {row.cell}")
    assert unmapped == [] and wrongly_excused == []
    retrieval = published[published["change"] == "retrieval"]
    assert len(retrieval) > 0 and retrieval["not_run_reason"].str.contains("retrieval_cache").all()


def test_the_ideation_backbone_setups_are_named_as_the_release_folders():
    grid = paper_grid()
    published = report.published("judges")
    setups = {cell.setup for cell in grid.cells}
    backbones = {s for s in published["setup"] if ".backbone-" in s}
    assert backbones == {
        "human-plus-generated.backbone-gpt-5.1",
        "human-plus-generated.backbone-gpt-5.4",
        "human-plus-generated.backbone-opus-4-5",
    }
    assert backbones <= setups
