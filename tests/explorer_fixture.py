"""A synthetic instance explorer (docs: /work/tmp/explorer-format.md, format v1), for the front
end's browser tests and its benchmark.

``write_demo_explorer(folder)`` copies the static page from ``src/noveval/core/explorer/static`` and
writes ``data/*.js`` from deterministic rows: ``instances`` papers x ``models`` models x ``cells``
cells, chunked by model (``rows_per_chunk`` splits a model's rows further), full texts in
``texts-<k>`` chunks of ``texts_instances`` papers x one model. Row 0 (paper p0, model m0, cell
c0) holds a script and an image with an ``onerror`` handler in its answer: the page must show them
as text, and ``document.body.dataset.pwned`` must stay unset.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from noveval.core.explorer import STATIC

PWN = (
    "<script>document.body.dataset.pwned=1</script>"
    '<img src=x onerror="document.body.dataset.pwned=2">'
)
CELL_NAMES = ("zero-none", "zero-context", "few-none", "few-context", "cot-none", "cot-context")
WORDS = (
    "novel method prior work retrieval claim baseline evaluation paper reviewer idea contribution "
    "dataset transformer benchmark ablation significant incremental related approach results"
).split()
COLUMNS = [
    {"name": "id", "kind": "id"},
    {"name": "paper", "label": "Paper", "kind": "key"},
    {"name": "model", "label": "Model", "kind": "key"},
    {"name": "cell", "label": "Cell", "kind": "key"},
    {"name": "relevance", "label": "Relevance", "kind": "number"},
    {"name": "score", "label": "Score", "kind": "number"},
    {"name": "flipped", "label": "Flipped", "kind": "flag"},
    {"name": "snippet", "label": "Answer", "kind": "text"},
    {"name": "t", "kind": "texts"},
]


@dataclass
class DemoExplorer:
    folder: Path
    manifest: dict
    rows: list[dict] = field(repr=False)  # decoded rows (keys as strings), without full texts

    def matching(self, model=None, cell=None, lo=None, hi=None, flipped=False, q=None):
        """The rows a filter keeps (the app's semantics: a null number fails a range)."""

        def keep(r):
            if model is not None and r["model"] not in model:
                return False
            if cell is not None and r["cell"] not in cell:
                return False
            if (lo is not None or hi is not None) and r["relevance"] is None:
                return False
            if lo is not None and r["relevance"] < lo or hi is not None and r["relevance"] > hi:
                return False
            if flipped and not r["flipped"]:
                return False
            return not q or q.lower() in r["snippet"].lower()

        return [r for r in self.rows if keep(r)]


def _base_text(length: int = 40_000) -> str:
    words, n, i = [], 0, 0
    while n < length:
        words.append(WORDS[(i * i * 7 + i * 3) % len(WORDS)])
        n += len(words[-1]) + 1
        i += 1
    return " ".join(words)


BASE_TEXT = _base_text()


def text_of(seed: int, length: int) -> str:
    """Deterministic filler text of ``length`` characters (a slice of one long text)."""
    start = (seed * 7919) % 20_000
    text = BASE_TEXT[start : start + length]
    while len(text) < length:
        text += " " + BASE_TEXT[: length - len(text) - 1]
    return text


def cell_name(c: int) -> str:
    return CELL_NAMES[c] if c < len(CELL_NAMES) else f"cell-{c}"


def relevance(i: int, m: int, c: int) -> float | None:
    """A score in [0, 1] with two decimals; null for about one row in 37."""
    if (i * 31 + m * 17 + c * 7) % 37 == 0:
        return None
    return ((i * 13 + m * 29 + c * 11) % 101) / 100


def write_js(path: Path, name: str, payload) -> None:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    path.write_text(f"explorerLoad({json.dumps(name)}, {text});\n", encoding="utf-8")


def write_demo_explorer(
    folder: Path,
    instances: int = 12,
    models: int = 3,
    cells: int = 4,
    rows_per_chunk: int | None = None,
    snippet_length: int = 200,
    text_length: int = 600,
    context_length: int = 300,
    texts_instances: int = 5,
    instances_per_file: int = 50,
) -> DemoExplorer:
    """Writes a complete explorer into ``folder`` (created) and returns its rows."""
    folder = Path(folder)
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    for name in ("index.html", "explorer.js", "explorer.css"):
        shutil.copyfile(STATIC / name, folder / name)
    papers = [f"p{i}" for i in range(instances)]
    model_names = [f"model-{m}" for m in range(models)]
    cell_names = [cell_name(c) for c in range(cells)]
    blocks = (instances + texts_instances - 1) // texts_instances

    rows, chunks, decoded = [], [], []
    for m, model in enumerate(model_names):
        model_rows = []
        for block in range(blocks):  # one texts file per block of papers and model
            k = m * blocks + block
            texts = {}
            for i in range(block * texts_instances, min(instances, (block + 1) * texts_instances)):
                for c in range(cells):
                    row_id = f"{papers[i]}|{model}|{cell_names[c]}"
                    seed = (i * models + m) * cells + c
                    answer = f"Answer {row_id}: " + text_of(seed, text_length)
                    if i == 0 and m == 0 and c == 0:
                        answer = PWN + " " + answer
                    texts[row_id] = {"answer": answer}
                    if c % 2 == 1:  # the "context" cells have a retrieved context
                        context = text_of(seed + 1, context_length)
                        texts[row_id]["context"] = "Retrieved passage: " + context
                    rel = relevance(i, m, c)
                    score = 1 + (i + 2 * m + c) % 5
                    flipped = int((i + m + c) % 4 == 0)
                    snippet = answer[:snippet_length]
                    model_rows.append([row_id, i, m, c, rel, score, flipped, snippet, k])
                    decoded.append(
                        {
                            "id": row_id,
                            "paper": papers[i],
                            "model": model,
                            "cell": cell_names[c],
                            "relevance": rel,
                            "score": score,
                            "flipped": flipped,
                            "snippet": snippet,
                            "t": k,
                        }
                    )
            write_js(data / f"texts-{k}.js", f"texts-{k}", texts)
        size = rows_per_chunk or len(model_rows) or 1
        for start in range(0, max(1, len(model_rows)), size):
            name = f"rows-{len(chunks)}"
            part = model_rows[start : start + size]
            write_js(
                data / f"{name}.js", name, {"columns": [c["name"] for c in COLUMNS], "rows": part}
            )
            chunks.append({"name": name, "rows": len(part), "value": model})
        rows.extend(model_rows)

    instance_files = {}
    for start in range(0, instances, instances_per_file):
        k = start // instances_per_file
        payload = {}
        for i in range(start, min(instances, start + instances_per_file)):
            payload[papers[i]] = {
                "title": f"Paper {papers[i]}: A synthetic study number {i}",
                "sections": [
                    {
                        "label": "Novelty claims",
                        "items": [
                            f"Claim {j} of {papers[i]}: " + text_of(i + j, 80) for j in range(2)
                        ],
                    },
                    {"label": "Gold label", "items": ["novel" if i % 2 else "not novel"]},
                ],
            }
            instance_files[papers[i]] = k
        write_js(data / f"instances-{k}.js", f"instances-{k}", payload)

    header = ["Model", "Cell", "Rows", "Mean relevance", "Flipped"]
    table_rows, links = [], []
    for model in model_names:
        for cell in cell_names:
            group = [r for r in decoded if r["model"] == model and r["cell"] == cell]
            values = [r["relevance"] for r in group if r["relevance"] is not None]
            mean = round(sum(values) / len(values), 3) if values else None
            eq = {"model": [model], "cell": [cell]}
            table_rows.append([model, cell, len(group), mean, sum(r["flipped"] for r in group)])
            links.append([None, None, {"eq": eq}, None, {"eq": eq, "flags": ["flipped"]}])
    manifest = {
        "study": "demo",
        "dataset": "synthetic",
        "title": "Demo explorer — synthetic",
        "generated": "2026-12-06T23:00:00Z",
        "instance_column": "paper",
        "instance_label": "paper",
        "compare_column": "model",
        "match_columns": ["paper", "cell"],
        "columns": COLUMNS,
        "dictionaries": {"paper": papers, "model": model_names, "cell": cell_names},
        "chunk_column": "model",
        "chunks": chunks,
        "text_fields": [
            {"name": "answer", "label": "Evaluation"},
            {"name": "context", "label": "Retrieved context"},
        ],
        "instances": instance_files,
        "tables": [
            {
                "title": "Table: mean relevance per model and cell",
                "note": "Synthetic numbers.",
                "header": header,
                "rows": table_rows,
                "links": links,
            }
        ],
        "presets": [
            {"label": "Flipped answers", "filter": {"flags": ["flipped"]}},
            {"label": "Low relevance", "filter": {"range": {"relevance": [None, 0.3]}}},
            {"label": "Answers with markup", "filter": {"q": "<script>"}},
        ],
        "summary": [
            ["Papers", instances],
            ["Models", models],
            ["Cells", cells],
            ["Rows", len(decoded)],
        ],
    }
    write_js(data / "manifest.js", "manifest", manifest)
    return DemoExplorer(folder, manifest, decoded)
