"""vmem review: the queue, its JSON, scripted --yes, and the interactive path driven through its input."""

from __future__ import annotations

import sys

from conftest import REVIEWER, commit_count

REVIEW_AS = f"Rita <{REVIEWER[1]}>"


def _queue(vmem, seeded):
    """Three proposed facts, in the order the queue presents them."""
    for n in range(3):
        vmem("propose", f"fact number {n} about orders", store=seeded)
    return [row["id"] for row in vmem.json("review", "--list")["data"]]


def test_list_has_the_documented_fields_and_needs_no_tty(seeded, vmem):
    facts = _queue(vmem, seeded)
    rows = vmem.json("review", "--list")["data"]
    assert [r["id"] for r in rows] == facts and len(facts) == 3
    for row in rows:
        assert {"id", "kind", "status", "statement", "support_tier", "distinct_entities", "writers",
                "evidence_count", "merges", "gate"} <= set(row)
    assert vmem.json("review", "--list", "--status", "eligible")["data"] == []


def test_without_a_terminal_review_refuses_unless_told_exactly_what_to_do(seeded, vmem):
    facts = _queue(vmem, seeded)
    before = commit_count(seeded)
    assert "needs a terminal" in vmem("review", code=2).stderr
    assert "--yes needs --action" in vmem("review", "--yes", code=2).stderr
    assert commit_count(seeded) == before
    vmem("review", "--yes", "--action", "approve", who=REVIEW_AS, store=seeded)
    assert commit_count(seeded) == before + 3
    assert {vmem.json("show", f)["data"]["status"] for f in facts} == {"approved"}


def test_interactive_review_approve_reject_edit_and_quit(seeded, vmem, tmp_path):
    facts = _queue(vmem, seeded)
    editor = tmp_path / "editor.py"
    editor.write_text("import sys, pathlib, re\np = pathlib.Path(sys.argv[1])\n"
                      "p.write_text(re.sub(r'fact number \\d about orders', 'fact, edited', p.read_text()))\n")
    env = {"VMEM_ASSUME_TTY": "1", "EDITOR": f"{sys.executable} {editor}"}
    # item 1: reject with an empty reason (re-asked), then a reason; item 2: approve; item 3: edit, approve
    keys = "r\n\nr\nnot true\na\ne\na\n"
    result = vmem("review", who=REVIEW_AS, input=keys, env=env, store=seeded)
    assert "a rejection needs a reason" in result.stdout
    shown = [vmem.json("show", f)["data"] for f in facts]
    assert [s["status"] for s in shown] == ["rejected", "approved", "approved"]
    assert shown[0]["review"]["reason"] == "not true"
    assert shown[2]["statement"] == "fact, edited"


def test_a_failing_editor_changes_nothing(seeded, vmem):
    fact = _queue(vmem, seeded)[0]
    before = commit_count(seeded)
    env = {"VMEM_ASSUME_TTY": "1", "EDITOR": "false"}
    result = vmem("review", who=REVIEW_AS, input="e\nq\n", env=env, store=seeded)
    assert "the editor exited with status 1; nothing changed" in result.stdout
    assert commit_count(seeded) == before
    assert vmem.json("show", fact)["data"]["statement"].startswith("fact number")


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
