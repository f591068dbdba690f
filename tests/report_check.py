"""The Snakemake report of a run, checked in a real browser (Debian's headless Chromium).

Snakemake's report is a single-page app with no address per result; its own caption links call
``app.showCategory`` and ``app.showResultInfo``. The browser check opens a copy of the report
with a script that opens the NovBench results the same way, then clicks the radar's view and
info buttons as a reader would.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import yaml
from conftest import run_snakemake, unavailable
from PIL import Image

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--virtual-time-budget=5000",  # virtual milliseconds: the app renders and the clicks run
]
TABLES_AND_FIGURES = ("table.csv", "table.md", "sentiment_radar.png")
RADAR_CAPTION = "Sentiment of the novelty comments on dataset"

# Opens the dataset's NovBench results, then clicks the radar row's view button (the figure
# fills the content pane) and its info button (the description fills the navigation pane), then
# writes where the figure is drawn into the body's data-radar attribute. The app's panes slide
# open (CSS transitions); the page turns transitions off so that the screenshot, which is taken
# when the virtual time runs out, shows them where they come to rest.
NAVIGATE = """<style>* { transition: none !important; animation: none !important; }</style>
<script>
setTimeout(function () {
  app.showCategory("NovBench");
  app.setView({navbarMode: "subcategory", category: "NovBench", subcategory: %s});
  setTimeout(function () {
    const row = [...document.querySelectorAll("nav tr")].find(
      (tr) => [...tr.cells].some((cell) => cell.textContent === "sentiment radar"));
    const [view, info] = row.querySelectorAll("a");
    view.click();
    setTimeout(function () {
      info.click();
      setTimeout(function () {  // where the figure is drawn, for the check of the screenshot
        const image = document.querySelector('img[src^="data:image/png"]');
        const box = image.getBoundingClientRect();
        document.body.dataset.radar = JSON.stringify({x: box.x, y: box.y,
          width: box.width, height: box.height, natural: image.naturalWidth});
      }, 1000);
    }, 200);
  }, 200);
}, 200);
</script>
"""


def build_report(config_path: Path, report_path: Path, *targets: str) -> None:
    """``snakemake --report`` for the finished outputs of ``config_path``'s ``targets``."""
    run_snakemake(*targets, "--report", str(report_path), "--configfile", str(config_path))


def report_contents(report_path: Path) -> tuple[dict, dict]:
    """The report's results (path → labels, caption, data URI, ...) and categories (category →
    subcategory → paths), from the JSON the report embeds."""
    html = report_path.read_text()

    def variable(name: str) -> dict:
        match = re.search(rf'<script id="{name}">\s*var {name} = (.*?);\s*</script>', html, re.S)
        assert match, f"no {name} in {report_path}"
        return json.loads(match.group(1))

    return variable("results"), variable("categories")


def chromium(page: Path, *args: str) -> str:
    """Headless Chromium on a local page with a fresh profile; returns its standard output."""
    if not Path(CHROMIUM).exists():
        unavailable(f"{CHROMIUM} not found (Debian's chromium package)", "NOVEVAL_REQUIRE_CHROMIUM")
    profile = page.parent / "chromium-profile"
    command = [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    shutil.rmtree(profile, ignore_errors=True)
    assert result.returncode == 0, f"chromium failed ({result.returncode}): {result.stderr[-3000:]}"
    return result.stdout


def assert_report_shows(config_path: Path, tmp_path: Path, dataset: str) -> None:
    """The report of a finished run holds the NovBench tables and figure of ``dataset`` with
    their captions, and Chromium shows the sentiment radar beside its description."""
    report_path = tmp_path / "report" / "report.html"
    report_path.parent.mkdir()
    build_report(config_path, report_path)
    results, categories = report_contents(report_path)
    out = Path(yaml.safe_load(Path(config_path).read_text())["results"]) / "novbench" / dataset
    paths = {name: str(out / name) for name in TABLES_AND_FIGURES}
    assert sorted(categories["NovBench"][dataset]) == sorted(paths.values())
    radar = results[paths["sentiment_radar.png"]]
    assert radar["labels"] == {"dataset": dataset, "result": "sentiment radar", "file": "PNG"}
    assert f"{RADAR_CAPTION} <strong>{dataset}</strong>" in radar["caption"]
    assert "Table 2 layout" in results[paths["table.csv"]]["caption"]

    page = report_path.with_name("navigated.html")
    head, body_end, tail = report_path.read_text().rpartition("</body>")
    assert body_end, "the report has no </body>"
    page.write_text(head + NAVIGATE % json.dumps(dataset) + body_end + tail)
    # The description fills the navigation pane on the left; the figure is drawn at its own size
    # right of it (the window leaves room to spare, whatever the fonts make of the description).
    figure = np.asarray(Image.open(paths["sentiment_radar.png"]).convert("RGB"))
    width, height = 2 * figure.shape[1] + 600, figure.shape[0] + 400
    screenshot = report_path.with_name("radar.png")
    dom = chromium(
        page, "--dump-dom", f"--screenshot={screenshot}", f"--window-size={width},{height}"
    )
    assert f'<img src="{radar["data_uri"]}"' in dom, "the radar is not shown"
    assert RADAR_CAPTION in dom and "novbench_radar" in dom  # its description and rule
    found = re.search(r'data-radar="([^"]*)"', dom)
    assert found, "the page did not record where the radar is drawn"
    box = json.loads(html.unescape(found.group(1)))
    assert box["width"] == box["natural"] == figure.shape[1], box  # drawn at its own size
    assert box["x"] >= width / 3, box  # right of the description
    pixels = np.asarray(Image.open(screenshot).convert("RGB"))
    assert_drawn(pixels[:, int(box["x"]) - 10 :], figure)  # the content pane's white around it


def drawn_area(pixels: np.ndarray) -> tuple[int, int, int, int]:
    """Top, left, bottom and right of an RGB image's non-white pixels."""
    rows, columns = np.nonzero((pixels < 250).any(axis=2))
    assert len(rows), "nothing is drawn"
    return rows.min(), columns.min(), rows.max() + 1, columns.max() + 1


def assert_drawn(screen: np.ndarray, figure: np.ndarray) -> None:
    """``screen`` shows ``figure``'s drawing at its own size: the drawn areas' sizes agree to a
    pixel, and at the best of the offsets a pixel apart the pixels differ by little on average
    (a drawing placed at a fraction of a pixel is resampled)."""
    top, left, bottom, right = drawn_area(figure)
    drawing = figure[top:bottom, left:right].astype(int)
    shown_top, shown_left, shown_bottom, shown_right = drawn_area(screen)
    size = (bottom - top, right - left)
    shown_size = (shown_bottom - shown_top, shown_right - shown_left)
    assert max(abs(a - b) for a, b in zip(size, shown_size)) <= 1, (size, shown_size)
    differences = {
        (down, across): np.abs(
            screen[shown_top + down : shown_top + down + size[0],
                   shown_left + across : shown_left + across + size[1]].astype(int) - drawing
        ).mean()
        for down in (-1, 0, 1) for across in (-1, 0, 1)
        if shown_top + down >= 0 and shown_left + across >= 0
        and screen[shown_top + down :, shown_left + across :].shape[:2] >= size
    }  # fmt: skip
    assert min(differences.values()) < 8, differences
