"""Issue 31: `recall --as-of --json` carries `awaiting_review` like today's answer: how many items then in review
would have answered an uncovered question (never their text), through the console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest

VMEM = [sys.executable, "-m", "vmem"]
QUESTION = "when are Zephyr-class shipment invoices reconciled"


def run(store, *args):
    done = subprocess.run([*VMEM, *args], cwd=store, env={**os.environ, "VMEM_STORE": str(store)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["data"]


def stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.slow
def test_as_of_answers_say_what_then_awaited_review(tmp_path, tmp_path_factory):
    from conftest import demo_store

    store = demo_store(tmp_path / "demo" / "store", tmp_path_factory)
    before = stamp()
    time.sleep(1.1)  # commit times have one-second resolution
    run(store, "propose", "Invoices for Zephyr-class shipments are reconciled every Tuesday by the billing bot.",
        "--json")
    time.sleep(1.1)
    today = run(store, "recall", QUESTION, "--json")
    then = run(store, "recall", QUESTION, "--as-of", stamp(), "--json")
    earlier = run(store, "recall", QUESTION, "--as-of", before, "--json")
    assert today["coverage"] == then["coverage"] == earlier["coverage"] == "uncovered"
    assert today["awaiting_review"] == then["awaiting_review"] == 1
    assert earlier["awaiting_review"] == 0  # the proposal did not exist yet
    assert "Zephyr" not in json.dumps(then)  # counted, never shown
    covered = run(store, "recall", "refunds settle", "--as-of", stamp(), "--json")
    assert set(covered) >= {"coverage", "results", "awaiting_review", "commit"}
