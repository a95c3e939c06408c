"""`vmem diff`: the belief diff between two points of attested history (SPEC 6, 12), through the console entry
point: what became live, what stopped and why, what was published or edited, by whom; a hand edit is not a change."""

from __future__ import annotations

import json
import time

import pytest
from conftest import REVIEWER, git
from test_team import vmem_cli

from vmem import model

RITA = f"{REVIEWER[0]} <{REVIEWER[1]}>"
ALICE = "Alice Analyst <alice@example.com>"


def _json(store, *args, who=ALICE, code=0) -> dict:
    done = vmem_cli(store.root, *args, "--json", who=who, check=False)
    assert done.returncode == code, done.stdout + done.stderr
    return json.loads(done.stdout)["data"] if code == 0 else json.loads(done.stdout)


def _propose(store, text: str, *extra: str) -> str:
    return _json(store, "propose", text, *extra)["item"]["id"]


def _head(store) -> str:
    return git(store, "rev-parse", "HEAD").strip()


@pytest.mark.slow
def test_diff_names_what_became_live_what_stopped_and_why_by_whom(seeded):
    kept = _propose(seeded, "refunds settle three days after payment")
    retired = _propose(seeded, "ARR excludes trial accounts")
    lapsing = _propose(seeded, "the orders table is rebuilt nightly")
    for claim in (kept, retired, lapsing):
        vmem_cli(seeded.root, "approve", claim, who=RITA)
    time.sleep(1.1)  # commit times have one-second resolution
    since = _head(seeded)
    # in the range: a revocation with a reason, a supersession, an expiry swept, a new approval and a learning
    vmem_cli(seeded.root, "revoke", retired, "--reason", "finance changed the definition", who=RITA)
    newer = _json(seeded, "supersede", kept, "refunds settle two days after payment", "--reason", "new processor",
                  who=RITA)["item"]["id"]
    with seeded.acting_as(RITA), seeded.transaction("approve", items=[lapsing]) as tx:  # its time runs out
        tx.write({**tx.snapshot.item(lapsing), "expires_at": "2020-01-01T00:00:00Z"})
    vmem_cli(seeded.root, "expire")
    fresh = _propose(seeded, "invoices go out on the first business day")
    vmem_cli(seeded.root, "mandate", fresh, who=RITA)
    for entity, writer in (("tidewell", ALICE), ("corvane", "Bob <bob@example.com>"),
                           ("larkspur-health", "Chen <chen@example.com>")):
        learning = _json(seeded, "propose", "Healthcare buyers ask for audit logs before security review.",
                         "--from", entity, "-c", "industry:healthcare", who=writer)["item"]["id"]
    vmem_cli(seeded.root, "consolidate", who=RITA)
    vmem_cli(seeded.root, "publish", learning, who=RITA)
    pending = _propose(seeded, "a proposal still in review changes nothing agents are served")
    # a hand edit of a live statement: reported by check, not a change in belief
    path = seeded.root / model.item_path(fresh)
    path.write_text(path.read_text().replace("first business day", "second business day"))
    git(seeded, "commit", "-qam", "wording")

    data = _json(seeded, "diff", since)
    by_id = {row["id"]: row for row in data["changes"]}
    assert set(data["changes"][0]) == {"id", "kind", "change", "from_status", "to_status", "statement", "by", "at",
                                       "reason"}
    assert by_id[retired]["change"] == "revoked" and by_id[retired]["by"] == REVIEWER[1]
    assert by_id[retired]["reason"] == "finance changed the definition"
    assert by_id[kept]["change"] == "superseded" and newer in by_id[kept]["reason"]
    assert by_id[newer]["change"] == "approved" and by_id[newer]["from_status"] is None
    assert by_id[lapsing]["change"] == "expired"
    assert by_id[fresh]["change"] == "mandated" and "first business day" in by_id[fresh]["statement"]
    assert by_id[learning]["change"] == "published" and by_id[learning]["kind"] == "knowledge"
    assert pending not in by_id
    assert [r["at"] for r in data["changes"]] == sorted(r["at"] for r in data["changes"])
    human = vmem_cli(seeded.root, "diff", since).stdout
    assert "became live" in human and "stopped" in human and "finance changed the definition" in human
    assert "second business day" not in human + json.dumps(data)
    # the range up to `since` itself holds none of this; an empty range says so
    empty = _json(seeded, "diff", since, since)
    assert empty["changes"] == []
    assert "no change" in vmem_cli(seeded.root, "diff", since, since).stdout
    # the default is the last seven days, from before this store began: what is live now became live, and what
    # came and went inside the range (approved, then revoked or superseded) is no change at all
    week = {r["id"] for r in _json(seeded, "diff")["changes"]}
    assert week >= {newer, fresh, learning} and not week & {kept, retired, lapsing}
    # and the report's timelines page opens with the same week
    out = seeded.root.parent / "report"
    vmem_cli(seeded.root, "report", "--out", str(out))
    page = (out / "timelines.html").read_text()
    assert "Since last week" in page and newer in page and learning in page


def test_diff_refuses_what_it_cannot_read(seeded):
    for args, words in ((("no-such-rev",), "neither a date nor a revision"), (("tomorrow +1",), "neither"),
                        (("2099-01-01",), "in the future")):
        done = vmem_cli(seeded.root, "diff", *args, check=False)
        assert done.returncode == 2 and words in done.stderr, done.stderr
    done = vmem_cli(seeded.root, "diff", "2026-11-02", "2026-11-01", check=False)
    assert done.returncode == 2 and "earlier" in done.stderr
