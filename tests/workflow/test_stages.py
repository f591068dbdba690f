"""One name per stage: a rule's name names its stage module, the one script runs it, and the
rule's code version hashes that module (so editing one stage reruns that stage only)."""

from __future__ import annotations

import ast
import re

from conftest import REPO

from noveval.core.provenance import code_version
from noveval.workflow.stage import stage_code, stage_module

PACKAGE = REPO / "src"
RULE = re.compile(r"^\s*rule (\w+):(.*?)(?=^\s*rule \w+:|\Z)", re.MULTILINE | re.DOTALL)


def rule_blocks() -> dict[str, str]:
    """Every rule's name and text (a rule defined twice, as judges_related, joins its texts)."""
    blocks: dict[str, str] = {}
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        for name, text in RULE.findall(path.read_text()):
            blocks[name] = blocks.get(name, "") + text
    return blocks


def test_the_workflow_has_one_script_and_every_script_rule_runs_its_named_stage():
    assert [path.name for path in (REPO / "workflow" / "scripts").iterdir()] == ["stage.py"]
    staged = {name: text for name, text in rule_blocks().items() if "scripts/stage.py" in text}
    assert len(staged) == 79
    for rule, text in staged.items():
        source = PACKAGE.joinpath(*stage_module(rule).split(".")).with_suffix(".py")
        assert source.is_file(), f"rule {rule}: no stage module {stage_module(rule)}"
        functions = {
            node.name for node in ast.parse(source.read_text()).body if hasattr(node, "name")
        }
        assert "run" in functions, f"{source}: no run(job)"
        named = re.findall(r'stage_code\("(\w+)"', text)
        assert set(named) <= {rule}, f"rule {rule} hashes stage {named}"


# Staged rules whose outputs carry no code version: downloads and copies checked against a pinned
# digest (or, for the venue's notes, fetched or copied as they are), and the inference rules,
# whose answers the call journal keys by request (their requests carry the code version).
UNHASHED = {
    "downloads": {
        "novbench_download",
        "novbench_annotation_download",
        "judges_download",
        "upstream_file",
        "weights",
        "construction_punkt_model",
        "construction_judges_notes",
    },
    "inference": {"infer", "pilot_infer", "construction_judges_infer"},
}


def test_every_rule_that_transforms_data_records_its_code_version():
    """A cached output says what made it: a staged rule outside the downloads and the inference
    rules without stage_code(<its name>) fails here, naming it."""
    exempt = set().union(*UNHASHED.values())
    missing = [
        rule
        for rule, text in rule_blocks().items()
        if "scripts/stage.py" in text and rule not in exempt and f'stage_code("{rule}"' not in text
    ]
    assert missing == []
    assert exempt <= set(rule_blocks())  # no stale name


def test_a_stage_module_is_named_by_its_rule():
    assert stage_module("novbench_score") == "noveval.novbench.stages.score"
    assert stage_module("judges_verdicts") == "noveval.judges.stages.verdicts"
    assert stage_module("construction_judges_labels") == "noveval.construction.stages.judges_labels"
    assert stage_module("infer") == "noveval.workflow.stages.infer"
    assert stage_module("reproduction_report") == "noveval.workflow.stages.reproduction_report"
    assert stage_module("infer_api") == "noveval.workflow.stages.infer"  # the hosted-API variant


def test_every_derived_rule_is_the_hosted_api_variant_of_a_staged_rule():
    blocks = rule_blocks()
    text = "\n".join(path.read_text() for path in (REPO / "workflow" / "rules").glob("*.smk"))
    derived = re.findall(r"^use rule (\w+) as (\w+)", text, re.MULTILINE)
    assert sorted(derived) == [("infer", "infer_api"), ("pilot_infer", "pilot_infer_api")]
    for base, variant in derived:
        assert "scripts/stage.py" in blocks[base]
        assert stage_module(variant) == stage_module(base)


def test_a_stage_code_version_is_its_own_module_and_what_it_imports():
    assert stage_code("judges_tables") == code_version("noveval.judges.stages.tables")
    assert stage_code("judges_tables") != stage_code("judges_flip_rates")


def test_a_rule_file_reads_no_global_another_rule_file_defines():
    """What several rule files read is made in the Snakefile or rules/common.smk."""
    files = {path.name: path.read_text() for path in (REPO / "workflow" / "rules").glob("*.smk")}
    crossing = []
    for home, text in files.items():
        if home == "common.smk":
            continue
        for name in re.findall(r"^([A-Z][A-Z0-9_]+)\s*=", text, re.MULTILINE):
            readers = [
                f for f, other in files.items() if f != home and re.search(rf"\b{name}\b", other)
            ]
            crossing += [f"{name} ({home} -> {', '.join(readers)})"] if readers else []
    assert crossing == []
