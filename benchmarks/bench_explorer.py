"""The instance explorer at the papers' scale: build time, size on disk, and the times to open and
to filter it in Debian's headless Chromium, against the goals of issue 45 (open < 3 s, filter
< 1 s).

Both studies' frames are made in memory, as the ``build`` functions take them (no workflow run):

- NovBench: 19 models x 9 cells (strategies zero, few, rag x perturbations none, change, del) x
  1,000 papers, plus the human row of each paper (172,000 score rows); each evaluation about 1,500
  characters, its parsed items about 1,200.
- Judges: 6 backbones x 2 formats x 4 setups x (161 pairs | 308 ideas) x 11 changes x 3 runs
  (sub-runs: run r is call r) = 371,448 verdicts; one call per order and run (pairwise 2 calls a
  verdict, pointwise 1), each answer about 600 characters.

The texts are slices of a pool of pseudo-words with Zipf frequencies, so Parquet compresses them
about as it does prose. For each study it prints the seconds of ``build`` and ``write_explorer``,
the explorer's size (its row, text and instance scripts apart) beside the same frames written as
Parquet (``to_parquet``, pandas' default snappy: the outputs the explorer shows), and the
milliseconds of each step in Chromium (``tests/explorer_browser.drive``: times measured in the
page with ``performance.now()``; "open" runs from navigation start to the first view drawn, and
the wall seconds of a Chromium that opens the page and exits stand beside it), then a table of
measured against goal. Peak memory (max RSS) is printed last. The explorers are written under a
temporary folder (``--out`` keeps them), removed at the end.

    PYTHONPATH=src:tests .venv/bin/python benchmarks/bench_explorer.py [--out DIR] [--study S]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]

from explorer_browser import chromium_available, drive  # noqa: E402

from noveval.core.explorer import write_explorer  # noqa: E402
from noveval.judges import explorer as judges_explorer  # noqa: E402
from noveval.novbench import explorer as novbench_explorer  # noqa: E402
from noveval.novbench.tables import HUMAN, METRICS  # noqa: E402

OPEN_GOAL_MS, FILTER_GOAL_MS = 3000, 1000
NOVBENCH_MODELS = 19
STRATEGIES = ("zero", "few", "rag")
PERTURBATIONS = ("none", "change", "del")
PAPERS = 1000
ANSWER_CHARS, ITEMS_CHARS = 1500, 1200
BACKBONES = ("gpt-5.1", "gpt-5.2", "gpt-5.4", "claude-sonnet-4-5", "claude-opus-4-5",
             "claude-opus-4-6")  # fmt: skip
SETUPS = ("human-only", "human-plus-generated", "human-plus-generated.backbone-gpt-5.4",
          "human-plus-generated.backbone-opus-4-5")  # fmt: skip
INSTANCES = {"pairwise": 161, "pointwise": 308}
CHANGES = {
    "pairwise": ("reference", "P1", "P2", "P3", "P4", "P5", "low_reasoning", "no_aggregation",
                 "retrieval", "purpose_mechanism", "P3+purpose_mechanism"),
    "pointwise": ("reference", "P1", "P2", "low_reasoning", "no_aggregation", "retrieval",
                  "agentic_search", "few_shot", "relaxed", "strict", "short_ideas"),
}  # fmt: skip
RUNS = 3
CALL_CHARS = 600


class Pool:
    """Pseudo-prose: slices of one long text of Zipf-distributed pseudo-words."""

    def __init__(self, seed: int = 0, chars: int = 32_000_000):
        rng = np.random.default_rng(seed)
        letters = np.array(list("etaoinshrdlcumwfgypbvkjxqz"))
        vocabulary = [
            "".join(rng.choice(letters, size=int(n))) for n in rng.integers(2, 11, size=5000)
        ]
        ranks = np.minimum(rng.zipf(1.3, size=chars // 5), len(vocabulary)) - 1
        self.text = " ".join(vocabulary[i] for i in ranks)[:chars]
        self.rng = rng

    def texts(self, count: int, chars: int) -> list[str]:
        lengths = self.rng.integers(int(chars * 0.7), int(chars * 1.3), size=count)
        starts = self.rng.integers(0, len(self.text) - 2 * chars, size=count)
        return [self.text[s : s + n] for s, n in zip(starts, lengths, strict=True)]


def novbench_frames(pool: Pool, rng: np.random.Generator) -> dict:
    """The frames ``noveval.novbench.explorer.build`` takes, at the papers' scale."""
    ids = [f"P{n:04d}" for n in range(PAPERS)]
    claims = pool.texts(PAPERS * 4, 200)
    reviews = pool.texts(PAPERS * 4, 250)
    papers = pd.DataFrame(
        {
            "paper_id": ids,
            "title": pool.texts(PAPERS, 80),
            "descriptions": [claims[4 * n : 4 * n + 4] for n in range(PAPERS)],
            "gold_texts": [reviews[4 * n : 4 * n + 4] for n in range(PAPERS)],
            "gold_labels": [["Positive", "Positive", "Neutral", "Negative"]] * PAPERS,
            "retrieved_titles": [pool.texts(5, 80) for _ in range(PAPERS)],
        }
    )
    papers["gold_text"] = ["\n".join(texts) for texts in papers["gold_texts"]]
    inputs = {"none": papers[["paper_id", "descriptions"]]}
    for name in PERTURBATIONS[1:]:
        perturbed = pool.texts(PAPERS * 3, 200)
        inputs[name] = pd.DataFrame(
            {"paper_id": ids, "descriptions": [perturbed[3 * n : 3 * n + 3] for n in range(PAPERS)]}
        )
    models = [f"model-{m:02d}" for m in range(NOVBENCH_MODELS)]
    keys = pd.MultiIndex.from_product(
        [models, STRATEGIES, PERTURBATIONS, ids],
        names=["model", "strategy", "perturbation", "paper_id"],
    ).to_frame(index=False)
    n = len(keys)
    answers = keys.assign(text=pool.texts(n, ANSWER_CHARS), items=pool.texts(n, ITEMS_CHARS))
    human = pd.DataFrame({"model": HUMAN, "strategy": "-", "perturbation": "-", "paper_id": ids})
    scores = pd.concat([keys, human], ignore_index=True)
    for metric in METRICS:
        scores[metric] = rng.random(len(scores)).round(4)
    scores["n_items"] = rng.integers(0, 9, len(scores))
    for flag, rate in (("empty", 0.01), ("repetitive", 0.02), ("unparseable", 0.02)):
        scores[flag] = rng.random(len(scores)) < rate
    scores["failed"] = scores["empty"] & scores["unparseable"]
    table = (
        scores.groupby(["model", "strategy", "perturbation"], sort=False)[METRICS]
        .mean()
        .assign(n_papers=PAPERS)
        .reset_index()
    )
    return {"papers": papers, "inputs": inputs, "scores": scores, "answers": answers,
            "table": table}  # fmt: skip


def judges_frames(pool: Pool, rng: np.random.Generator) -> dict:
    """The frames ``noveval.judges.explorer.build`` takes, at the papers' scale."""
    instances, verdicts, answers = [], [], {}
    for format, count in INSTANCES.items():
        ideas = 2 if format == "pairwise" else 1
        for setup in SETUPS:
            ids = [str(n) for n in range(count)]
            labels = rng.integers(0, 2, count)
            texts = pool.texts(count * ideas, 900)
            instances.append(
                pd.DataFrame(
                    {
                        "instance_id": ids,
                        "setup": setup,
                        "format": format,
                        "area": rng.choice(["NLP", "vision", "robotics", "theory"], count),
                        "ideas": [texts[ideas * n : ideas * n + ideas] for n in range(count)],
                        "titles": [pool.texts(ideas, 80) for _ in range(count)],
                        "sources": [["human", "generated"][:ideas]] * count,
                        "label": labels,
                    }
                )
            )
            for backbone in BACKBONES:
                for change in CHANGES[format]:
                    responses = f"{format}/{setup}/standard/{change}"
                    said = pool.texts(count * RUNS * ideas, CALL_CHARS)
                    for n, instance in enumerate(ids):
                        calls = said[n * RUNS * ideas : (n + 1) * RUNS * ideas]
                        answers[(backbone, responses, instance)] = [
                            (k // ideas, f"call {k // ideas}, order {k % ideas}: {text}")
                            for k, text in enumerate(calls)
                        ]
                    right = rng.random((RUNS, count)) < 0.7
                    verdict = np.where(right, labels, 1 - labels).astype(float)
                    verdict[rng.random((RUNS, count)) < 0.05] = -1  # ties
                    verdict[
                        rng.random((RUNS, count)) < 0.01
                    ] = -2  # failed (judges.all_failed: wrong)
                    verdicts.append(
                        pd.DataFrame(
                            {
                                "model": backbone,
                                "backbone": backbone,
                                "format": format,
                                "setup": setup,
                                "ideas": "standard",
                                "change": change,
                                "responses": responses,
                                "instance_id": np.tile(ids, RUNS),
                                "run": np.repeat(np.arange(RUNS), count),
                                "label": np.tile(labels, RUNS),
                                "verdict": verdict.ravel(),
                                "n_calls": ideas,
                                "cost_usd": rng.random(RUNS * count).round(5) * 0.01,
                            }
                        )
                    )
    verdicts = pd.concat(verdicts, ignore_index=True)
    for column in ("model", "backbone", "format", "setup", "ideas", "change", "responses"):
        verdicts[column] = verdicts[column].astype(str)
    by = ["format", "model", "change"]
    right = verdicts["verdict"] == verdicts["label"]
    ties = verdicts["verdict"] == -1
    metrics = (
        verdicts.assign(right=right, ties=ties, soft=right + 0.5 * ties)
        .groupby(by, sort=False)
        .agg(
            strict_accuracy=("right", "mean"),
            soft_accuracy=("soft", "mean"),
            tie_rate=("ties", "mean"),
            cost_usd=("cost_usd", "sum"),
        )
        .reset_index()
        .rename(columns={"change": "change_label"})
    )
    metrics["flip_rate"] = rng.random(len(metrics)).round(3) * 0.3
    flip_rates = metrics[metrics["change_label"] != "reference"][
        ["format", "model", "change_label", "flip_rate"]
    ].assign(against="reference", n_instances=len(SETUPS) * 300)
    flip_rates["flipped"] = (flip_rates["flip_rate"] * flip_rates["n_instances"]).astype(int)
    return {"instances": pd.concat(instances, ignore_index=True), "verdicts": verdicts,
            "answers": answers, "metrics": metrics, "flip_rates": flip_rates}  # fmt: skip


def folder_bytes(folder: Path, pattern: str = "*") -> int:
    return sum(path.stat().st_size for path in folder.rglob(pattern) if path.is_file())


def parquet_bytes(frames: dict[str, pd.DataFrame], folder: Path) -> dict[str, int]:
    """Each frame written with ``to_parquet`` (pandas' defaults), its bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    sizes = {}
    for name, frame in frames.items():
        path = folder / f"{name}.parquet"
        frame.to_parquet(path, index=False)
        sizes[name] = path.stat().st_size
    return sizes


def timed(label: str, function, *args):
    start = time.perf_counter()
    result = function(*args)
    seconds = time.perf_counter() - start
    print(f"  {label}: {seconds:.1f} s", flush=True)
    return result, seconds


def browse(folder: Path, steps: list[tuple[str, dict]], cold: tuple[str, dict]) -> list[tuple]:
    """The page opened (a Chromium that only opens it), the steps in one page, and ``cold`` in a
    fresh page: (label, milliseconds, what the view shows) each."""
    measured = []
    opened, console, network = drive(folder, [])
    assert not console and not network, (console, network)
    open_ms = opened["start_ms"] + opened["ready_ms"]
    measured.append(("open (#home), navigation start to view", open_ms, ""))
    measured.append(("  of which after manifest.js (ready_ms)", opened["ready_ms"], ""))
    measured.append(("  Chromium wall, start to exit", opened["wall_s"] * 1000, ""))
    for name, page_steps in (("steps", [step for _, step in steps]), ("cold", [cold[1]])):
        results, console, network = drive(folder, page_steps)
        assert not results.get("failure"), results.get("failure")
        assert not console and not network, (console, network)
        labels = [label for label, _ in steps] if name == "steps" else [cold[0]]
        for label, step in zip(labels, results["steps"], strict=True):
            assert not step["state"]["error"], step["state"]["error"]
            shown = f"{step['state']['matching']} rows; {step['location'][:60]}"
            measured.append((label, step["ms"], shown))
    for label, ms, shown in measured:
        print(f"  {label}: {ms:,.0f} ms  {shown}", flush=True)
    return measured


def study(name: str, frames: dict, build, parquet: dict, out: Path) -> dict:
    print(f"{name}:", flush=True)
    folder = out / name / "explorer"
    explorer, build_s = timed("build", build, "paper-scale", *frames.values())
    _, write_s = timed("write_explorer", write_explorer, explorer, folder)
    del explorer
    sizes = {
        "explorer": folder_bytes(folder),
        "rows-*.js": folder_bytes(folder / "data", "rows-*.js"),
        "texts-*.js": folder_bytes(folder / "data", "texts-*.js"),
        "instances-*.js": folder_bytes(folder / "data", "instances-*.js"),
        "manifest.js": (folder / "data" / "manifest.js").stat().st_size,
    }
    written = parquet_bytes(parquet, out / name / "parquet")
    sizes["parquet"] = sum(written.values())
    files = len(list((folder / "data").iterdir()))
    print(f"  explorer: {sizes['explorer'] / 1e6:,.1f} MB in {files} data files (rows "
          f"{sizes['rows-*.js'] / 1e6:,.1f} MB, texts {sizes['texts-*.js'] / 1e6:,.1f} MB, "
          f"instances {sizes['instances-*.js'] / 1e6:,.1f} MB, manifest "
          f"{sizes['manifest.js'] / 1e3:,.0f} kB)")  # fmt: skip
    print("  Parquet: " + ", ".join(f"{k} {v / 1e6:,.1f} MB" for k, v in written.items())
          + f"; {sizes['parquet'] / 1e6:,.1f} MB in all", flush=True)  # fmt: skip
    return {"folder": folder, "build_s": build_s, "write_s": write_s, "sizes": sizes}


def summary(name: str, done: dict, measured: list[tuple]) -> None:
    print(f"\n{name}: measured vs goal")
    print(f"  {'step':<48} {'measured':>12} {'goal':>9}  met")
    built = done["build_s"] + done["write_s"]
    print(f"  {'build + write_explorer':<48} {built:>10.1f} s {'':>9}")
    explorer, parquet = done["sizes"]["explorer"], done["sizes"]["parquet"]
    print(f"  {'explorer on disk / Parquet':<48} {explorer / 1e6:>9,.0f} MB "
          f"{'':>9}  ({parquet / 1e6:,.0f} MB Parquet, x{explorer / parquet:.1f})")  # fmt: skip
    for label, ms, _ in measured:
        goal = OPEN_GOAL_MS if label.startswith("open") else FILTER_GOAL_MS
        if label.startswith(" "):
            print(f"  {label:<48} {ms:>9,.0f} ms")
            continue
        met = "yes" if ms < goal else "NO"
        print(f"  {label:<48} {ms:>9,.0f} ms {f'< {goal} ms':>9}  {met}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the explorers here and keep them")
    parser.add_argument("--study", choices=["novbench", "judges", "both"], default="both")
    args = parser.parse_args()
    if not chromium_available():
        raise SystemExit("needs /usr/bin/chromium (Debian's chromium package)")
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-explorer-"))
    rng = np.random.default_rng(45)
    start = time.perf_counter()
    pool = Pool()
    results = {}
    try:
        if args.study in ("novbench", "both"):
            frames, _ = timed("NovBench frames", novbench_frames, pool, rng)
            parquet = {"scores": frames["scores"], "answers": frames["answers"],
                       "papers": frames["papers"]}  # fmt: skip
            done = study("novbench", frames, novbench_explorer.build, parquet, out)
            del frames, parquet
            steps = [
                ("filter, one model", {"go": "#rows?model=model-03&min.relevance=0.2"}),
                ("filter, all models (loads the chunks)",
                 {"go": "#rows?strategy=rag&perturbation=none&max.relevance=0.2"}),
                ("same filter again (cached)",
                 {"go": "#rows?strategy=rag&perturbation=none&max.relevance=0.2"}),
                ("another filter, all models (chunks loaded)",
                 {"go": "#rows?strategy=few&min.coverage=0.5&sort=-coverage"}),
                ("full-text search, one model",
                 {"go": "#rows?model=model-07&q=qzxj&full=1"}),
                ("home", {"go": "#home"}),
                ("table link (a cell of the table)", {"click": "a.cell-link"}),
                ("side by side, two models", {"go": "#compare?a=model-01&b=model-02&strategy=rag"}),
                ("instance view (a paper, rows loaded)", {"go": "#instance?id=P0421"}),
            ]  # fmt: skip
            cold = ("instance view, fresh page", {"go": "#instance?id=P0777"})
            results["novbench"] = (done, browse(done["folder"], steps, cold))
        if args.study in ("judges", "both"):
            frames, _ = timed("judges frames", judges_frames, pool, rng)
            responses = pd.DataFrame(
                [
                    (*key, call, text)
                    for key, said in frames["answers"].items()
                    for call, text in said
                ],
                columns=["backbone", "cell", "instance", "call", "text"],
            )
            parquet = {"verdicts": frames["verdicts"], "responses": responses,
                       "instances": frames["instances"]}  # fmt: skip
            done = study("judges", frames, judges_explorer.build, parquet, out)
            del frames, parquet, responses
            steps = [
                ("filter, one judge", {"go": "#rows?model=gpt-5.4&change=P3&flag=flipped"}),
                ("filter, all judges (loads the chunks)", {"go": "#rows?change=P3&flag=flipped"}),
                ("same filter again (cached)", {"go": "#rows?change=P3&flag=flipped"}),
                ("another filter, all judges (chunks loaded)",
                 {"go": "#rows?format=pairwise&flag=tie&sort=-cost_usd"}),
                ("preset: wrong under every change", {"go": "#rows?flag=wrong_everywhere"}),
                ("home", {"go": "#home"}),
                ("table link (a cell of the table)", {"click": "a.cell-link"}),
                ("side by side, two judges",
                 {"go": "#compare?a=gpt-5.4&b=claude-opus-4-6&change=P3"}),
                ("instance view (a pair, rows loaded)",
                 {"go": "#instance?id=pairwise:human-only:17"}),
            ]  # fmt: skip
            cold = ("instance view, fresh page", {"go": "#instance?id=pointwise:human-only:42"})
            results["judges"] = (done, browse(done["folder"], steps, cold))
    finally:
        if not args.out:
            shutil.rmtree(out, ignore_errors=True)
    for name, (done, measured) in results.items():
        summary(name, done, measured)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print(f"\npeak memory (max RSS): {peak:.1f} GB; {time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
