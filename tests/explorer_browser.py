"""The instance explorer driven in Debian's headless Chromium, as a reader on file:// would.

The page's CSP forbids inline scripts, so ``drive`` runs a copy of the explorer's index.html that
also loads ``driver.js`` (written beside it): the driver waits for ``window.explorer.ready``, runs
the steps, and writes their results as JSON into ``document.body.dataset.result``; Chromium's
``--dump-dom`` hands the DOM back. The console comes from ``--enable-logging=stderr`` (its
``CONSOLE`` lines: script errors, CSP violations, anything logged) and the page's requests from
``--log-net-log``: file:// loads are not in the net log at all, so any URL request the page
started (initiator ``null``, the file origin) is a network request. Chromium's own background
requests (update and time checks; initiator "not an origin") are left out.

Timing: ``--virtual-time-budget`` lets the driver's waits and timers run at once but counts real
time while scripts run and files load, so the driver's ``performance.now()`` differences are the
real times of the steps (checked against wall time by the benchmark); the budget is only an upper
bound, never waited out while the driver has work.

Steps (dicts, run in order; each gives a result dict with ``ms`` and ``state``):
  {"go": "#rows?model=m0"}           window.explorer.go(fragment)
  {"click": "a.cell-link"}           clicks the first element matching, waits for the new view
  {"set": {"input[name=q]": "x"}, "submit": "button[name=apply]"}   fills controls, submits
  {"read": {"count": "#count"}}      textContent of every match (up to 200), by name
  {"csv": true}                      window.explorer.csv() (the current view's filter)
  {"rows": {filter}}                 window.explorer.rows(filter): count and the first 5
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from report_check import CHROMIUM
from report_check import CHROMIUM_FLAGS as REPORT_FLAGS

# the report check's flags, less its fixed virtual-time budget (``run_chromium`` sets its own),
# with the console on stderr and the window of the screenshots
CHROMIUM_FLAGS = [
    *(flag for flag in REPORT_FLAGS if not flag.startswith("--virtual-time-budget")),
    "--disable-extensions",
    "--window-size=1280,900",
    "--enable-logging=stderr",
    "--v=0",
]
PAGE = "explorer-driven.html"

DRIVER = r"""
(() => {
"use strict";
const STEPS = %s;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  violations.push(`${e.violatedDirective} ${e.blockedURI}`));
const pageErrors = [];
window.addEventListener("error", (e) => pageErrors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => pageErrors.push(String(e.reason)));

function snapshot() {
  const s = window.explorer.state;
  return {view: s.view, hash: s.hash, filter: s.filter, matching: s.matching,
          shown: s.shown, error: s.error};
}
async function settle(before) {  // waits until the app routes a new hash, then for its view
  for (let i = 0; i < 500 && window.explorer.state.hash === before; i++) await sleep(10);
  await window.explorer.idle();
}
async function run(step) {
  const out = {};
  const t0 = performance.now();
  if (step.go) await window.explorer.go(step.go);
  if (step.set) for (const [sel, v] of Object.entries(step.set)) {
    const node = document.querySelector(sel);
    if (!node) throw new Error("no element " + sel);
    if (node.type === "checkbox") node.checked = !!v;
    else if (node.multiple) {
      for (const o of node.options) o.selected = [].concat(v).includes(o.value);
    }
    else node.value = v;
  }
  if (step.click || step.submit) {
    const sel = step.click || step.submit, node = document.querySelector(sel);
    if (!node) throw new Error("no element " + sel);
    const before = window.explorer.state.hash;
    node.click();
    await settle(before);
  }
  if (step.csv) out.csv = await window.explorer.csv();
  if (step.rows) { const rows = await window.explorer.rows(step.rows);
                   out.rows = {count: rows.length, first: rows.slice(0, 5)}; }
  out.ms = performance.now() - t0;
  out.state = snapshot();
  out.location = location.hash;
  if (step.read) { out.read = {};
    for (const [name, sel] of Object.entries(step.read))
      out.read[name] = [...document.querySelectorAll(sel)].slice(0, 200)
        .map((n) => n.textContent);
  }
  out.pwned = document.body.dataset.pwned ?? null;
  out.error_shown = document.getElementById("error").hidden ? null
    : document.getElementById("error").textContent;
  return out;
}
(async () => {
  const result = {steps: [], violations, pageErrors};
  try {
    const t0 = performance.now();
    await window.explorer.ready;
    result.ready_ms = performance.now() - t0;
    result.start_ms = t0;
    for (const step of STEPS) result.steps.push(await run(step));
  } catch (e) { result.failure = String(e && e.stack || e); }
  result.total_ms = performance.now();
  const header = document.querySelector("header");  // explorer.css applied (not blocked by the CSP)
  result.styled = !!header && getComputedStyle(header).position === "sticky";
  document.getElementById("main").replaceChildren();  // keeps the dumped DOM small
  document.body.dataset.result = JSON.stringify(result);
})();
})();
"""


def chromium_available() -> bool:
    return Path(CHROMIUM).exists()


def run_chromium(page: Path, budget_ms: int = 600_000, timeout_s: int = 300):
    """Opens ``page`` (file://) in headless Chromium with a fresh profile: returns the dumped
    DOM, the console messages, the URLs of the page's network requests and the wall seconds."""
    work = Path(tempfile.mkdtemp(prefix="chromium-"))
    net_log = work / "net-log.json"
    command = [
        CHROMIUM,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={work / 'profile'}",
        f"--virtual-time-budget={budget_ms}",
        f"--log-net-log={net_log}",
        "--dump-dom",
        page.as_uri(),
    ]
    start = time.monotonic()
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
        wall = time.monotonic() - start
        assert result.returncode == 0, (
            f"chromium failed ({result.returncode}): {result.stderr[-3000:]}"
        )
        console = [
            line.split("] ", 1)[-1] for line in result.stderr.splitlines() if ":CONSOLE" in line
        ]
        return result.stdout, console, page_requests(net_log), wall
    finally:
        shutil.rmtree(work, ignore_errors=True)


def page_requests(net_log: Path) -> list[str]:
    """URLs of the requests that a page started (its initiator is an origin, not the browser):
    Chromium logs no file:// load here, so for a file:// page any entry is a network request."""
    text = net_log.read_text(errors="replace")
    try:
        log = json.loads(text)
    except json.JSONDecodeError:  # cut short: Chromium ended before closing the array
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    types = {number: name for name, number in log["constants"]["logEventTypes"].items()}
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if types.get(event["type"]) == "URL_REQUEST_START_JOB" and "url" in params:
            if params.get("initiator") != "not an origin" and params["url"] not in urls:
                urls.append(params["url"])
    return urls


def drive(folder: Path, steps: list[dict], budget_ms: int = 600_000, timeout_s: int = 300):
    """Runs ``steps`` on the explorer in ``folder``: returns (results, console messages, network
    URLs). ``results`` has ``steps`` (one dict each), ``ready_ms`` (page start to the first view),
    ``violations`` (CSP), ``pageErrors``, ``failure`` (a step that threw) and ``wall_s``."""
    folder = Path(folder)
    work = Path(tempfile.mkdtemp(prefix="explorer-"))
    try:
        for name in ("index.html", "explorer.js", "explorer.css"):
            shutil.copyfile(folder / name, work / name)
        (work / "data").symlink_to((folder / "data").resolve())  # no copy of big data folders
        (work / "driver.js").write_text(DRIVER % json.dumps(steps), encoding="utf-8")
        index = (folder / "index.html").read_text(encoding="utf-8")
        assert "</body>" in index, "index.html has no </body>"
        page = work / PAGE
        page.write_text(
            index.replace("</body>", '<script src="driver.js"></script>\n</body>'), encoding="utf-8"
        )
        dom, console, network, wall = run_chromium(page, budget_ms, timeout_s)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    found = re.search(r'<body[^>]*\sdata-result="([^"]*)"', dom)
    assert found, "the driver wrote no result (it did not finish in the budget?)\n" + dom[-2000:]
    results = json.loads(html.unescape(found.group(1)))
    results["wall_s"] = wall
    return results, console, network
