"""vmem review: full cards (claims, revisions, knowledge, personal, prior rejections, contradictions), the queue's
JSON, scripted --yes, and the interactive path driven through its input: every action and its confirmation."""

from __future__ import annotations

import os
import sys

from conftest import ALICE, REVIEWER, commit_count

REVIEW_AS = f"Rita <{REVIEWER[1]}>"
BOB = "Bob Analyst <bob@example.com>"
TTY = {"VMEM_ASSUME_TTY": "1"}


def _queue(vmem, seeded):
    """Three proposed facts about different things (no two contradict), in queue order."""
    texts = ("orders are settled by the payments team", "the churn dashboard reads from the events table",
             "invoices go out from the billing system")
    for text in texts:
        vmem("propose", text, store=seeded)
    return [row["id"] for row in vmem.json("review", "--list")["data"]]


def _eligible(vmem, seeded) -> str:
    """One eligible learning: three enterprise customers, two writers, an episode with a quote."""
    text = "Enterprise buyers ask for named-user audit trails before the security review."
    first = vmem.json("propose", text, "--from", "corvane", "-c", "segment:enterprise", "--episode",
                      "ep-corvane-01", store=seeded)["data"]["item"]["id"]
    vmem("propose", text, "--from", "meridale", "-c", "segment:enterprise", store=seeded, who=BOB)
    vmem("propose", text, "--from", "pellucid-home", "-c", "segment:enterprise", store=seeded)
    vmem("consolidate", store=seeded)
    assert vmem.json("show", first)["data"]["status"] == "eligible"
    return first


def test_list_has_the_documented_fields_and_the_card(seeded, vmem):
    facts = _queue(vmem, seeded)
    rows = vmem.json("review", "--list")["data"]
    assert [r["id"] for r in rows] == facts and len(facts) == 3
    for row in rows:
        assert {"id", "kind", "status", "statement", "support_tier", "distinct_entities", "writers",
                "evidence_count", "merges", "gate"} <= set(row)
        assert {"title", "scope", "audience", "paths", "personal", "proposer", "age_days", "supersedes",
                "prior_rejections", "contradictions", "actions"} <= set(row)
        assert row["proposer"] == ALICE[1] and row["scope"] == "org" and row["personal"] is False
    # Alice is no reviewer: only what she may do is offered
    assert rows[0]["actions"] == ["edit", "skip", "quit"]
    assert vmem.json("review", "--list", "--status", "eligible")["data"] == []


def test_claim_card_shows_scope_title_paths_and_who(seeded, vmem):
    vmem("propose", "Corvane's renewal is owned by procurement", "--about", "corvane", "--title", "renewal owner",
         "--paths", "sql/**", "--domain", "sales", store=seeded)
    row = vmem.json("review", "--list", who=REVIEW_AS)["data"][0]
    assert (row["scope"], row["title"], row["paths"], row["domain"]) == ("entity:corvane", "renewal owner",
                                                                         ["sql/**"], "sales")
    assert row["actions"] == ["approve", "mandate", "reject", "edit", "skip", "quit"]
    shown = vmem("review", "--list").stdout
    for text in ("renewal owner", "scope entity:corvane", "domain sales", "paths sql/**",
                 f"proposed by {ALICE[1]}"):
        assert text in shown, text


def test_personal_items_are_marked_for_their_owner_and_absent_for_everyone_else(seeded, vmem):
    mine = vmem.json("propose", "my own shortcut for refund queries", "--personal", store=seeded)["data"]["item"]["id"]
    own = vmem("review", "--list").stdout
    assert "PERSONAL" in own and "private to alice@example.com" in own
    assert [r["id"] for r in vmem.json("review", "--list", who=REVIEW_AS)["data"]] == []
    assert "the review queue is empty" in vmem("review", "--list", who=REVIEW_AS).stdout
    assert "no item" in vmem("show", mine, code=1, who=REVIEW_AS).stderr
    assert mine not in vmem("list", who=REVIEW_AS).stdout
    assert vmem.json("show", mine)["data"]["card"]["personal"] is True


def test_revision_card_has_a_word_diff_against_the_item_it_supersedes(seeded, vmem):
    old = vmem.json("propose", "refunds settle three days after the request", store=seeded)["data"]["item"]["id"]
    vmem("approve", old, who=REVIEW_AS, store=seeded)
    new = vmem.json("propose", "refunds settle one day after the request since the v2 ETL", "--supersedes", old,
                    store=seeded)["data"]["item"]["id"]
    row = next(r for r in vmem.json("review", "--list")["data"] if r["id"] == new)
    assert row["supersedes"]["id"] == old and row["supersedes"]["status"] == "approved"
    assert row["supersedes"]["diff"] == [["=", "refunds settle"], ["-", "three days"], ["+", "one day"],
                                         ["=", "after the request"], ["+", "since the v2 ETL"]]
    shown = vmem("show", new).stdout
    assert f"revises {old} (approved)" in shown and "[-three days-]" in shown and "{+one day+}" in shown


def test_prior_rejection_of_the_same_statement_is_on_the_card(seeded, vmem):
    first = vmem.json("propose", "Quintara pays by card", "--about", "quintara", store=seeded)["data"]["item"]["id"]
    vmem("reject", first, "--reason", "they pay by wire", who=REVIEW_AS, store=seeded)
    again = vmem.json("propose", "Quintara pays by card", store=seeded)["data"]["item"]["id"]  # org this time
    row = next(r for r in vmem.json("review", "--list")["data"] if r["id"] == again)
    assert row["prior_rejections"][0]["id"] == first and row["prior_rejections"][0]["reason"] == "they pay by wire"
    assert f"rejected before as {first} by {REVIEWER[1]}: they pay by wire" in vmem("show", again).stdout


def test_knowledge_card_shows_evidence_quotes_support_and_gates(seeded, vmem):
    item = _eligible(vmem, seeded)
    row = vmem.json("review", "--list", who=REVIEW_AS)["data"][0]
    assert row["id"] == item and row["kind"] == "knowledge"
    assert (row["distinct_entities"], row["writers"], row["support_tier"]) == (3, 2, "emerging")
    assert row["gate"]["passed"] is True and set(row["gate"]["checks"]) >= {"deid", "k_support", "writers"}
    quotes = [q for ev in row["evidence"] for q in ev["quotes"]]
    assert any("traceable to a named user" in q for q in quotes)
    assert row["actions"] == ["publish", "reject", "edit", "skip", "quit"]  # no mandate on knowledge
    shown = vmem("show", item).stdout
    for text in ("support emerging: 3 distinct customers, 2 writers", "gate passed (deid ok", "evidence corvane/ep-corvane-01",
                 "traceable to a named user"):
        assert text in shown, text
    # human output without Python reprs
    assert "True" not in shown and "{'" not in shown and "None" not in shown


def test_show_has_no_python_reprs_for_a_claim(seeded, vmem):
    fact = vmem.json("propose", "a private fact", "--personal", store=seeded)["data"]["item"]["id"]
    shown = vmem("show", fact).stdout
    assert "personal True" not in shown and "True" not in shown and "{'" not in shown and "None" not in shown
    assert "PERSONAL" in shown and "served now: no" in shown


def test_without_a_terminal_review_refuses_unless_told_exactly_what_to_do(seeded, vmem):
    facts = _queue(vmem, seeded)
    before = commit_count(seeded)
    assert "needs a terminal" in vmem("review", code=2).stderr
    assert "--yes needs --action" in vmem("review", "--yes", code=2).stderr
    assert commit_count(seeded) == before
    vmem("review", "--yes", "--action", "approve", who=REVIEW_AS, store=seeded)
    assert commit_count(seeded) == before + 3
    assert {vmem.json("show", f)["data"]["status"] for f in facts} == {"approved"}


def test_interactive_review_every_claim_action_confirms(seeded, vmem, tmp_path):
    facts = _queue(vmem, seeded)
    vmem("propose", "a fourth fact for mandate", store=seeded)
    vmem("propose", "a fifth fact to skip", store=seeded)
    facts = [r["id"] for r in vmem.json("review", "--list")["data"]]
    editor = tmp_path / "editor.py"
    editor.write_text("import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
                      "p.write_text('invoices go out from the ledger system\\nstatus: approved\\n# note\\n')\n")
    env = {**TTY, "EDITOR": f"{sys.executable} {editor}"}
    # 1: reject, empty reason re-asked, then a reason; 2: approve; 3: edit, then approve; 4: mandate; 5: skip
    keys = "r\n\nr\nnot true\na\ne\na\nm\ns\n"
    out = vmem("review", who=REVIEW_AS, input=keys, env=env, store=seeded).stdout
    assert "a rejection needs a reason; nothing changed" in out
    assert f"rejected {facts[0]}" in out and f"approved {facts[1]}" in out and f"edited {facts[2]}" in out
    assert f"approved {facts[2]}" in out and f"mandated {facts[3]}" in out and f"skipped {facts[4]}" in out
    assert "1 approved" not in out and "2 approved, 1 mandated, 1 rejected, 1 edited, 1 skipped" in out
    shown = [vmem.json("show", f)["data"] for f in facts]
    assert [s["status"] for s in shown] == ["rejected", "approved", "approved", "mandatory", "proposed"]
    assert shown[0]["review"]["reason"] == "not true"
    # the edit touched the statement only: the 'status:' line is text of the statement, never a transition
    assert shown[2]["statement"] == "invoices go out from the ledger system status: approved"


def test_keys_not_legal_for_the_item_are_refused_and_quit_stops(seeded, vmem):
    item = _eligible(vmem, seeded)
    out = vmem("review", who=REVIEW_AS, input="m\nq\n", env=TTY, store=seeded).stdout
    assert "'m' is not an action for this item" in out
    assert "publish [a]" in out and "[m]andate" not in out
    assert "nothing reviewed" in out
    assert vmem.json("show", item)["data"]["status"] == "eligible"


def test_interactive_publish_of_knowledge_confirms(seeded, vmem):
    item = _eligible(vmem, seeded)
    out = vmem("review", who=REVIEW_AS, input="a\n", env=TTY, store=seeded).stdout
    assert f"published {item}" in out and "1 published" in out
    assert vmem.json("show", item)["data"]["status"] == "published"


def test_a_non_reviewer_is_offered_no_governance_key(seeded, vmem):
    _queue(vmem, seeded)
    out = vmem("review", input="a\nq\n", env=TTY, store=seeded).stdout
    assert "'a' is not an action for this item" in out


def test_a_failing_editor_changes_nothing(seeded, vmem):
    fact = _queue(vmem, seeded)[0]
    statement = vmem.json("show", fact)["data"]["statement"]
    before = commit_count(seeded)
    env = {**TTY, "EDITOR": "false"}
    result = vmem("review", who=REVIEW_AS, input="e\nq\n", env=env, store=seeded)
    assert "the editor exited with status 1; nothing changed" in result.stdout
    assert commit_count(seeded) == before
    assert vmem.json("show", fact)["data"]["statement"] == statement


def test_an_edit_that_still_names_a_customer_is_refused(seeded, vmem, tmp_path):
    item = vmem.json("propose", "Larkspur Health wants audit logs early.", "--from", "larkspur-health",
                     "-c", "industry:healthcare", store=seeded)["data"]["item"]
    assert item["status"] == "quarantined"
    from vmem.ops.review import edit

    fixer = tmp_path / "fix.py"
    fixer.write_text("import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
                     "p.write_text(p.read_text().replace('Larkspur Health', 'Healthcare buyers'))\n")
    edited = edit(seeded, item["id"], editor=f"{sys.executable} {fixer}")
    assert edited["status"] == "candidate" and edited["canonical"] == "healthcare buyers wants audit logs early"


def test_single_key_on_a_real_terminal_needs_no_enter(seeded, vmem, tmp_path):
    """Through a pseudo-terminal: one key press per action, no Enter (the path a person uses)."""
    import pty
    import select
    import subprocess
    import time

    facts = _queue(vmem, seeded)
    name, email = REVIEW_AS[:-1].split(" <")
    env = {**os.environ, "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email, "GIT_AUTHOR_NAME": name,
           "GIT_AUTHOR_EMAIL": email, "COLUMNS": "120"}
    env.pop("VMEM_ASSUME_TTY", None)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "vmem", "review"], stdin=follower, stdout=follower,
                            stderr=follower, env=env, cwd=seeded.root, close_fds=True)
    os.close(follower)
    seen = b""

    def read_until(marker: bytes, timeout: float = 60, after: bytes = b"") -> None:
        nonlocal seen
        end = time.time() + timeout

        def found() -> bool:
            start = seen.find(after) if after else 0
            return start >= 0 and marker in seen[start:]
        while not found() and time.time() < end:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(leader, 65536)
                except OSError:
                    break
        assert found(), seen.decode(errors="replace")[-2000:]

    try:
        read_until(b"[s]kip")
        os.write(leader, b"a")  # no Enter
        read_until(f"approved {facts[0]}".encode())
        read_until(b"[s]kip", after=b"2/3")
        os.write(leader, b"q")
        read_until(b"1 approved")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    assert vmem.json("show", facts[0])["data"]["status"] == "approved"
    assert vmem.json("show", facts[1])["data"]["status"] == "proposed"


def test_a_rejected_personal_claim_of_someone_else_is_not_named_on_a_card(seeded, vmem):
    """Regression: prior rejections must not reveal another person's personal claim."""
    theirs = vmem.json("propose", "Quintara pays late", "--personal", "--about", "quintara", store=seeded,
                       who=BOB)["data"]["item"]["id"]
    vmem("reject", theirs, "--reason", "private note", who=REVIEW_AS, store=seeded)
    mine = vmem.json("propose", "Quintara pays late", store=seeded)["data"]["item"]["id"]
    row = next(r for r in vmem.json("review", "--list")["data"] if r["id"] == mine)
    assert row["prior_rejections"] == []
    own = next(r for r in vmem.json("review", "--list", who=BOB)["data"] if r["id"] == mine)
    assert [p["id"] for p in own["prior_rejections"]] == [theirs]
