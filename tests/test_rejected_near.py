"""A proposal near a rejected claim answers with the rejection's id and reason (issue 30), on every face: the
console script's text and --json, the card a reviewer sees, and MCP's propose. An identical canonical statement is
still refused (exit 1, nothing written); a reworded one lands as a proposal, flagged, with the rejection on its
card; a decisive difference (a number, a negation, an opposite) is another claim and is not flagged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REVIEWER, commit_count

VMEM = str(Path(sys.executable).parent / "vmem")  # the console script under test
RITA = f"{REVIEWER[0]} <{REVIEWER[1]}>"
REJECTED = "ARR includes the one-time setup fees"
REASON = "setup fees are one-time revenue, never ARR"


def cli(*args: str, code: int = 0, who: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if who:
        name, email = who[:-1].split(" <")
        env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    done = subprocess.run([VMEM, *args], capture_output=True, text=True, env=env, cwd=cwd)
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    return done


def propose(text: str, *args: str, code: int = 0, who: str | None = None) -> dict:
    """`vmem propose --json`'s data, and what it said on stderr (the notes: --json keeps stdout for the data)."""
    done = cli("propose", text, *args, "--json", code=code, who=who)
    return {**json.loads(done.stdout)["data"], "stderr": done.stderr}


def reject(item_id: str, reason: str) -> None:
    cli("review", "--yes", "--action", "reject", "--reason", reason, who=RITA)
    assert json.loads(cli("show", item_id, "--json").stdout)["data"]["status"] == "rejected"


@pytest.fixture
def rejected(seeded) -> str:
    item_id = propose(REJECTED)["item"]["id"]
    reject(item_id, REASON)
    return item_id


def test_a_reworded_resubmission_lands_flagged_with_the_rejection(seeded, rejected):
    before = commit_count(seeded)
    done = cli("propose", "ARR includes the one-time setup fee.")
    assert f"warning: a statement like this was rejected as {rejected}: {REASON}" in done.stderr
    assert f"rejected: {REJECTED}" in done.stderr and "proposed anyway" in done.stderr
    assert "proposed (claim, org): ARR includes the one-time setup fee." in done.stdout
    assert commit_count(seeded) == before + 1  # it still lands: a reviewer decides, seeing the rejection


def test_a_reworded_resubmission_says_the_rejection_as_data(seeded, rejected):
    data = propose("ARR includes one-time setup fees")  # --json: the same answer, as data
    assert data["action"] == "created" and data["item"]["status"] == "proposed"
    [prior] = data["prior_rejections"]
    assert (prior["id"], prior["reason"], prior["statement"], prior["match"], prior["by"]) == (
        rejected, REASON, REJECTED, "aligned", REVIEWER[1])
    assert f"rejected as {rejected}: {REASON}" in data["stderr"]

    card = json.loads(cli("show", data["item"]["id"], "--json").stdout)["data"]["card"]
    assert [(p["id"], p["reason"], p.get("match")) for p in card["prior_rejections"]] == [
        (rejected, REASON, "aligned")]
    shown = cli("show", data["item"]["id"]).stdout
    assert f"rejected before as {rejected}" in " ".join(shown.split()) and REASON.split()[0] in shown


def test_the_same_canonical_statement_is_still_refused(seeded, rejected):
    before = commit_count(seeded)
    data = propose("ARR includes the one-time setup FEES!", code=1)
    assert data["action"] == "previously_rejected" and data["item"]["id"] == rejected
    assert [(p["id"], p["reason"], p["match"]) for p in data["prior_rejections"]] == [(rejected, REASON, "canonical")]
    assert commit_count(seeded) == before


@pytest.mark.parametrize("hidden", ["\u2063", "\u200b", "\u00ad", "\ufe0f", "\U000e0041", "\u180b", "\u3164",
                                    "\u202e"])
def test_an_invisible_character_does_not_make_a_rejected_claim_new(seeded, rejected, hidden):
    """Every reader ignores the one set of characters that render as nothing (vmem.text.ignorable): "AR\u2063R"
    is the rejected ARR claim, refused like it, and the contradiction words and the de-id gate read it the same."""
    from vmem.gates import deid
    from vmem.ops.contradictions import words
    from vmem.text import canonicalize, ignorable

    text = REJECTED.replace("ARR", f"AR{hidden}R")
    data = propose(text, code=1)
    assert data["action"] == "previously_rejected" and data["item"]["id"] == rejected
    assert ignorable(hidden) and canonicalize(text) == canonicalize(REJECTED) and words(text) == words(REJECTED)
    assert deid.ignorable is ignorable  # the gate's reading is the same function, not a copy


@pytest.mark.parametrize("text", [
    "ARR excludes the one-time setup fees",  # the opposite: it agrees with the rejection
    "ARR never includes the one-time setup fees",  # a negation
    "ARR includes the 2 one-time setup fees",  # a number
    "Churn reports include the one-time setup fees",  # another subject
])
def test_another_claim_is_not_flagged(seeded, rejected, text):
    data = propose(text)
    assert data["action"] == "created" and data["prior_rejections"] == []
    assert "rejected" not in data["stderr"]


def test_only_the_same_scope_and_never_another_persons_personal_claim(seeded, rejected):
    assert propose("ARR includes the one-time setup fee", "--about", "tidewell")["prior_rejections"] == []
    bob = "Bob Builder <bob@example.com>"
    mine = propose("Bob's ARR includes the one-time setup fees", "--personal", who=bob)["item"]["id"]
    cli("reject", mine, "--reason", "private note", who=RITA)
    # the same rewording: Alice is not told about Bob's personal claim, Bob is
    assert propose("Bob's ARR includes one-time setup fees")["prior_rejections"] == []
    assert [p["id"] for p in propose("Bob's ARR includes one-time setup fees", "--personal", who=bob)
            ["prior_rejections"]] == [mine]


JUDGE = """
import json, os, sys
pair = json.load(sys.stdin)
with open({log!r}, "a") as f:
    f.write(json.dumps([pair["a"]["statement"], pair["b"]["statement"]]) + "\\n")
if os.path.exists({broken!r}):
    sys.exit(3)
same = "once" in pair["a"]["statement"] and "setup" in pair["a"]["statement"]
print(json.dumps({{"same": same, "reason": "both count setup fees as recurring revenue" if same else "other"}}))
"""


def test_the_configured_judge_decides_what_the_floor_leaves_open(seeded, rejected, tmp_path):
    from vmem.store import codec

    log, broken = tmp_path / "judged.jsonl", tmp_path / "broken"
    script = tmp_path / "judge.py"
    script.write_text(JUDGE.format(log=str(log), broken=str(broken)))
    with seeded.acting_as(RITA), seeded.transaction("policy", summary="a judge") as tx:  # a reviewer's commit
        raw = codec.load((seeded.root / "vmem.yaml").read_text(), "vmem.yaml")
        raw["knowledge"]["judge"] = {"command": [sys.executable, str(script)], "timeout_s": 20}
        tx.write_file("vmem.yaml", raw)
    text = "ARR counts the setup fees that are charged only once"  # words the floor cannot align: open
    data = propose(text)
    [prior] = data["prior_rejections"]
    assert (prior["id"], prior["reason"], prior["match"]) == (rejected, REASON, "judge")
    assert prior["why"] == "the merge judge says the same: both count setup fees as recurring revenue"
    assert [json.loads(line) for line in log.read_text().splitlines()] == [[text, REJECTED]]
    # the floor's decisions never reach the judge: an aligned rewording, a negation
    log.unlink()
    assert propose("ARR includes the one-time setup fee")["prior_rejections"][0]["match"] == "aligned"
    assert propose("ARR never includes the one-time setup fees")["prior_rejections"] == []
    # (the judge may still be asked whether a proposal repeats an open claim: never about the rejected one)
    asked = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    assert not [pair for pair in asked if REJECTED in pair], asked
    # a number on one side only is no measured difference ("3" vs "3 years"): the judge decides it, here "other"
    log.unlink(missing_ok=True)
    assert propose("ARR includes the 2 one-time setup fees")["prior_rejections"] == []
    assert ["ARR includes the 2 one-time setup fees", REJECTED] in [json.loads(line) for line in
                                                                    log.read_text().splitlines()]
    # a failing judge is no warning, never a failed proposal
    broken.touch()
    data = propose("ARR counts the setup fees we charge only once")  # (it repeats the first proposal above)
    assert data["action"] in ("created", "unchanged") and data["prior_rejections"] == []


def test_mcp_propose_answers_with_the_rejection(seeded, rejected, tmp_path):
    pytest.importorskip("mcp")
    from test_mcp import _run

    _, _, results = _run(seeded, tmp_path, [("propose", {"statement": "ARR includes the one-time setup fee."})])
    agent = results[0].structured_content
    assert agent["action"] == "created"
    assert [(p["id"], p["reason"]) for p in agent["prior_rejections"]] == [(rejected, REASON)]
