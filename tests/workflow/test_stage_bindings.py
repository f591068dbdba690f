"""The stages whose run(job) is call_with_job: every parameter of their function binds to a name
its rule (workflow/rules/*.smk) gives, none falls back to its default unnoticed."""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from types import SimpleNamespace

import pytest
from conftest import REPO
from snakemake.iocontainers import InputFiles, OutputFiles, Params, Wildcards

from noveval.core.jobs import call_with_job
from noveval.workflow.stage import stage_module

RULE = re.compile(r"^(\s*)rule (\w+):\n(.*?)(?=^\s*rule \w+:|^\S|\Z)", re.MULTILINE | re.DOTALL)
FIELD = re.compile(r"^(\s*)(input|output|params):\s*$")
TARGET = "given: RequestsTarget.of_job(job)"

# rule, its variant (the rule text holding this word), its stage module's function, its
# wildcards, the inputs an unpack() adds, what run(job) passes itself
BOUND = [
    ("novbench_requests", "", "generation_requests", ["strategy"], [], ["target"]),
    ("judges_requests", "", "requests", ["change"], ["instances", "related"], ["target"]),
    ("judges_search_contribution_requests", "", "search_contribution_requests", [], [], ["target"]),
    ("judges_search_query_requests", "", "search_query_requests", [], [], ["target"]),
    ("judges_rewrite_requests", "", "rewrite_requests", [], [], ["target"]),
    ("judges_generation_requests", "", "generation_requests", [], [], ["target"]),
    ("construction_judges_requests", "", "stage_requests", ["stage"], [], ["target"]),
    (
        "construction_novbench_extraction_requests",
        "",
        "validation_requests",
        ["prompt"],
        [],
        ["target"],
    ),
    ("construction_novbench_extraction_step_requests", "", "step_requests", [], [], ["target"]),
    (
        "construction_novbench_normalisation_requests",
        "",
        "normalisation_requests",
        [],
        [],
        ["target"],
    ),
    ("construction_judges_candidates", "", "candidates", [], [], []),
    ("construction_judges_labels", "", "labels", [], [], []),
    ("judges_related", "queries=", "searched_related_work", [], [], []),
    ("judges_related", "corpus=", "related_work", [], [], []),
    (
        "judges_ai_scientist",
        "",
        "ai_scientist_check",
        [],
        [],
        ["cell", "inference", "log_path", "budget"],
    ),
    ("plan", "", "compute_plan", [], [], []),
    ("weights", "", "download", ["model"], [], []),
    ("judges_instances", "", "load_instances", ["setup", "format"], [], []),
    ("judges_generated_instances", "", "generated_instances", [], [], ["setup"]),
    ("judges_metrics", "", "metrics", ["format"], [], []),
    ("novbench_reviewer_confidence", "", "reviewer_confidence_table", [], [], []),
]


def rule_text(rule: str, variant: str) -> str:
    """The text of rule ``rule`` (the definition holding ``variant`` where it has two)."""
    texts = [
        text
        for path in sorted((REPO / "workflow" / "rules").glob("*.smk"))
        for _, name, text in RULE.findall(path.read_text())
        if name == rule and variant in text
    ]
    assert len(texts) == 1, f"rule {rule} ({variant}): {len(texts)} definitions"
    return texts[0]


def field_names(text: str) -> dict[str, list[str]]:
    """The names a rule's text gives its inputs, outputs and params."""
    names, field, indent = {"input": [], "output": [], "params": []}, None, 0
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip())
        if heading := FIELD.match(line):
            field, indent = heading.group(2), len(heading.group(1))
        elif line.strip() and depth <= indent:
            field = None
        elif field and depth == indent + 4 and (named := re.match(r"\s*(\w+)=", line)):
            names[field].append(named.group(1))
    return names


def recorded(function):
    """``function``'s signature, returning the arguments it is called with."""

    @functools.wraps(function)
    def record(**arguments):
        return arguments

    return record


@pytest.mark.parametrize(
    ("rule", "variant", "function", "wildcards", "unpacked", "given"),
    BOUND,
    ids=[f"{rule}-{function}" for rule, _, function, *_ in BOUND],
)
def test_a_call_with_job_stage_binds_every_parameter_to_its_rule(
    rule, variant, function, wildcards, unpacked, given
):
    function = getattr(importlib.import_module(stage_module(rule)), function)
    names = field_names(rule_text(rule, variant))
    job = SimpleNamespace(
        rule=rule,
        input=InputFiles(fromdict={name: f"input.{name}" for name in names["input"] + unpacked}),
        output=OutputFiles(fromdict={name: f"output.{name}" for name in names["output"]}),
        params=Params(fromdict={name: f"params.{name}" for name in names["params"]}),
        wildcards=Wildcards(fromdict={name: f"wildcards.{name}" for name in wildcards}),
    )
    arguments = call_with_job(recorded(function), job, **dict.fromkeys(given, TARGET))
    assert sorted(arguments) == sorted(inspect.signature(function).parameters)
    for name, value in arguments.items():
        field = re.sub(r"_paths?$", "", name)
        if name.endswith("_paths"):
            assert value == list(job.input[field])
        else:
            assert value == TARGET or value.endswith(f".{field}"), f"{name} = {value!r}"
