"""Issue 31: text from the store never steers the terminal. Bidi overrides (U+202E shows "gnp.exe" as "exe.png"),
zero-width and tag characters in a statement, a customer's name or a reviewer's reason are shown by their code
point in every human-facing command, through the real console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vmem.output import plain

HIDDEN = "\u202e\u200b\u2066\U000e0041"
VMEM = [sys.executable, "-m", "vmem"]


def run(store: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200", "VMEM_STORE": str(store)}
    return subprocess.run([*VMEM, *args], cwd=store, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    from conftest import demo_store

    return demo_store(tmp_path_factory.mktemp("bidi") / "demo" / "store", tmp_path_factory)


@pytest.mark.slow
def test_format_characters_are_shown_by_code_point_in_every_command(store):
    statement = f"Refunds gnp.{HIDDEN[0]}exe settle three days{HIDDEN[1]} after{HIDDEN[2]} payment{HIDDEN[3]}."
    proposed = run(store, "propose", statement, "--json")
    assert proposed.returncode == 0, proposed.stderr
    item = json.loads(proposed.stdout)["data"]["item"]["id"]
    entity = store / "entities" / "corvane.yaml"
    entity.write_text(entity.read_text().replace("name: Corvane Diagnostics", f"name: Corvane {HIDDEN[0]}scitsongaiD"))
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "rename"],
                   cwd=store, check=True)  # a teammate's hand edit, committed
    for command in (["show", item], ["list"], ["review", "--list"], ["blame", item], ["entity", "show", "corvane"]):
        done = run(store, *command)
        assert done.returncode == 0, (command, done.stderr)
        shown = done.stdout + done.stderr
        assert not any(ch in shown for ch in HIDDEN), command
        assert "<U+202E>" in shown, command


def test_plain_keeps_ordinary_text_of_any_script():
    text = "Zürich · 東京 · Ελλάδα · عربى · emoji 🙂 · tab\tand newline\n"
    assert plain(text) == text
    assert plain("a\u202eb\x1b[31m") == "a<U+202E>b^[[31m"
