"""The judge study's construction calls in the compute plan, before any note is fetched.

The venue's size is an assumption (``construction.judges.expected``: submissions, reviews per
submission, characters of a review's Strengths and Weaknesses and of an abstract, and the pairs
and ideas the build is expected to keep; the defaults are ICLR 2026's and the authors' release
sizes). Signal calls: every review of the top and bottom ``percentile`` of the submissions;
stripped abstracts: every labelled idea; generated ideas: one per D₊ idea (one per pair). A
prompt is the authors' template (its length where it is on disk) and the stage's text.
"""

from __future__ import annotations

from pathlib import Path

from noveval.construction import judge_calls
from noveval.core.registry import Registry
from noveval.inference.workloads import PlanSettings, Workload, output_tokens_per_call

# Characters of a template not on disk yet (the authors' templates are 1,300 to 4,100).
TEMPLATE_STAND_IN_CHARS = 4000
TEMPLATES = {
    "signals": judge_calls.SIGNALS,
    "strip": judge_calls.STRIP,
    "generation": judge_calls.GENERATE,
}
AREA_CHARS = 40


def template_chars(upstream_root: str, stage: str) -> int:
    path = Path(upstream_root) / TEMPLATES[stage]
    return len(path.read_text(encoding="utf-8")) if path.is_file() else TEMPLATE_STAND_IN_CHARS


def stage_calls(settings: dict) -> dict[str, tuple[int, int]]:
    """``{stage: (calls, text characters per call)}`` from the expected venue size."""
    expected = settings["expected"]
    share = 2 * settings["labels"]["percentile"] / 100
    return {
        "signals": (
            round(expected["submissions"] * share * expected["reviews_per_submission"]),
            expected["review_chars"],
        ),
        "strip": (expected["ideas"], expected["abstract_chars"]),
        "generation": (expected["pairs"], AREA_CHARS),
    }


def construction_workloads(
    settings: dict,
    decoding: dict,
    registry: Registry,
    upstream_root: str,
    plan: PlanSettings,
) -> list[Workload]:
    """One workload per construction step (one inference job each)."""
    workloads = []
    for stage, (calls, chars) in stage_calls(settings).items():
        model = settings["models"][stage]
        spec = registry.model(model)
        max_tokens = settings["max_tokens"][stage]
        prompt = (template_chars(upstream_root, stage) + chars) / plan.chars_per_token
        workloads.append(
            Workload(
                track="construction",
                dataset=settings["name"],
                model=model,
                batch=stage,
                step=f"judges/{stage}",
                strategy="judges",
                perturbation="none",
                papers=calls,
                calls=calls,
                input_tokens=round(calls * prompt),
                output_tokens=calls * output_tokens_per_call(spec, max_tokens, plan),
                stand_in=True,
            )
        )
    return workloads


def declared_release(settings: dict, release_files: list[str]) -> dict[str, int]:
    """The built release's expected instances per file (the plan counts the judges' calls on
    them before they are built)."""
    expected = settings["expected"]
    return {
        path: expected["pairs"] if path.endswith("pairwise.yaml") else expected["ideas"]
        for path in release_files
    }
