"""The judges' paper mode: the authors' own prompts, verdict format and blocklist, read as data.

Everything here comes from the authors' repository at the pinned commit (``noveval.core.upstream``):
their Jinja2 templates, the criteria, pairwise tips and guardrails assigned in ``judge.py`` (read
with ``ast``, never executed), the vague criterion of ``ablations.yaml`` (P1) and the titles of
``paper_blocklist.yaml``. Requests are rendered the way ``judge.py`` renders them and answers
parsed with the semantics of their ``extract_json_choice``.
"""

from __future__ import annotations

import ast
import logging
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import jinja2
import pandas as pd

from noveval.core.answers import extract_json
from noveval.core.upstream import UpstreamSource
from noveval.core.yaml_files import load_yaml

TEMPLATES = "src/novelty_eval/templates/"
JUDGE = "src/novelty_eval/judge.py"
ABLATIONS = "src/novelty_eval/ablation/ablations.yaml"
BLOCKLIST = "src/novelty_eval/benchmark_data/paper_blocklist.yaml"
# Change → (pairwise template, pointwise template), as ablations.yaml sets them.
_FULL = ("pairwise_novelty.jinja2", "pointwise_novelty.jinja2")
_NO_CRITERIA = ("pairwise_novelty_no_criteria.jinja2", "pointwise_novelty_no_criteria.jinja2")
_SHORT = {
    "P3": "ai_researcher_prompts/pairwise_ai_researcher_variation.jinja2",
    "P4": "ai_researcher_prompts/pairwise_ai_researcher_no_review.jinja2",
    "P5": "ai_researcher_prompts/pairwise_ai_researcher_comparative.jinja2",
}
TEMPLATE_FILES = sorted({*_FULL, *_NO_CRITERIA, *_SHORT.values()})
# Every upstream file the judge requests of paper mode read.
FILES = [JUDGE, ABLATIONS, *(TEMPLATES + name for name in TEMPLATE_FILES)]


def module_constant(source: str, name: str, where: str = JUDGE):
    """The literal value a module assigns to ``name``, read from its source without running it."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return ast.literal_eval(node.value)
    raise KeyError(f"{where}: no assignment to {name}")


@dataclass(frozen=True)
class AuthorsPrompts:
    """The authors' judge prompts, rendered from a folder laid out like their repository."""

    root: Path

    @cached_property
    def source(self) -> UpstreamSource:
        return UpstreamSource("judges", Path(self.root))

    @cached_property
    def constants(self) -> dict:
        judge = self.source.text(JUDGE)
        names = (
            "EVALUATION_CRITERIA",
            "EVALUATION_CRITERIA_RETRIEVAL",
            "NOVELTY_PAIRWISE_TIP",
            "NOVELTY_RETRIEVAL_PAIRWISE_TIP",
        )
        values = {name: module_constant(judge, name) for name in names}
        ablations = load_yaml(self.source.text(ABLATIONS))
        values["VAGUE_CRITERION"] = ablations["shared"]["vague_novelty_criterion"]
        return values

    @cached_property
    def environment(self) -> jinja2.Environment:
        """Jinja2 as ``judge.py`` configures it (defaults), over the pinned template files."""
        return jinja2.Environment(
            loader=jinja2.FunctionLoader(lambda name: self.source.text(TEMPLATES + name))
        )

    def criteria(self, change: str) -> tuple[dict, str]:
        """The evaluation criteria and the pairwise tip a change passes to the templates."""
        c = self.constants
        if change == "retrieval":
            return c["EVALUATION_CRITERIA_RETRIEVAL"], c["NOVELTY_RETRIEVAL_PAIRWISE_TIP"]
        if change == "P1":  # ablations.yaml: novelty_criterion_override = the vague criterion
            return {"novelty": c["VAGUE_CRITERION"]}, c["NOVELTY_PAIRWISE_TIP"]
        return c["EVALUATION_CRITERIA"], c["NOVELTY_PAIRWISE_TIP"]

    def prompt(
        self, format: str, change: str, ideas: list[str], related: list[str] | None = None
    ) -> str:
        """The one user message of a call; ``ideas`` (and ``related``) in the order shown."""
        related = related or [""] * len(ideas)
        shown = [{"text": text, "related_work": work} for text, work in zip(ideas, related)]
        criteria, tip = self.criteria(change)
        if change in _SHORT:
            if format != "pairwise":
                raise ValueError(f"prompt {change} exists only for pairwise judging")
            template = _SHORT[change]
        else:
            template = (_NO_CRITERIA if change == "P2" else _FULL)[format == "pointwise"]
        render = self.environment.get_template(template).render
        if format == "pointwise":
            return render(idea=shown[0], evaluation_criteria=criteria, cutoff_date=None)
        return render(
            idea0=shown[0],
            idea1=shown[1],
            evaluation_criteria=with_tip(criteria, tip),
            cutoff_date=None,
        )


def with_tip(criteria: dict, tip: str) -> dict:
    """The novelty criterion with the pairwise tip appended at its indent, as judge.py does."""
    criteria = dict(criteria)
    text = criteria["novelty"]
    first = next((line for line in text.splitlines() if line.strip()), "")
    indent = " " * (len(first) - len(first.lstrip()))
    criteria["novelty"] = text.rstrip() + "\n\n" + indent + tip
    return criteria


def related_text(abstracts: list[str]) -> str:
    """The related-work block of one idea: its abstracts, separated by blank lines."""
    return "\n\n".join(abstracts)


def parse_authors_verdict(text: str | None, format: str) -> int | None:
    """One answer's vote with judge.py's semantics, or ``None`` (a failed call).

    Pointwise: the majority of the answer's 0/1 integer values (an even split is 0). Pairwise:
    ``int(answer["novelty"])``, the index of the idea as shown (another integer, which they count
    as half a vote for each idea, changes no majority and counts here as no vote).
    """
    parsed = extract_json(text)
    if not isinstance(parsed, dict):
        return None
    if format == "pointwise":
        votes = [v for v in parsed.values() if isinstance(v, int) and v in (0, 1)]
        return (1 if sum(votes) > len(votes) / 2 else 0) if votes else None
    try:
        choice = int(parsed["novelty"])
    except (KeyError, TypeError, ValueError):
        return None
    return choice if choice in (0, 1) else None


def blocked_titles(root: str | Path) -> set[str]:
    """The titles of the authors' blocklist, case-folded (they match case-insensitively)."""
    listed = load_yaml(UpstreamSource("judges", Path(root)).text(BLOCKLIST))
    return {title.casefold() for title in listed["blocked_titles"]}


def apply_blocklist(
    table: pd.DataFrame, titles: set[str], pairs: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Instances without any blocked paper, nor a blocked paper's pointwise partner.

    A pair goes when either idea is blocked. A pointwise idea goes when it is blocked or when it
    is the partner of a blocked idea in ``pairs`` (the setup's pairwise instances before the
    blocklist; see ``blocked_partners``), as the authors drop whole pairs.
    """
    hit = table["titles"].map(lambda names: any(str(n).casefold() in titles for n in names))
    if table.empty or (table["format"] == "pairwise").all():
        return table[~hit].reset_index(drop=True)
    partners = blocked_partners(table, pairs, titles) if pairs is not None else set()
    return table[~(hit | table["instance_id"].isin(partners))].reset_index(drop=True)


def blocked_partners(pointwise: pd.DataFrame, pairs: pd.DataFrame, titles: set[str]) -> set[str]:
    """Keys of the pointwise ideas that are the unblocked partner of a blocked pair.

    As the authors' ``merge_ablation_runs.py`` finds them: by idea text (stripped), and, for an
    idea whose text was transformed (a plan form), by the neighbouring key (one below or above a
    blocked idea's key) whose title and area are those of the blocked idea's partner.
    """
    texts: set[str] = set()
    near: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for pair in pairs.itertuples():
        names = [str(name) for name in pair.titles]
        blocked = [name for name in names if name and name.casefold() in titles]
        if not blocked:
            continue
        partners = [
            (str(idea), name)
            for idea, name in zip(pair.ideas, names)
            if name and name.casefold() not in titles
        ]
        texts.update(idea.strip() for idea, _ in partners)
        for name in blocked:
            near.setdefault((name.casefold(), pair.area), set()).update(
                (partner, pair.area) for _, partner in partners
            )
    found = {
        row.instance_id for row in pointwise.itertuples() if str(row.ideas[0]).strip() in texts
    }
    by_key = {str(row.instance_id): row for row in pointwise.itertuples()}
    for row in pointwise.itertuples():
        wanted = near.get((str(row.titles[0]).casefold(), row.area))
        if not wanted or not str(row.instance_id).isdigit():
            continue
        for key in (str(int(row.instance_id) - 1), str(int(row.instance_id) + 1)):
            other = by_key.get(key)
            if other is not None and (str(other.titles[0]), other.area) in wanted:
                found.add(other.instance_id)
    return found


log = logging.getLogger(__name__)


def blocklisted(
    table: pd.DataFrame, upstream_root: str | None, pairs: pd.DataFrame | None = None
) -> pd.DataFrame:
    """``table`` without the authors' blocked papers and partners (``upstream_root``: their
    blocklist's folder, None keeps every instance; ``pairs``: the pairwise instances a pointwise
    table's partners are found in, by text)."""
    if not upstream_root:
        return table
    kept = apply_blocklist(table, blocked_titles(upstream_root), pairs)
    log.info("blocklist: %d of %d instances removed", len(table) - len(kept), len(table))
    return kept
