"""Input that must not be trusted because of where it came from: text arguments that are not UTF-8, MCP arguments
the tool does not take, committed project configs that climb out, and plain `vmem check` on a forged approval.
Each goes through the real console script (`vmem` beside this interpreter) or, for MCP, the SDK's own client.

1. A statement (or title, reason, quote...) carrying bytes that are not UTF-8 reached argv as lone surrogates
   (Python's surrogateescape) and was committed as a YAML file with `\\uDCFF` escapes nobody could read back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REVIEWER, commit_count

VMEM = Path(sys.executable).with_name("vmem")  # the console script, as a user's shell runs it


def vmem_bytes(*args: str | bytes, code: int, env: dict | None = None) -> tuple[str, str]:
    """`vmem ARGS` with ARGS passed as the bytes a shell would pass (str arguments as UTF-8): (stdout, stderr)."""
    argv = [str(VMEM), *(a if isinstance(a, bytes) else a.encode() for a in args)]
    done = subprocess.run(argv, capture_output=True, env={**os.environ, **(env or {})}, timeout=300)
    out, err = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    assert done.returncode == code, (args, done.returncode, out, err)
    assert "Traceback" not in err, err
    return out, err


# -- 1. text arguments that are not UTF-8 -------------------------------------------------------------------------

BAD = b"ARR \xff\xfe includes fees"  # what a latin-1 terminal or a script reading a binary file passes


def _claim(seeded, vmem, text: str = "ARR excludes one-off fees") -> str:
    return vmem.json("propose", text, store=seeded)["data"]["item"]["id"]


@pytest.mark.parametrize("args, named", [
    (["propose", BAD], "TEXT"),
    (["propose", "ARR excludes fees", "--title", b"ARR \xe9"], "--title"),
    (["--json", "propose", BAD], "TEXT"),  # the typer face (a leading global option skips the typer-free one)
    (["propose", "ARR excludes fees", "--paths", b"src/\xff/*.sql"], "--paths"),
    (["propose", b"a learning \xff", "--from", "tidewell", "-c", "industry:healthcare"], "TEXT"),
    (["supersede", "{id}", BAD], "TEXT"),
    (["supersede", "{id}", "ARR excludes one-off and setup fees", "--reason", b"finance \xff said so"], "--reason"),
    (["reject", "{id}", "--reason", b"wrong \xff"], "--reason"),
    (["verify", "{id}", "--kind", "correction", "--corrected", BAD], "--corrected"),
    (["forget", "--entity", "tidewell", "--reason", b"asked \xff"], "--reason"),
    (["entity", "add", "brightfield", "--name", b"Bright\xe9field"], "--name"),
    (["episode", "add", "tidewell", "--quote", b"they said \xff"], "--quote"),
])
def test_text_that_is_not_utf8_is_a_usage_error_and_nothing_is_committed(seeded, vmem, args, named):
    """Regression (1): `vmem propose $'ARR \\xff\\xfe includes fees'` committed `statement: "ARR \\uDCFF\\uDCFE
    includes fees"`; every text argument of every command now gets one usage error naming it, exit 2."""
    claim = _claim(seeded, vmem)
    before = commit_count(seeded)
    args = [a.replace("{id}", claim) if isinstance(a, str) else a for a in args]
    as_rita = {"GIT_COMMITTER_NAME": "Rita Reviewer", "GIT_COMMITTER_EMAIL": REVIEWER[1]}
    out, err = vmem_bytes(*args, code=2, env=as_rita if args[0] in ("reject", "forget") else None)
    if "--json" in args:
        payload = json.loads(out)
        assert set(payload) == {"schema_version", "error", "hint"}, payload
        message, hint = payload["error"], payload["hint"]
    else:
        assert out == "" and len(err.splitlines()) == 2, err  # the error, then the fix
        message, hint = err.splitlines()[0], err.splitlines()[1]
        assert message.startswith("error: "), err
    assert f"{named} is not valid UTF-8" in message, message
    assert "UTF-8" in hint, hint
    assert commit_count(seeded) == before
    assert subprocess.run(["git", "-C", str(seeded.root), "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""


def test_the_error_shows_the_bytes_that_are_not_utf8(seeded):
    _, err = vmem_bytes("propose", BAD, code=2)
    assert err.splitlines()[0] == "error: TEXT is not valid UTF-8 (the bytes \\xff\\xfe at character 5)", err


def test_utf8_text_and_a_store_path_that_is_not_utf8_are_still_fine(seeded, tmp_path, vmem):
    """Only text is judged: a file-system path is the machine's business (Linux allows any bytes in a name)."""
    vmem_bytes("propose", "ARR schließt Gebühren aus — ✓".encode(), code=0)
    odd = os.fsencode(tmp_path) + b"/st\xffore"
    subprocess.run([b"git", b"clone", b"-q", os.fsencode(seeded.root), odd], check=True)  # a clone, named so
    out, _ = vmem_bytes("--store", odd, "list", "--json", code=0)
    assert isinstance(json.loads(out)["data"], list)
