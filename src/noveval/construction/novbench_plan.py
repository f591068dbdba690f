"""The NovBench construction's calls in the compute plan, before any paper is read.

Calls per cell are the construction's estimate (``NovBenchConstruction.cell_calls``: the NLPeer
folder's papers when it is there, else ``construction.novbench.expected.papers``; the expected
sentences per paper; the labelled counts 2,300 / 493 / 500 or ``validation.limit``). A prompt is
the authors' (its literal characters where their script is on disk, else the count at the pinned
commit) filled with the expected text. An answer is short: a label, the step prompt's two-line
summary, or a gold text as long as the authors' COLING-2020 ones; reasoning models add the plan's
``reasoning_tokens``; the pilot's measured mean replaces the assumption.
"""

from __future__ import annotations

import math
from pathlib import Path

from noveval.construction import authors
from noveval.construction.extraction import FIRST_ROUND
from noveval.construction.grid import TRACK, VALIDATION, CellCalls, NovBenchConstruction
from noveval.construction.records import INTRODUCTION, REVIEW, SENTENCE_CELLS
from noveval.core.registry import ModelSpec, Registry
from noveval.inference.batches import NORMALISATION, SENTENCES
from noveval.inference.workloads import PlanSettings, Workload

# Literal characters and placeholders of the authors' prompts at the pinned commit (the plan's
# stand-in until their scripts are downloaded).
AUTHORS_PROMPTS = {
    "direct": (639, ("sentence",)),
    "context": (913, ("context", "sentence")),
    "few_shot": (2687, ("sentence",)),
    "step_summary": (350, ("sentence",)),
    "step_decision": (358, ("main_idea", "refers_to")),
    "review": (188, ("sentence",)),
    "normalisation": (829, ("reviews",)),
}
# The authors' prompt of each construction cell (the validated prompts: extraction.FIRST_ROUND).
CELL_PROMPTS = {
    SENTENCE_CELLS[INTRODUCTION]: "context",
    SENTENCE_CELLS[REVIEW]: "review",
    NORMALISATION: "normalisation",
    "step_decision": "step_decision",
}
CONTEXT_SENTENCES = 5  # the context window: the sentence and two on each side
LABEL_TOKENS = 5  # "Yes" or "No"
STEP_SUMMARY_CHARS = 160  # "Main idea: ..." and "Refers to: ..."
GOLD_CHARS = 507  # the mean gold text of the authors' COLING-2020 release
# How the plan counts the sentence calls under each construction.novbench.calls.
CALLS_NOTE = {
    "per_occurrence": "one call per occurrence of a sentence (as the authors sent them)",
    "per_prompt": "one call per occurrence at most (a repeated prompt shares its call)",
}


def prompt_shape(upstream_root: str, name: str) -> tuple[int, tuple[str, ...]]:
    """Literal characters and placeholders of the authors' prompt ``name``."""
    script = authors.SOURCES[name].path
    if not (Path(upstream_root) / script).is_file():
        return AUTHORS_PROMPTS[name]
    template = authors.template(upstream_root, name)
    literal = sum(len(part) for part in template.parts if isinstance(part, str))
    return literal, template.placeholders


def filled_chars(placeholders: tuple[str, ...], expected: dict) -> int:
    """Characters the placeholders are filled with, from the expected sizes."""
    sizes = {
        "sentence": expected["sentence_chars"],
        "context": CONTEXT_SENTENCES * expected["sentence_chars"],
        "reviews": expected["novelty_review_chars"],
        "main_idea": STEP_SUMMARY_CHARS // 2,
        "refers_to": STEP_SUMMARY_CHARS // 2,
    }
    return sum(sizes[name] for name in placeholders)


def answer_tokens(
    prompt: str, spec: ModelSpec, max_tokens: int | None, settings: PlanSettings
) -> int:
    """New tokens of one call with ``prompt``: the pilot's measured mean, else the assumed
    answer (plus reasoning), capped at ``max_tokens`` when the construction sets one."""
    measured = settings.measured_answer(spec, TRACK)
    if measured is not None:
        wanted = math.ceil(measured)
    else:
        chars = {"normalisation": GOLD_CHARS, "step_summary": STEP_SUMMARY_CHARS}.get(prompt)
        wanted = math.ceil(chars / settings.chars_per_token) if chars else LABEL_TOKENS
        wanted += settings.reasoning_tokens if spec.reasoning else 0
    return min(max_tokens, wanted) if max_tokens else wanted


def cell_prompt(cell: CellCalls) -> str:
    """The authors' prompt a cell's calls send."""
    if cell.dataset == VALIDATION and cell.batch == SENTENCES:
        return FIRST_ROUND[cell.cell]
    return CELL_PROMPTS[cell.cell]


def novbench_construction_workloads(
    section: dict, registry: Registry, upstream_root: str, settings: PlanSettings
) -> list[Workload]:
    """One workload per cell of the construction (its batches: one inference job each)."""
    construction = NovBenchConstruction(section)
    papers, _ = construction.papers()
    max_tokens = section["decoding"]["max_tokens"]
    workloads = []
    for cell in construction.cell_calls():
        spec = registry.model(cell.model)
        prompt = cell_prompt(cell)
        literal, placeholders = prompt_shape(upstream_root, prompt)
        chars = literal + filled_chars(placeholders, section["expected"])
        per_call = math.ceil(chars / settings.chars_per_token) + 4  # chat framing
        validation = cell.dataset == VALIDATION
        workloads.append(
            Workload(
                track=TRACK,
                dataset=cell.dataset,
                model=cell.model,
                batch=cell.batch,
                step=f"{VALIDATION if validation else 'build'}/{cell.cell}",
                strategy="construction",
                perturbation="none",
                papers=cell.calls if validation else papers,
                calls=cell.calls,
                input_tokens=cell.calls * per_call,
                output_tokens=cell.calls * answer_tokens(prompt, spec, max_tokens, settings),
                stand_in=True,
            )
        )
    return workloads


def construction_note(section: dict) -> str:
    """The plan's line on the NovBench construction's assumptions."""
    construction = NovBenchConstruction(section)
    papers, counted = construction.papers()
    expected = section["expected"]
    source = (
        f"the {papers:,} paper folders of {section['nlpeer']}"
        if counted
        else f"{papers:,} papers (construction.novbench.expected.papers: {section['nlpeer']} "
        "is not there yet)"
    )
    text = (
        f"- NovBench construction (track {TRACK}, rule infer): {source}, "
        f"{expected['introduction_sentences']:g} introduction and "
        f"{expected['review_sentences']:g} review sentences each (construction.novbench."
        f"expected, assumed), {CALLS_NOTE[section['calls']]}, one normalisation call each; "
        "the authors' prompts filled with the "
        f"expected lengths. Answers: {LABEL_TOKENS} tokens a label, "
        f"{STEP_SUMMARY_CHARS} characters the step prompt's summary, {GOLD_CHARS} a gold text "
        "(the authors' COLING-2020 mean), plus reasoning_tokens for reasoning models."
    )
    if construction.validation_prompts():
        labelled = construction.labelled()
        text += (
            f" Extraction validation (Appendices A and B): {labelled['introduction']:,} "
            f"introduction sentences per prompt, {labelled['novelty']:,} + "
            f"{labelled['other']:,} review sentences, per model."
        )
    return text
