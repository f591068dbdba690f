"""A bundle's parts on hand-made inputs: params in their portable form, the crate's digests
checked on reading (a flipped byte, a truncated file), and the import's decision job by job."""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO

from noveval.workflow.bundle.crate import BundleError, read_manifest, write_crate
from noveval.workflow.bundle.fingerprint import Places, fingerprint
from noveval.workflow.bundle.importer import decide
from noveval.workflow.dag import PlannedJob

REGISTRY_TEXT = "models: {}\n"


def places(root: Path, results: str = "results", registry: str = "models.yaml") -> Places:
    """A checkout at ``root`` with its results folder and a registry file."""
    (root / registry).parent.mkdir(parents=True, exist_ok=True)
    (root / registry).write_text(REGISTRY_TEXT)
    return Places.of(root, {"results": results, "registry": registry})


def test_another_results_folder_checkout_or_registry_path_is_no_change(tmp_path):
    here = places(tmp_path / "cluster" / "noveval")
    there = places(tmp_path / "laptop", results="/elsewhere/out", registry="config/m.yaml")

    def params(at: Places) -> dict:
        return {
            "code": "abc",
            "cache": f"{at.results}/cache",
            "registry": str(at.registry),
            "cell": "pointwise/reference",
            "lock": str(at.checkout / "config" / "lock.yaml"),
        }

    ours, theirs = fingerprint(params(here), here), fingerprint(params(there), there)
    assert ours.params_hash == theirs.params_hash
    assert ours.code == "abc" and "code" not in ours.params
    assert ours.params["cache"] == "<results>/cache"
    assert ours.params["lock"] == "config/lock.yaml"
    digest = hashlib.sha256(REGISTRY_TEXT.encode()).hexdigest()
    assert ours.params["registry"] == f"registry:sha256:{digest}"
    (there.registry).write_text("models: {gpt-4o: {}}\n")
    assert fingerprint(params(there), there).params_hash != ours.params_hash  # by content


def test_params_in_canonical_form_and_a_value_with_no_portable_form_named(tmp_path):
    at = places(tmp_path)

    @dataclass(frozen=True)
    class Limits:
        share: float
        models: frozenset

    one = fingerprint({"a": {"y": 1, "x": Limits(0.2, frozenset({"b", "a"}))}}, at)
    two = fingerprint({"a": {"x": Limits(0.2, frozenset({"a", "b"})), "y": 1}}, at)
    assert one.params_hash == two.params_hash
    assert one.params == {"a": {"x": {"models": ["a", "b"], "share": 0.2}, "y": 1}}
    with pytest.raises(TypeError, match="type object has no portable form"):
        fingerprint({"handle": object()}, at)


@pytest.fixture
def bundle(tmp_path) -> Path:
    """A crate of two hand-made files, made by two jobs."""
    results = tmp_path / "results"
    (results / "novbench").mkdir(parents=True)
    files = {"novbench/scores.parquet": b"scores " * 400, "novbench/table.csv": b"a,b\n1,2\n"}
    for path, content in files.items():
        (results / path).write_bytes(content)
    digests = {path: hashlib.sha256(content).hexdigest() for path, content in files.items()}
    no_params = fingerprint({}, places(tmp_path)).params_hash
    jobs = [
        job_record("novbench_score", "s1", no_params, ["novbench/scores.parquet"]),
        job_record("novbench_table", "t1", no_params, ["novbench/table.csv"]),
    ]
    run = {"version": "0.1.0", "commit": None, "dirty": False, "models": {}, "targets": ["all"]}
    out = tmp_path / "bundle.zip"
    license = {"@id": "#terms", "@type": "CreativeWork", "name": "terms"}
    write_crate(out, REPO, results, digests, jobs, run, license)
    return out


def job_record(rule: str, code: str, params_hash: str, files: list[str]) -> dict:
    return {"rule": rule, "wildcards": {"dataset": "tiny"}, "code": code,
            "params_hash": params_hash, "params": {}, "files": files, "started": 1.7e9,
            "ended": 1.7e9 + 5}  # fmt: skip


def test_a_bundle_reads_back_its_files_jobs_and_run(bundle):
    manifest = read_manifest(bundle)
    assert sorted(manifest.files) == ["novbench/scores.parquet", "novbench/table.csv"]
    made_by = manifest.job_of()
    assert made_by["novbench/table.csv"].rule == "novbench_table"
    assert made_by["novbench/scores.parquet"].code == "s1"
    assert manifest.run["targets"] == ["all"]


def test_a_flipped_byte_is_refused_naming_the_file(bundle):
    with zipfile.ZipFile(bundle) as archive:
        member = archive.getinfo("results/novbench/scores.parquet")
    data = bytearray(bundle.read_bytes())
    with open(bundle, "rb") as handle:  # the local header's length, then the member's data
        handle.seek(member.header_offset + 26)
        name_length, extra_length = (int.from_bytes(handle.read(2), "little") for _ in range(2))
    start = member.header_offset + 30 + name_length + extra_length
    data[start + member.compress_size // 2] ^= 0x01
    bundle.write_bytes(bytes(data))
    with pytest.raises(BundleError, match="results/novbench/scores.parquet"):
        read_manifest(bundle)


def test_a_truncated_bundle_is_refused_naming_it(bundle):
    bundle.write_bytes(bundle.read_bytes()[:-200])
    with pytest.raises(BundleError, match=f"{bundle}: not a readable bundle"):
        read_manifest(bundle)


def planned(rule: str, code: str, output: str, depends_on: tuple[int, ...] = ()) -> PlannedJob:
    return PlannedJob(rule, {}, (f"results/{output}",), {"code": code}, depends_on, None, None)


def test_a_job_is_up_to_date_only_with_its_code_params_and_upstream_matching(bundle, tmp_path):
    at = places(tmp_path)
    manifest = read_manifest(bundle)
    theirs = manifest.job_of()
    score, table = (
        planned("novbench_score", "s1", "novbench/scores.parquet"),
        planned("novbench_table", "t1", "novbench/table.csv", (0,)),
    )
    assert decide([score, table], at, manifest).up_to_date == [0, 1]
    rescored = planned("novbench_score", "s2", "novbench/scores.parquet")
    edited = decide([rescored, table], at, manifest)
    assert edited.up_to_date == []
    assert edited.rebuild == {
        "novbench_score": {"code differs": 1},
        "novbench_table": {"upstream rebuilds": 1},
    }
    other = PlannedJob("novbench_score", {}, score.outputs, {"code": "s1", "x": 1}, (), None, None)
    assert decide([other], at, manifest).rebuild == {"novbench_score": {"params differ": 1}}
    missing = planned("novbench_radar", "r1", "novbench/radar.png")
    assert decide([missing], at, manifest).rebuild == {"novbench_radar": {"not in the bundle": 1}}
    assert theirs["novbench/table.csv"].rule == "novbench_table"
