"""The dedicated judges' interface: a trivial third system plugged into the shared runner."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd
import pytest
from conftest import LOOPBACK_KEY, REPO, S2_TEST_KEY, loopback_registry

from noveval.inference.requests import build_request
from noveval.judges.instances import load_release, write_instances
from noveval.judges.prompts import call_item_id
from noveval.judges.statistics.aggregation import FAILED
from noveval.judges.systems.base import (
    TOTALS,
    Decision,
    DedicatedJudge,
    Instance,
    Session,
    run_system,
)

SAMPLE = REPO / "data" / "sample" / "judges" / "human-only" / "pointwise.yaml"


@dataclass(frozen=True)
class OneCall(DedicatedJudge):
    """One call per idea: "novel" decides novel, "not novel" not novel, anything else nothing."""

    model: str

    @property
    def models(self) -> list[str]:
        return [self.model]

    @property
    def journal(self) -> str:
        return "one_call"

    def probe(self, instance: Instance) -> list[dict]:
        return [{"role": "user", "content": instance.idea}]

    def decide(self, instances: list[Instance], session: Session) -> list[Decision]:
        backbone = session.backbone(self.model, {"temperature": 0.0})
        rows = {
            i.instance_id: build_request(
                call_item_id(i.instance_id, 0, 0), backbone.spec, self.probe(i), backbone.decoding
            )
            for i in instances
        }
        found = backbone.answers(rows, session.settings, "one call")
        verdicts = {"novel": 1, "not novel": 0}
        return [
            Decision(
                i.instance_id,
                verdicts.get(found[i.instance_id]["text"]),
                int(found[i.instance_id]["text"] not in verdicts),
                [found[i.instance_id]],
                {key: kind(found[i.instance_id].get(key) or 0) for key, kind in TOTALS.items()},
                [{"instance_id": i.instance_id, "answer": found[i.instance_id]["text"] + " ✓"}],
            )
            for i in instances
        ]


def scripted(body: dict) -> str:
    idea = body["messages"][0]["content"]
    return "novel" if "fixed tokenizer" in idea else "not novel" if "question" in idea else "?"


def test_a_third_system_runs_through_the_shared_runner_and_a_rerun_sends_nothing(
    loopback, loopback_s2, tmp_path, monkeypatch
):
    """Three sample ideas with gpt-4o on the loopback provider: one call each ($0.0045), the
    verdicts in the judges' columns (no decision: wrong), its journal under its own name and its
    transcript as the system wrote it."""
    for name, value in {**LOOPBACK_KEY, **S2_TEST_KEY}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(loopback.answers, "gpt-4o-2024-08-06", scripted)
    registry = loopback_registry(tmp_path / "models.yaml", loopback, "gpt-4o")
    write_instances(load_release(SAMPLE, "human-only", "pointwise").head(3), tmp_path / "i.parquet")
    cell = {"model": "gpt-4o", "setup": "human-only", "ideas": "standard", "change": "one_call"}

    def run() -> tuple[pd.DataFrame, list[dict]]:
        run_system(
            OneCall("gpt-4o"), cell, str(tmp_path / "i.parquet"), str(registry),
            str(tmp_path / "journals"),
            {"concurrency": 2, "request_timeout_s": 30, "retry_for": 0,
             "server_start_timeout_s": 30},
            {"base_url": loopback_s2.base_url}, str(tmp_path / "s2"),
            str(tmp_path / "verdicts.parquet"), str(tmp_path / "transcript.jsonl"),
            str(tmp_path / "cell.log"), "wrong",
        )  # fmt: skip
        lines = (tmp_path / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
        return pd.read_parquet(tmp_path / "verdicts.parquet"), [json.loads(li) for li in lines]

    sent = len(loopback.bodies)
    verdicts, transcript = run()
    assert len(loopback.bodies) - sent == 3
    assert verdicts[["label", "verdict", "n_calls", "n_failed"]].values.tolist() == [
        [1, 1, 1, 0],
        [0, 0, 1, 0],
        [1, FAILED, 1, 1],
    ]
    assert verdicts["cost_usd"].tolist() == pytest.approx([0.0045] * 3)
    assert set(verdicts["change"]) == {"one_call"} and set(verdicts["ideas"]) == {"standard"}
    assert (tmp_path / "journals" / "gpt-4o" / "one_call.jsonl").exists()
    assert [line["answer"] for line in transcript] == ["novel ✓", "not novel ✓", "? ✓"]
    assert "✓" in (tmp_path / "transcript.jsonl").read_text(encoding="utf-8")  # not escaped
    again, _ = run()
    assert len(loopback.bodies) - sent == 3  # every call answered by the journal
    pd.testing.assert_frame_equal(
        again.drop(columns="latency_s"), verdicts.drop(columns="latency_s")
    )
