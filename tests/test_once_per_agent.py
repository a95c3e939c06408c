"""Once, and never silently lost, through the installed `vmem` console script on a real git store.

A mandatory rule reaches Claude Code once: the SessionStart hook's context gives only the rules this sync added
to or changed in the files the session reads (it may have read them before the hook finished); a rule those
files already held is named there, never repeated, whether Claude Code reads vmem's rules directory or vmem's
section of AGENTS.md (SPEC 13). And publishing a learning checks it against what is live, as approving a claim
does: `vmem publish` names every open item the new learning contradicts (SPEC 14)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from conftest import REVIEWER
from test_sync import mixed  # noqa: F401 - the fixture: every status, scope, audience and personal case

VMEM = shutil.which("vmem")
RITA = f"{REVIEWER[0]} <{REVIEWER[1]}>"
OLD_RULE = "MANDATORY never join orders on email"  # mixed's mandatory rule that applies everywhere
NEW_RULE = "Invoices go out on the first business day of the month"


def vmem(*args: str, store: Path, project: Path | None = None, who: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "VMEM_STORE": str(store)}
    if project is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project)
    if who is not None:
        name, email = who[:-1].split(" <")
        env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    done = subprocess.run([VMEM, *args], cwd=project or store, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stdout, done.stderr)
    return done


def session(store: Path, project: Path, *targets: str) -> str:
    """A Claude Code session starting in PROJECT: the hook's additionalContext."""
    argv = [a for t in targets for a in ("--target", t)]
    answer = json.loads(vmem("sync", "--hook", *argv, store=store, project=project).stdout)
    assert "systemMessage" not in answer, answer
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert len(context) < 10_000 and "<!-- vmem:" not in context
    return context


def later(project: Path) -> None:
    """The next session starts an hour after the files were written (one just seconds later might have started
    before they were, as two windows opened together do: it is given them too)."""
    hour_ago = time.time() - 3600
    for path in project.rglob("*"):
        os.utime(path, (hour_ago, hour_ago), follow_symlinks=False)


def read_by_claude_code(project: Path) -> str:
    """The text of every file of PROJECT that Claude Code loads at start (no CLAUDE.md here: AGENTS.md too)."""
    files = [*sorted((project / ".claude" / "rules").rglob("*.md")), project / "AGENTS.md", project / "CLAUDE.md"]
    return "".join(p.read_text() for p in files if p.is_file())


def _mandate(store: Path, text: str) -> str:
    item = json.loads(vmem("propose", text, "--json", store=store).stdout)["data"]["item"]["id"]
    vmem("mandate", item, store=store, who=RITA)
    return item


def test_a_rule_the_rules_files_already_held_is_named_in_the_hooks_context_not_repeated(mixed, tmp_path):  # noqa: F811
    """Issue: a mandatory rule reached Claude Code twice, in its rules file and again in the hook's context."""
    seeded, items = mixed
    store, project = seeded.root, tmp_path / "project"
    project.mkdir()
    old = items["mandatory"]["id"]

    first = session(store, project)  # the files are written now: the session may have read the dir before
    assert (project / ".claude" / "rules" / "vmem" / f"km_{old}.md").is_file()
    assert first.count(OLD_RULE) == 1 and "MANDATORY-PATHS" not in first and "APPROVED" not in first

    later(project)
    second = session(store, project)  # nothing changed: the files gave the session every rule
    assert OLD_RULE not in second and "MANDATORY-PATHS" not in second
    assert f"{old} (Join on ids)" in second and "already has" in second and "\n" not in second

    new = _mandate(store, NEW_RULE)
    later(project)
    third = session(store, project)
    assert third.count(NEW_RULE) == 1 and OLD_RULE not in third and old in third
    assert (project / ".claude" / "rules" / "vmem" / f"km_{new}.md").is_file()

    vmem("approve", json.loads(vmem("propose", "ARR is booked monthly", "--json", store=store).stdout)
         ["data"]["item"]["id"], store=store, who=RITA)
    later(project)
    fourth = session(store, project)  # km_approved.md changed; no mandatory rule did
    assert OLD_RULE not in fourth and NEW_RULE not in fourth and "ARR is booked monthly" not in fourth


def test_where_claude_code_reads_agents_md_a_rule_is_never_in_its_context_twice(mixed, tmp_path):  # noqa: F811
    seeded, items = mixed
    store = seeded.root
    for targets in (["agents-md"], ["claude", "agents-md"]):
        project = tmp_path / "-".join(targets)
        project.mkdir()
        (project / "AGENTS.md").write_text("# Ours\n\nRun `make check` before pushing.\n")  # no CLAUDE.md
        first = session(store, project, *targets)
        assert first.count(OLD_RULE) == 1 and "vmem's section of AGENTS.md" in first
        assert not (project / ".claude" / "rules" / "vmem").exists()  # AGENTS.md is its one copy
        assert read_by_claude_code(project).count(OLD_RULE) == 1

        later(project)
        second = session(store, project, *targets)
        assert OLD_RULE not in second and items["mandatory"]["id"] in second, targets
        assert (read_by_claude_code(project) + second).count(OLD_RULE) == 1

        _mandate(store, f"{NEW_RULE} ({targets[0]})")  # the section is rewritten: only the new rule is new
        later(project)
        third = session(store, project, *targets)
        assert third.count(NEW_RULE) == 1 and OLD_RULE not in third, targets
        assert read_by_claude_code(project).count(OLD_RULE) == 1


def test_a_session_that_reads_none_of_the_files_gets_every_rule_each_time(mixed, tmp_path):  # noqa: F811
    """A CLAUDE.md that does not import AGENTS.md: Claude Code reads none of the agents-md target's files, so the
    hook's context is where its mandatory rules come from, every session."""
    seeded, _ = mixed
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Ours\n")
    for _ in range(2):
        context = session(seeded.root, project, "agents-md")
        assert context.count(OLD_RULE) == 1 and "MANDATORY-PATHS" not in context
        later(project)


def test_a_session_starting_just_before_the_files_were_written_gets_the_rule(mixed, tmp_path):  # noqa: F811
    """Two sessions opened together: the second one's hook finds the files the first one's hook just wrote, which
    its session may not have read; it is given the rule too (repeated at most once, never lost)."""
    seeded, _ = mixed
    project = tmp_path / "project"
    project.mkdir()
    assert session(seeded.root, project).count(OLD_RULE) == 1
    assert session(seeded.root, project).count(OLD_RULE) == 1


# -- publish checks the new learning against what is live ------------------------------------------------------

WEEKS = "Healthcare buyers finish their security review within three weeks."
# three weeks vs three MONTHS is not found today: the detectors compare numbers, not the unit after them
MONTHS = "Healthcare buyers finish their security review within eight weeks."
WRITERS = (("tidewell", "Alice Analyst <alice@example.com>"), ("corvane", "Bob Analyst <bob@example.com>"),
           ("larkspur-health", "Alice Analyst <alice@example.com>"))  # three customers, two writers


def _learning(store: Path, text: str) -> str:
    for entity, writer in WRITERS:
        found = json.loads(vmem("propose", text, "--from", entity, "-c", "industry:healthcare", "--json",
                                store=store, who=writer).stdout)["data"]["item"]["id"]
    return found


def test_publish_names_the_learning_the_new_one_contradicts_in_json_and_in_words(seeded):
    """Issue: contradictions were checked after approve and after publishing from review, never after publish."""
    from vmem.ops.contradictions import warning

    store = seeded.root
    weeks, months = _learning(store, WEEKS), _learning(store, MONTHS)
    vmem("consolidate", store=store, who=RITA)
    listed = json.loads(vmem("list", "--status", "eligible", "--json", store=store).stdout)["data"]
    assert {weeks, months} <= {i["id"] for i in listed}

    first = vmem("publish", weeks, store=store, who=RITA)  # the human face
    assert "published, support tier" in first.stdout
    assert warning({"id": months, "status": "eligible", "statement": MONTHS,
                    "reason": "different numbers 3 weeks vs 8 weeks"}, proposal=False) in first.stderr

    second = vmem("publish", months, "--json", store=store, who=RITA)
    found = json.loads(second.stdout)["data"]["contradictions"]
    assert [(c["id"], c["status"], c["rules"]) for c in found] == [(weeks, "published", ["number"])]
    assert found[0]["statement"] == WEEKS and found[0]["reason"] == "different numbers 8 weeks vs 3 weeks"
    assert warning(found[0], proposal=False) in second.stderr  # the one wording approve uses, also under --json
