"""A stage function called with a Snakemake job's fields, bound by name
(noveval.core.jobs.call_with_job)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from snakemake.iocontainers import InputFiles, OutputFiles, Params, Wildcards

from noveval.core.jobs import JobBindingError, call_with_job


def snakemake_job(rule, input=None, output=None, params=None, wildcards=None):
    """A job as the one script gets it: Snakemake's named lists of each field."""
    return SimpleNamespace(
        rule=rule,
        input=InputFiles(fromdict=input or {}),
        output=OutputFiles(fromdict=output or {}),
        params=Params(fromdict=params or {}),
        wildcards=Wildcards(fromdict=wildcards or {}),
    )


def stage(
    target: str,
    instances_path: str,
    verdicts_paths: list[str],
    requests_path: str,
    registry_path: str,
    model: str,
    settings: dict,
    related_path: str | None = None,
    upstream_root: str = "builtin",
):
    """A stage function's parameters of every kind; returns what it was called with."""
    return dict(locals())


JOB = snakemake_job(
    "judges_requests",
    input={"instances": "i.parquet", "verdicts": ["a.parquet", "b.parquet"], "settings": "x"},
    output={"requests": "r.parquet"},
    params={"registry": "models.yaml", "settings": {"max_tokens": 5}, "model": "from-params"},
    wildcards={"model": "from-wildcards", "change": "retrieval"},
)


def test_parameters_bind_to_the_rule_fields_their_names_name():
    assert call_with_job(stage, JOB, target="given") == {
        "target": "given",
        "instances_path": "i.parquet",  # input instances
        "verdicts_paths": ["a.parquet", "b.parquet"],  # list(input.verdicts)
        "requests_path": "r.parquet",  # output requests
        "registry_path": "models.yaml",  # param registry: no such input or output
        "model": "from-params",  # a param before a wildcard
        "settings": {"max_tokens": 5},  # a param, never an input of that name
        "related_path": None,  # found nowhere: its default
        "upstream_root": "builtin",
    }


def test_given_values_come_first_and_a_wildcard_binds_where_no_param_is():
    job = snakemake_job(
        "r",
        input=dict(JOB.input.items()),
        output={"requests": "r.parquet"},
        wildcards=JOB.wildcards,
    )
    called = call_with_job(
        stage, job, target="t", registry_path="given.yaml", settings={}, related_path="rel"
    )
    assert (called["model"], called["registry_path"], called["related_path"]) == (
        "from-wildcards",
        "given.yaml",
        "rel",
    )


def test_a_required_parameter_found_nowhere_names_the_rule_the_function_and_the_parameter():
    job = snakemake_job("judges_requests", input={"instances": "i.parquet"})
    with pytest.raises(JobBindingError) as raised:
        call_with_job(stage, job, target="t")
    assert str(raised.value) == (
        f"rule judges_requests: {__name__}.stage takes 'verdicts_paths', "
        "but the rule has no input named 'verdicts'"
    )

    def plain(settings, registry_path):
        return settings, registry_path

    with pytest.raises(JobBindingError) as raised:
        call_with_job(plain, snakemake_job("r", input={"registry": "m.yaml"}))
    assert str(raised.value).endswith(
        "plain takes 'settings', but the rule has no params or wildcards named 'settings'"
    )


def test_a_hand_made_job_of_namespaces_binds_alike():
    job = SimpleNamespace(
        rule="r",
        input=SimpleNamespace(instances="i.parquet", verdicts=["v.parquet"]),
        output=["r.parquet"],  # unnamed: found by no name
        params=SimpleNamespace(registry="models.yaml", settings={}),
        wildcards=SimpleNamespace(model="m"),
    )
    called = call_with_job(stage, job, target="t", requests_path="given.parquet")
    assert called == {
        **call_with_job(stage, JOB, target="t", requests_path="given.parquet", settings={}),
        "verdicts_paths": ["v.parquet"],
        "model": "m",
    }
