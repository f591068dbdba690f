"""The ready-to-run test configs under .test/: each dry-runs with the command its header gives,
planning the jobs listed here (their real run is the embedded run's, on tinier inputs)."""

from __future__ import annotations

import re
import shlex

import pytest
from conftest import REPO, run_snakemake

pytestmark = pytest.mark.workflow

EXPECTED = {  # config -> planned jobs per rule (all of them: --forceall)
    "config-novbench": {"novbench_score": 2, "infer": 1, "novbench_table": 1, "total": 11},
    "config-novbench-card": {  # the paper's zero cell and one custom evaluator, one batch
        "novbench_requests": 1,
        "novbench_custom_requests": 1,
        "novbench_parse": 2,
        "novbench_score": 2,
        "infer": 1,
        "novbench_card": 1,
        "novbench_leaderboard": 1,
        "total": 15,
    },
    "config-judges": {"judges_requests": 6, "judges_verdicts": 6, "infer": 1, "total": 31},
    "config-judge-card": {
        "judges_custom_requests": 12,
        "judges_custom_verdicts": 12,
        "judges_card": 1,
        "judges_leaderboard": 1,
        "infer": 1,
        "total": 33,
    },
}


def header_command(name: str) -> list[str]:
    """The snakemake command a test config's header gives."""
    text = (REPO / ".test" / name / "config.yaml").read_text()
    (command,) = re.findall(r"^#\s+(snakemake .+)$", text, re.MULTILINE)
    return shlex.split(command)[1:]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_test_config_dry_runs_as_its_header_says(name, tmp_path):
    assert sorted(path.name for path in (REPO / ".test").iterdir()) == sorted(EXPECTED)
    arguments = header_command(name)
    assert f".test/{name}/config.yaml" in arguments
    planned = run_snakemake(*arguments, "-n", "--forceall", "--quiet", "rules").stdout
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", planned, re.MULTILINE))
    for rule, count in EXPECTED[name].items():
        assert int(counts[rule]) == count, (rule, counts)
