"""Faults injected for real: a hard-killed inference job leaves no model server; bad data files
of both tracks fail with one message naming the file and every bad record."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, run_snakemake

from noveval.judges import instances
from noveval.novbench import records

# An inference job reduced to its server: serve() the real SmolLM2 llama.cpp server, say where.
SERVING_JOB = """
import sys, time
from noveval.inference.engines.servers import serve
from noveval.core.registry import load_registry

spec = load_registry(sys.argv[1]).model("smollm2-135m")
with serve(spec, sys.argv[2], startup_timeout_s=120, threads=1) as endpoint:
    print(endpoint.base_url, flush=True)
    time.sleep(300)
"""


def processes_with(argument: str) -> list[int]:
    """Live processes (not zombies) whose command line holds ``argument`` as one word."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # the process ended while we looked
            continue
        if argument.encode() in words and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.model
@pytest.mark.parametrize("killed", ["job", "guard"])
def test_killed_job_leaves_no_model_server(tmp_path, killed):
    """``kill -9`` of the inference job, or of the guard between it and its server, ends the
    server within seconds."""
    log_path = tmp_path / "server.log"
    job = subprocess.Popen(
        [sys.executable, "-c", SERVING_JOB, str(REPO / "config" / "models.yaml"), str(log_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = job.stdout.readline().strip()
        assert base_url, f"the job did not serve: {log_path.read_text()[-2000:]}"
        port = base_url.rsplit(":", 1)[1].split("/")[0]
        serving = processes_with(port)
        guards = set(processes_with("noveval.inference.engines.guard")) & set(serving)
        assert len(serving) == 2 and len(guards) == 1, serving
        # The server keeps a session of its own: the job's terminal signals do not reach it.
        assert all(os.getsid(pid) != os.getsid(job.pid) for pid in serving)
        os.kill(job.pid if killed == "job" else guards.pop(), signal.SIGKILL)
        deadline = time.monotonic() + 15
        while processes_with(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert processes_with(port) == [], f"left behind after kill -9 of the {killed}: {serving}"
    finally:
        job.kill()
        job.wait()


# --- Bad data files: one message naming the file and every bad record ---------------------------


def novbench_record(paper_id: str, **overrides) -> dict:
    """A valid NovBench release record with fields replaced as given."""
    return {
        "id": paper_id,
        "title": "A Title",
        "abstract": "An abstract.",
        "decision": "Accept",
        "paper_novelty": ["We propose a new span alignment objective for NER."],
        "output_format": "Positive Novelty Evaluations\n- Span alignment is a new idea here.",
        **overrides,
    }


def novbench_error(path: Path) -> str:
    with pytest.raises(ValueError) as caught:
        records.load_release(path)
    return str(caught.value)


def judges_error(path: Path, format: str) -> str:
    with pytest.raises(ValueError) as caught:
        instances.load_release(path, "setup", format)
    return str(caught.value)


def test_truncated_novbench_files_name_the_file(tmp_path):
    path = tmp_path / "release.json"
    text = json.dumps([novbench_record("1"), novbench_record("2")], indent=1)
    for cut, error in [
        (30, "Unterminated string starting at: line 20 column 20 (char 461)"),  # in the gold text
        (len(text) - text.rindex("{"), "Expecting value: line 12 column 2 (char 269)"),  # at ", "
    ]:
        path.write_text(text[:-cut])
        assert novbench_error(path) == (
            f"{path}: not valid JSON ({error}), the file ends early: truncated?"
        )


def test_non_utf8_files_name_the_file_and_the_byte(tmp_path):
    release = tmp_path / "release.json"
    data = json.dumps([novbench_record("1", title="Caf\u00e9")], ensure_ascii=False)
    release.write_bytes(data.encode("latin-1"))
    assert novbench_error(release) == (
        f"{release}: not UTF-8 text (byte 26 is b'\\xe9')"  # after '[{"id": "1", "title": "Caf'
    )
    ideas = tmp_path / "pointwise.yaml"
    ideas.write_bytes("0: {idea: na\u00efve idea, label: POSITIVE}\n".encode("latin-1"))
    assert judges_error(ideas, "pointwise") == f"{ideas}: not UTF-8 text (byte 12 is b'\\xef')"


def test_yaml_errors_name_the_file_and_the_line(tmp_path):
    bad_indent = tmp_path / "pointwise.yaml"
    bad_indent.write_text("0:\n  idea: An idea.\n label: POSITIVE\n")
    assert judges_error(bad_indent, "pointwise").startswith(
        f"{bad_indent}: not valid YAML at line 3, column 2: "
    )
    truncated = tmp_path / "pairwise.yaml"
    truncated.write_text('0:\n  expected_winners: [0]\n  ideas: {0: "A first idea, 1: ')
    assert judges_error(truncated, "pairwise") == (
        f"{truncated}: not valid YAML at line 3, column 32: found unexpected end of stream"
    )


@pytest.mark.parametrize("content", ["[]", "[]\n"])
def test_empty_novbench_file_is_an_error(tmp_path, content):
    path = tmp_path / "release.json"
    path.write_text(content)
    assert novbench_error(path) == f"{path}: no records (an empty dataset)"


def test_novbench_file_with_no_usable_paper_is_an_error(tmp_path):
    path = tmp_path / "release.json"
    no_gold = "Positive Novelty Evaluations\n-"
    papers = [novbench_record("1", paper_novelty=[]), novbench_record("2", output_format=no_gold)]
    path.write_text(json.dumps(papers))
    assert novbench_error(path) == (
        f"{path}: no usable papers, none of its 2 records has both a novelty description and a "
        "gold item"
    )


@pytest.mark.parametrize("content", ["", "{}\n", "# nothing yet\n"])
def test_empty_judges_file_is_an_error(tmp_path, content):
    path = tmp_path / "pointwise.yaml"
    path.write_text(content)
    assert judges_error(path, "pointwise") == f"{path}: no instances (an empty dataset)"


def test_every_bad_novbench_record_is_listed_at_once(tmp_path):
    path = tmp_path / "release.json"
    path.write_text(
        json.dumps(
            [
                novbench_record("ok"),
                novbench_record("a", paper_novelty=None),
                novbench_record("b", paper_novelty=["We propose a new alignment.", None]),
                novbench_record("ok2"),
                novbench_record("c", paper_novelty=["We propose a new alignment.", " ", ""]),
                novbench_record("d", output_format=None),
                novbench_record("e", output_format="  \n"),
                novbench_record("ok"),
            ]
        )
    )
    assert novbench_error(path) == (
        f"{path}: 6 of 8 records are bad:\n"
        "  record 1 (id='a'): 'paper_novelty' must be a list of strings, got null\n"
        "  record 2 (id='b'): 'paper_novelty' must be a list of strings, item 1 is null\n"
        "  record 4 (id='c'): 'paper_novelty' item 1, 2 is empty\n"
        "  record 5 (id='d'): 'output_format' must be a string, got null\n"
        "  record 6 (id='e'): 'output_format' (the gold evaluation) is empty\n"
        "  record 7 (id='ok'): duplicate id, first seen at record 0"
    )


def test_every_bad_judges_instance_is_listed_at_once(tmp_path):
    pairs = tmp_path / "pairwise.yaml"
    pairs.write_text(
        "0: {expected_winners: [0], ideas: {0: A novel idea., 1: An older idea.}}\n"
        "1: {expected_winners: [1], ideas: {0: null, 1: An older idea.}}\n"
        "2: {expected_winners: [0], ideas: {0: A novel idea., 1: '  '}}\n"
        "3: {expected_winners: [0], ideas: {0: {purpose: Faster, mechanism: ''}, 1: x}}\n"
        "4: null\n"
    )
    assert judges_error(pairs, "pairwise") == (
        f"{pairs}: 4 of 5 instances are bad:\n"
        "  instance 1: idea 0 must be text, got null\n"
        "  instance 2: idea 1 is empty\n"
        "  instance 3: idea 0 field 'mechanism' is empty\n"
        "  instance 4: expected a mapping, got null"
    )
    ideas = tmp_path / "pointwise.yaml"
    ideas.write_text(
        "a: {idea: An idea., label: POSITIVE}\nb: {idea: '', label: NEGATIVE}\n"
        "c: {idea: ~, label: POSITIVE}\nd: {label: POSITIVE}\n"
    )
    assert judges_error(ideas, "pointwise") == (
        f"{ideas}: 3 of 4 instances are bad:\n"
        "  instance b: idea is empty\n"
        "  instance c: idea must be text, got null\n"
        "  instance d: missing or malformed field 'idea'"
    )


@pytest.mark.workflow
def test_empty_dataset_stops_the_workflow_before_any_job(tmp_path, tiny_config):
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    config = tiny_config(datasets={"empty": str(empty)}, models=[])
    result = run_snakemake("--cores", "1", "--configfile", str(config), check=False)
    assert result.returncode != 0
    assert f"{empty}: no records (an empty dataset)" in result.stdout + result.stderr
    assert not (tmp_path / "results").exists()  # no job ran
