"""Per-job logging: every rule writes what it did, and any failure's traceback, to its log."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def job_context() -> str:
    """Where the job runs: host, SLURM job id and the GPUs it was given."""
    return (
        f"job on {socket.gethostname()}: "
        f"SLURM_JOB_ID={os.environ.get('SLURM_JOB_ID', '(none)')} "
        f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '(unset)')}"
    )


@contextlib.contextmanager
def log_to(path: str | Path) -> Iterator[None]:
    """Send the package's log records (and a failure's traceback) to ``path`` and stderr."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    handlers = [logging.FileHandler(path, mode="a", encoding="utf-8"), logging.StreamHandler()]
    root = logging.getLogger()
    for handler in handlers:
        handler.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(handler)
    root.setLevel(logging.INFO)
    for noisy in (
        "httpx",
        "httpx2",
        "httpcore",
        "httpcore2",
        "openai",
        "urllib3",
        "sentence_transformers",
    ):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("noveval").info(job_context())
    try:
        yield
    except BaseException:
        logging.getLogger("noveval").exception("job failed")
        raise
    finally:
        for handler in handlers:
            root.removeHandler(handler)
            handler.close()
        sys.stderr.flush()


def failure_summary(logs_dir: str | Path) -> str:
    """One line per inference job whose last run kept or stopped on failed calls, naming its
    cells ("" if none). A job that stopped before writing its report (an empty file) has none."""
    lines = []
    for report_path in sorted(Path(logs_dir).glob("**/failures.json")):
        text = report_path.read_text(encoding="utf-8")
        report = json.loads(text) if text.strip() else {"failed": 0}
        if report["failed"]:
            verdict = "job failed" if report["failed"] > report["allowed"] else "within budget"
            cells = ", ".join(f"{cell} ({count})" for cell, count in report["cells"].items())
            lines.append(
                f"  {report['job']}: {report['failed']} of {report['calls']} calls failed "
                f"({verdict}; cells: {cells}; first error: {report['errors'][0]})"
            )
    if not lines:
        return ""
    return "\n".join(["Inference jobs with failed calls (a rerun retries exactly those):", *lines])
