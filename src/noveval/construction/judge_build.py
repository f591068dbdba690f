"""Where the judge study's construction keeps its files, and which model makes each call.

Three steps call a model (``STAGES``): ``signals`` (the reviews' novelty signals), ``strip`` (the
abstracts without results and artefacts) and ``generation`` (the Human+Generated ideas); config
``construction.judges.models`` names each step's model and ``max_tokens`` its budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from noveval.construction.judge_release import HUMAN_ONLY, HUMAN_PLUS_GENERATED

STAGES = ("signals", "strip", "generation")
# The file each step's requests are built from.
SOURCES = {"signals": "candidates.json", "strip": "labelled.json", "generation": "labelled.json"}
SETUPS = (HUMAN_ONLY, HUMAN_PLUS_GENERATED)
FORMATS = ("pairwise", "pointwise")


@dataclass(frozen=True)
class JudgeBuild:
    """One venue's construction: its folder under ``{results}/construction/judges``."""

    settings: dict
    results: str

    @property
    def name(self) -> str:
        return self.settings["name"]

    @property
    def folder(self) -> str:
        return f"{self.results}/construction/judges/{self.name}"

    def logs(self, logs: str) -> str:
        return f"{logs}/construction/judges/{self.name}"

    @property
    def release_dir(self) -> str:
        return f"{self.folder}/release"

    @property
    def release_files(self) -> list[str]:
        return [f"{self.release_dir}/{s}/{f}.yaml" for s in SETUPS for f in FORMATS]

    def models_used(self) -> set[str]:
        """The models the construction calls (signals, stripped abstracts, generated ideas)."""
        return set(self.settings["models"].values())

    def targets(self) -> list[str]:
        """The release files and the construction summary."""
        return [*self.release_files, f"{self.folder}/summary.json"]

    stage_pattern = "|".join(STAGES)

    def model(self, stage: str) -> str:
        return self.settings["models"][stage]

    def responses(self, stage: str) -> str:
        return f"{self.folder}/{self.model(stage)}/responses/{stage}.parquet"

    def request_source(self, stage: str) -> str:
        return f"{self.folder}/{SOURCES[stage]}"

    def decoding(self, decoding: dict, stage: str) -> dict:
        """The workflow's decoding with the step's token budget."""
        return {**decoding, "max_tokens": self.settings["max_tokens"][stage]}
