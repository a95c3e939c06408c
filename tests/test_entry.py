"""The console entry point: under --json a usage error is JSON too (issue 12), on stdout, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.parametrize("argv,error", [(["propose", "--json"], "Missing argument 'TEXT'."),
                                        (["--json", "recall", "--bogus"], "No such option: --bogus"),
                                        (["--json", "show"], "Missing argument 'ID'.")])
def test_usage_errors_under_json_are_json(argv, error, tmp_path):
    out = subprocess.run([sys.executable, "-m", "vmem", *argv], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2
    data = json.loads(out.stdout)
    assert data["schema_version"] == 1 and data["error"] == error
    command = [a for a in argv if a != "--json"][0]
    assert data["hint"].startswith("see: ") and data["hint"].endswith(f"vmem {command} --help")


def test_usage_errors_without_json_stay_plain(tmp_path):
    out = subprocess.run([sys.executable, "-m", "vmem", "propose"], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == "" and "Missing argument 'TEXT'" in out.stderr
