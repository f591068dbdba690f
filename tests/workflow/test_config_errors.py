"""An invalid config is named in a line: the key, where it is, what the schema wants."""

from __future__ import annotations

import copy

import pytest
import yaml
from conftest import REPO, run_snakemake, write_yaml

from noveval.workflow.config_schema import ConfigError, config_error, schema, validate_config

SCHEMA_PATH = REPO / "workflow" / "schemas" / "config.schema.yaml"
DEFAULT = yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def test_a_valid_config_passes_with_its_defaults_filled_in():
    config = copy.deepcopy(DEFAULT)
    validate_config(config, SCHEMA_PATH)
    assert config_error(config, schema(SCHEMA_PATH)) is None
    assert "bundle" in config  # a section the default config leaves out, from the schema


def test_a_top_level_typo_names_the_key_and_the_one_meant():
    config = copy.deepcopy(DEFAULT)
    config["inferance"] = config.pop("inference")
    with pytest.raises(ConfigError) as raised:
        validate_config(config, SCHEMA_PATH)
    message = str(raised.value)
    assert message.startswith(
        "config: unknown key 'inferance' (did you mean 'inference'?) at the top level"
    )
    assert len(message.splitlines()) == 1


def test_a_nested_error_names_its_path():
    config = copy.deepcopy(DEFAULT)
    config["inference"]["concurrency"] = 0
    assert config_error(config, schema(SCHEMA_PATH)).startswith(
        "config: inference.concurrency: 0 is less than the minimum of 1"
    )
    config = copy.deepcopy(DEFAULT)
    config["inference"]["max_retries"] = 5
    assert config_error(config, schema(SCHEMA_PATH)).startswith(
        "config: unknown key 'max_retries' (now retry_for (seconds, not a count): see "
        "CHANGELOG.md) under 'inference'"
    )
    config = copy.deepcopy(DEFAULT)
    config["judges"]["max_tokenz"] = 5
    assert config_error(config, schema(SCHEMA_PATH)).startswith(
        "config: unknown key 'max_tokenz' (did you mean 'max_tokens'?) under 'judges'"
    )


@pytest.mark.workflow
def test_snakemake_prints_the_key_within_its_first_five_lines(tmp_path):
    """Snakemake's own message puts it after the whole schema (thousands of lines)."""
    config = copy.deepcopy(DEFAULT)
    config["inferance"] = config.pop("inference")
    typo = write_yaml(tmp_path / "typo.yaml", config)
    result = run_snakemake("-n", "--configfile", str(typo), check=False)
    assert result.returncode != 0
    printed = (result.stdout + result.stderr).strip()  # Snakemake prints its errors to stdout
    first_lines = "\n".join(printed.splitlines()[:5])
    assert "unknown key 'inferance' (did you mean 'inference'?)" in first_lines, printed
    assert len(printed.splitlines()) < 30


@pytest.mark.workflow
def test_a_judges_dataset_with_a_missing_field_stops_the_run_before_any_job(tmp_path, tiny_config):
    """The dry run does not read the records; the run checks them once, in onstart."""
    sample = yaml.safe_load(
        (REPO / "data" / "sample" / "judges" / "human-plus-generated" / "pairwise.yaml").read_text()
    )
    pairs = dict(list(sample.items())[:3])
    del pairs[next(iter(pairs))]["expected_winners"]
    release = write_yaml(tmp_path / "pairwise.yaml", pairs)
    config = tiny_config(datasets={})
    overlay = write_yaml(
        tmp_path / "judges.yaml",
        {"judges": {"datasets": {"bad": {"human-plus-generated": {"pairwise": str(release)}}}}},
    )
    configs = ("--configfile", str(config), str(overlay))
    run_snakemake("-n", "--cores", "1", "judges", *configs)  # plans, reading no record
    result = run_snakemake("--cores", "1", "judges", *configs, check=False)
    printed = result.stdout + result.stderr
    assert result.returncode != 0
    assert "the judges' datasets have bad records, so no job started:" in printed
    assert f"{release}: 1 of 3 instances are bad:" in printed
    assert "instance 0: missing or malformed field 'expected_winners'" in printed
    assert not (tmp_path / "results" / "judges").exists()
