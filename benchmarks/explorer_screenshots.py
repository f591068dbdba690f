"""Screenshots of instance explorers for docs/explorer.md, in Debian's headless Chromium.

Each explorer folder is opened from the file system at a view's URL fragment
(``index.html#instance?id=...``) with ``--screenshot`` at 1280x900 and written as a PNG. Chromium
honours the fragment of a file:// URL: the page routes ``location.hash`` on load, and
``--virtual-time-budget`` lets its data scripts load before the picture is taken. A fragment
that was not honoured would show the home view: the script reads the view's heading from the DOM
that the same command line dumps (``--dump-dom``) and fails when it is the home view's. The PNG
is reduced to a palette of 256 colours (Pillow) to keep it small.

With no arguments it makes the two images of docs/images/ from a finished run's explorers (the
first dataset of each study under ``--results``): the instance view of NovBench's first paper and
of the judges' first pair. The images of docs/ come from the test suite's embedded run (dataset
``tiny``):

    PYTHONPATH=src:tests .venv/bin/python benchmarks/explorer_screenshots.py [--results results]

or one image: ``... explorer_screenshots.py --folder DIR --fragment '#rows?model=m' --png out.png``
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from explorer_browser import CHROMIUM, CHROMIUM_FLAGS
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
REPO = Path(__file__).resolve().parents[1]
IMAGES = REPO / "docs" / "images"
STUDIES = ("novbench", "judges")
# the browser tests' flags (tests/explorer_browser.py), with a fixed budget for the data scripts
FLAGS = [*CHROMIUM_FLAGS, "--virtual-time-budget=10000"]


def chromium(url: str, *flags: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *flags, url]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode:
        raise SystemExit(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done


def manifest(folder: Path) -> dict:
    """The explorer's data/manifest.js, read back (``explorerLoad("manifest", {...});``)."""
    text = (folder / "data" / "manifest.js").read_text(encoding="utf-8")
    return json.loads(text[text.index(",") + 1 : text.rindex(")")])


def first_instance(folder: Path) -> str:
    """The view of the explorer's first instance (a pair before an idea, for the judges)."""
    ids = sorted(manifest(folder)["instances"], key=lambda i: (not i.startswith("pairwise"), i))
    return "#instance?" + urlencode({"id": ids[0]}, safe=":")


def screenshot(folder: Path, fragment: str, png: Path) -> int:
    """Writes the view ``fragment`` of the explorer in ``folder`` to ``png``; its bytes."""
    folder = Path(folder).resolve()
    url = (folder / "index.html").as_uri() + fragment
    if fragment.lstrip("#") not in ("", "home"):
        dom = chromium(url, "--dump-dom").stdout
        found = re.search(r"<h1>(.*?)</h1>", dom, re.S)
        shown = html.unescape(found.group(1)) if found else None
        if shown is None or shown == manifest(folder)["title"]:
            raise SystemExit(f"{url}: the fragment was not honoured (<h1>{shown}</h1>)")
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        raw = Path(scratch) / "shot.png"
        chromium(url, f"--screenshot={raw}")
        if not raw.exists():
            raise SystemExit(f"chromium wrote no screenshot of {url}")
        Image.open(raw).convert("RGB").quantize(colors=256).save(png, optimize=True)
    return png.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=REPO / "results")
    parser.add_argument("--folder", type=Path, help="one explorer folder (with --fragment, --png)")
    parser.add_argument("--fragment", default="#home")
    parser.add_argument("--png", type=Path)
    args = parser.parse_args()
    if args.folder:
        shots = [(args.folder, args.fragment, args.png or Path("explorer.png"))]
    else:
        shots = []
        for study in STUDIES:
            found = sorted((args.results / study).glob("*/explorer/index.html"))
            if not found:
                raise SystemExit(f"no explorer under {args.results / study}: run target explorer")
            folder = found[0].parent
            shots.append((folder, first_instance(folder), IMAGES / f"explorer-{study}.png"))
    for folder, fragment, png in shots:
        size = screenshot(folder, fragment, png)
        print(f"{png}: {size / 1e3:.0f} kB ({folder}, {fragment})")


if __name__ == "__main__":
    main()
