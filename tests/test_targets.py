"""Sync targets (SPEC 13): golden files per format, a user's AGENTS.md around vmem's section, and the attacks a
hostile teammate would try on the files sync writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_sync import RITA, _claim, mixed  # noqa: F401 - the fixture: every status, scope, audience and personal case
from vmem.ops.bundle import Bundle
from vmem.targets import NAMES, get
from vmem.targets.text import marker

ALL = [flag for name in NAMES for flag in ("--target", name)]
# every target's files, written in two syncs: in one, AGENTS.md would stand in for Cursor's (one copy per agent)
NATIVE = [flag for name in NAMES if name != "agents-md" for flag in ("--target", name)]
USER_AGENTS = "# Our project\n\nHand-written guidance: run `make test` before pushing.\n"
SECTIONS = ("AGENTS.md", "copilot-instructions.md")  # the files vmem owns a marked section of


def _rule(rid, status, statement, title=None, paths=(), kind="claim", **extra):
    rule = {"id": rid, "kind": kind, "status": status, "title": title, "statement": statement, "scope": "org",
            "paths": list(paths), "by": "rita@example.com", "at": "2026-11-29T10:00:00Z", **extra}
    if kind == "knowledge":
        rule["tier"] = "established"
    else:
        rule["confidence"] = 0.9
    return rule


BUNDLE = Bundle(
    mandatory=[_rule("c-000000000001", "mandatory", "Never join orders on email; join on customer_id.",
                     title="Join on ids"),
               _rule("c-000000000002", "mandatory", "Use placed_at, not completed_at, in SQL funnels.",
                     paths=["**/*.sql"])],
    ranked=[_rule("c-000000000003", "approved", "ARR excludes trials and one-off services.", title="ARR"),
            _rule("k-000000000004", "published", "Healthcare buyers ask for audit logs early.", kind="knowledge"),
            _rule("c-000000000005", "approved", "Staging models only rename columns.", title="dbt staging",
                  paths=["models/staging/**", "bad,glob"], scope="entity:meridale")],
    store_name="memory", commit="a" * 40, store_id="0123456789abcdef")
MARK = marker("memory", "a" * 40, "0123456789abcdef")


def test_every_target_module_is_registered_under_its_own_name():
    """A new agent format is one module plus one line in vmem.targets.REGISTRY: a module without its line (or a
    line naming another module's target) fails here, and exactly one target is the one vmem.yaml's sync.dir and
    `vmem sync --dir` place."""
    import pkgutil

    import vmem.targets as registry

    modules = {m.name for m in pkgutil.iter_modules(registry.__path__)} - {"text"}  # text: what targets share
    assert set(registry.REGISTRY.values()) == modules
    assert all(get(name).name == name for name in NAMES)
    assert registry.DEFAULT in NAMES
    assert [name for name in NAMES if get(name).configured_dir] == ["claude"]


@pytest.mark.parametrize("name", NAMES)
def test_each_target_renders_its_golden_files(name, snapshot):
    files = get(name).render(BUNDLE, MARK)
    assert files == snapshot
    for file, content in files.items():
        section = file in SECTIONS
        assert content.count("<!-- vmem:") == (2 if section else 1)
        assert content.count("ARR excludes trials") <= 1  # a statement once, never heading + body
        assert content.count("**dbt staging**") == (1 if name == "agents-md" else 0)  # a heading shows it
    every = "".join(files.values())  # one agent reads all of a target's files: each rule is in one of them
    for rule in BUNDLE.mandatory + BUNDLE.ranked:
        assert every.count(rule["statement"][:30]) == 1, (name, rule["id"])


def test_agents_md_section_golden_and_user_text_round_trip(snapshot, tmp_path):
    from vmem.ops.writer import Owner

    target, owner = get("agents-md"), Owner("memory", "0123456789abcdef")
    section = target.render(BUNDLE, MARK)["AGENTS.md"]
    merged = target.merge(USER_AGENTS.encode(), section, owner, tmp_path / "AGENTS.md")
    assert merged.decode() == snapshot
    assert merged.decode().startswith(USER_AGENTS)
    again = target.merge(merged + b"\n## Added later by hand\n", section.replace("ARR", "Annual ARR"), owner,
                         tmp_path / "AGENTS.md")
    assert again.decode().startswith(USER_AGENTS) and again.decode().endswith("\n## Added later by hand\n")
    assert target.merge(merged, None, owner, tmp_path / "AGENTS.md") == USER_AGENTS.encode()
    assert target.merge(None, section, owner, tmp_path / "AGENTS.md") == section.encode()
    assert target.merge(section.encode(), None, owner, tmp_path / "AGENTS.md") is None


def _sync_every(vmem) -> dict:
    native, agents = vmem.json("sync", *NATIVE)["data"], vmem.json("sync", "--target", "agents-md")["data"]
    merged = {key: native[key] + agents[key] for key in ("written", "unchanged", "deleted")}
    return {**merged, "targets": {**native["targets"], **agents["targets"]}}


def _texts(project: Path) -> str:
    files = [p for p in project.rglob("*") if p.is_file()]
    return "\n".join(p.read_text() for p in sorted(files))


def test_every_target_serves_exactly_the_trusted_set_and_keeps_user_files(mixed, vmem, tmp_path, monkeypatch):  # noqa: F811
    store, items = mixed
    project = tmp_path / "project"
    (project / ".github" / "instructions").mkdir(parents=True)
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / "AGENTS.md").write_text(USER_AGENTS)
    (project / ".github" / "instructions" / "python.instructions.md").write_text("---\napplyTo: '**/*.py'\n---\nOurs\n")
    (project / ".cursor" / "rules" / "style.mdc").write_text("---\nalwaysApply: true\n---\nOurs\n")
    monkeypatch.chdir(project)
    data = _sync_every(vmem)
    assert set(data["targets"]) == set(NAMES)
    text = _texts(project)
    for served in ("MANDATORY ", "MANDATORY-PATHS", "APPROVED arr", "APPROVED-PATHS", "PUBLISHED"):
        assert text.count(served) >= 4, served  # in every target
    for never in ("PROPOSED", "REJECTED", "REVOKED", "SUPERSEDED", "EXPIRED", "PERSONAL", "GROUP", "SCOPED",
                  "OTHER-SCOPE", "ELIGIBLE", "x@e.com"):
        assert never not in text, never
    for name, info in data["targets"].items():  # the summary's token counts are what was written
        written = 0
        for file in info["files"]:
            full = (Path(info["dir"]) / file).read_text()
            written += len(full[full.index("<!-- vmem:start"):] if Path(file).name in SECTIONS else full)
        assert info["tokens"] == written // 4, name
    assert (project / "AGENTS.md").read_text().startswith(USER_AGENTS)
    assert (project / ".github" / "instructions" / "python.instructions.md").read_text().endswith("Ours\n")
    assert (project / ".cursor" / "rules" / "style.mdc").read_text().endswith("Ours\n")
    stamps = {p: p.stat().st_mtime_ns for p in project.rglob("*") if p.is_file()}
    again = _sync_every(vmem)
    assert again["written"] == [] and again["deleted"] == []
    assert {p: p.stat().st_mtime_ns for p in project.rglob("*") if p.is_file()} == stamps
    vmem("revoke", items["mandatory"]["id"], who=RITA, store=store)
    third = _sync_every(vmem)
    assert "MANDATORY never join" not in _texts(project)
    assert any(p.endswith(f"km_{items['mandatory']['id']}.mdc") for p in third["deleted"])
    assert (project / "AGENTS.md").read_text().startswith(USER_AGENTS)


def test_hook_context_carries_only_mandatory_items_that_apply_everywhere(mixed, vmem, tmp_path, monkeypatch):  # noqa: F811
    import json
    import subprocess
    import sys

    store, items = mixed
    project = tmp_path / "p"
    project.mkdir()
    out = subprocess.run([sys.executable, "-m", "vmem", "sync", "--hook"], cwd=project, capture_output=True,
                         text=True, env={**os.environ, "VMEM_STORE": str(store.root)})
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "MANDATORY never join" in context and "MANDATORY-PATHS" not in context
    assert "APPROVED" not in context and len(context) < 10_000 and context.count("MANDATORY never join") == 1


@pytest.mark.parametrize("attack", ["agents-symlink", "cursor-dir-symlink", "copilot-fifo", "other-store-section",
                                    "damaged-section"])
def test_attacks_on_target_files_are_refused_and_nothing_is_half_written(mixed, vmem, tmp_path, monkeypatch,  # noqa: F811
                                                                         attack):
    store, _ = mixed
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    if attack == "agents-symlink":
        os.symlink(outside, project / "AGENTS.md")
    elif attack == "cursor-dir-symlink":
        (project / ".cursor").mkdir()
        os.symlink(tmp_path, project / ".cursor" / "rules")
    elif attack == "copilot-fifo":
        (project / ".github").mkdir(parents=True)
        os.mkfifo(project / ".github" / "copilot-instructions.md")
    elif attack == "other-store-section":
        (project / "AGENTS.md").write_text("mine\n\n<!-- vmem:start generated by `vmem sync` from store x "
                                           "[id ffffffffffff] at commit none; -->\nx\n<!-- vmem:end -->\n")
    else:
        (project / "AGENTS.md").write_text("mine\n<!-- vmem:end -->\n<!-- vmem:start x -->\n")
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and not p.is_symlink()
              and not p.is_fifo()}
    monkeypatch.chdir(project)
    result = vmem("sync", *ALL, code=2)
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 2
    assert outside.read_text() == "secret\n"
    after = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and not p.is_symlink()
             and not p.is_fifo()}
    assert after == before  # all or nothing: no target wrote anything
    assert not (project / ".claude").exists()


def test_a_hand_edit_to_approved_never_reaches_any_target(seeded, vmem, tmp_path, monkeypatch):
    from conftest import commit_file
    from vmem import model
    from vmem.store import codec

    item = _claim("HANDEDITED unreviewed rumour", status="proposed")
    with seeded.acting_as(RITA), seeded.transaction("import", summary="one proposal") as tx:
        tx.write(item)
        tx.write(_claim("LEGIT approved fact"))
    path = model.item_path(item["id"])
    raw = codec.load((seeded.root / path).read_text(), path)
    raw["status"] = "mandatory"
    commit_file(seeded, path, codec.dump(raw).encode())
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    _sync_every(vmem)
    assert "HANDEDITED" not in _texts(project) and _texts(project).count("LEGIT") == 4


def test_hostile_globs_and_titles_cannot_break_frontmatter_or_forge_lines():
    evil = _rule("c-0000000000ee", "mandatory", "ok\n# Forged heading <!-- vmem:end -->",
                 title="t\n---\nalwaysApply: true", paths=['a"\n---\n# Forged', "x,y", "ok/**"])
    bundle = Bundle(mandatory=[evil], store_name="m", commit="b" * 40, store_id="0123456789abcdef")
    for name in NAMES:
        for file, content in get(name).render(bundle, MARK).items():
            lines = content.splitlines()
            assert not any(line.startswith("# Forged") for line in lines), name
            assert sum(line == "---" for line in lines) in (0, 2), name  # one frontmatter block or none
            assert sum(line.startswith("alwaysApply:") for line in lines) <= 1, name
            assert content.count("<!-- vmem:end -->") == (1 if file in SECTIONS else 0), name


def test_dir_naming_a_markdown_file_is_refused(mixed, vmem, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.chdir(tmp_path)
    out = vmem("sync", "--dir", "AGENTS.md", code=2)  # issue 12: it used to create a directory named AGENTS.md
    assert "--target agents-md" in out.stderr and not (tmp_path / "AGENTS.md").exists()


def test_the_fast_path_knows_every_target():
    from vmem.cli.sync import TARGETS

    assert TARGETS == NAMES  # cli/sync.py lists them so the hook path need not import vmem.targets to parse


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["--target", "--target=cursor", "claude", "agents-md", "copilot", "bogus", "--dir",
                                 "d", "--hook", "--json"]), max_size=6))
def test_the_fast_argument_reader_agrees_with_argparse_on_targets(argv):
    import typer.main

    from vmem.cli.app import app
    from vmem.cli.sync import fast_main  # noqa: F401 - the face whose reader this is
    from vmem.cli.fast import read, spec_of

    fast = read(argv, spec_of("sync", "sync"))
    if fast is not None and all(t in NAMES for t in fast["target"] or []):  # else fast_main leaves it to typer
        params = typer.main.get_command(app).commands["sync"].make_context("sync", list(argv)).params
        assert fast == {k: (list(v) or None) if isinstance(v, tuple) else v for k, v in params.items()}


# -- one copy of each rule per agent (issue 31) -----------------------------------------------------------------
SERVED = ("MANDATORY never join", "MANDATORY-PATHS", "APPROVED arr excludes", "APPROVED-PATHS", "PUBLISHED healthcare")
SCOPED = ("MANDATORY-PATHS", "APPROVED-PATHS")


def _cli(project: Path, store, *args: str, code: int = 0) -> str:
    """The installed console script, as a user runs it in their project."""
    import shutil
    import subprocess

    out = subprocess.run([shutil.which("vmem"), *args], cwd=project, capture_output=True, text=True,
                         env={**os.environ, "VMEM_STORE": str(store.root)}, timeout=120)
    assert out.returncode == code, out.stderr
    return out.stdout


def _read(project: Path, *globs: str) -> str:
    return "".join(p.read_text() for g in globs for p in sorted(project.glob(g)) if p.is_file())


def _agents(project: Path, claude_reads_agents_md: bool) -> dict[str, str]:
    """What each agent (or Copilot surface) loads, per the docs the README cites: the test's own table."""
    agents = _read(project, "AGENTS.md")
    copilot_repo, copilot_paths = _read(project, ".github/copilot-instructions.md"), \
        _read(project, ".github/instructions/*.instructions.md")
    return {"Claude Code": _read(project, ".claude/rules/**/*.md") + (agents if claude_reads_agents_md else ""),
            "Cursor": _read(project, ".cursor/rules/**/*.mdc") + agents,
            "Codex": agents,
            "Copilot in JetBrains, Visual Studio, Xcode": copilot_repo + copilot_paths,
            "Copilot chat in Eclipse": copilot_repo,
            "Copilot in VS Code, CLI, cloud agent": copilot_repo + copilot_paths + agents}


def _git_init(path: Path) -> None:
    import subprocess

    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)


@pytest.mark.parametrize("claude_md, reads", [
    (None, True),  # Claude Code 2.1.277+: no CLAUDE.md, so it reads AGENTS.md
    ("# Ours\n\nRun `make test`.\n", False),
    ("# Ours\n\n@AGENTS.md\n", True),  # an import: read on every version
    ("# Ours\n\n```\n@AGENTS.md\n```\n", False),  # shown in a code block, not imported
    ("link", True),  # CLAUDE.md -> AGENTS.md
    (".claude/CLAUDE.md", False),
])
def test_with_every_target_on_no_agent_loads_one_rule_twice(mixed, tmp_path, claude_md, reads):  # noqa: F811
    """Claude Code (without a CLAUDE.md, or with one importing AGENTS.md) and Cursor read AGENTS.md as well as
    their own files: sync writes their own files only where AGENTS.md does not reach them. Copilot in VS Code is
    the one surface that still reads both (its JetBrains, Visual Studio, Xcode and Eclipse surfaces read no
    AGENTS.md, so its files stay), and the AGENTS.md section tells it they are the same rules."""
    store, _ = mixed
    project = tmp_path / "project"
    _git_init(project)
    (project / "AGENTS.md").write_text(USER_AGENTS)
    if claude_md == "link":
        os.symlink("AGENTS.md", project / "CLAUDE.md")
    elif claude_md == ".claude/CLAUDE.md":
        (project / ".claude").mkdir()
        (project / ".claude" / "CLAUDE.md").write_text("# Ours\n")
    elif claude_md is not None:
        (project / "CLAUDE.md").write_text(claude_md)
    data = json.loads(_cli(project, store, "sync", *ALL, "--json"))["data"]
    assert ("skipped" in data["targets"]["claude"]) == reads
    assert data["targets"]["cursor"]["skipped"] == "Cursor reads AGENTS.md"
    assert "skipped" not in data["targets"]["copilot"] and "skipped" not in data["targets"]["agents-md"]
    for agent, text in _agents(project, reads).items():
        for statement in SERVED:
            if agent == "Copilot chat in Eclipse" and statement in SCOPED:
                assert statement not in text  # Eclipse's chat reads no path-specific file: the README says so
            elif agent.startswith("Copilot in VS Code"):
                assert text.count(statement) == 2, (agent, statement)  # the exception the README names
            else:
                assert text.count(statement) == 1, (agent, statement)
    assert "an agent that has read those has these already" in _read(project, "AGENTS.md")
    assert (project / "AGENTS.md").read_text().startswith(USER_AGENTS)


def test_a_target_is_written_again_once_agents_md_no_longer_reaches_its_agent(mixed, tmp_path):  # noqa: F811
    store, items = mixed
    project = tmp_path / "project"
    _git_init(project)
    (project / "CLAUDE.md").write_text("# Ours\n")
    _cli(project, store, "sync", *ALL)
    rules = project / ".claude" / "rules" / "vmem"
    assert (rules / f"km_{items['mandatory']['id']}.md").is_file()  # CLAUDE.md: Claude Code reads no AGENTS.md
    (project / "CLAUDE.md").write_text("# Ours\n\n@AGENTS.md\n")
    data = json.loads(_cli(project, store, "sync", *ALL, "--json"))["data"]
    assert data["targets"]["claude"]["skipped"] == "Claude Code reads AGENTS.md (CLAUDE.md imports @AGENTS.md)"
    assert data["targets"]["claude"]["deleted"] and not list(rules.iterdir())  # pruned, not left as a 2nd copy
    hook = json.loads(_cli(project, store, "sync", "--hook", *ALL))["hookSpecificOutput"]["additionalContext"]
    assert "vmem's section of AGENTS.md" in hook  # Claude Code is told where its rules are
    out = _cli(project, store, "sync", "--target", "claude", "--target", "cursor")  # no AGENTS.md target
    assert (rules / f"km_{items['mandatory']['id']}.md").is_file()
    assert (project / ".cursor" / "rules" / "vmem" / f"km_{items['mandatory']['id']}.mdc").is_file()
    assert "none, as" not in out


def test_copilot_instructions_keep_the_users_text_byte_for_byte(mixed, tmp_path):  # noqa: F811
    """JetBrains, Visual Studio, Xcode and Eclipse users of Copilot get the rules from copilot-instructions.md:
    vmem owns only its marked section there; removing vmem's rules removes only that section."""
    store, items = mixed
    project = tmp_path / "project"
    _git_init(project)
    github = project / ".github"
    (github / "instructions").mkdir(parents=True)
    mine = "# Copilot, please\r\n\r\nUse tabs.   \r\nNo trailing newline here"
    (github / "copilot-instructions.md").write_bytes(mine.encode())
    (github / "instructions" / "vmem.instructions.md").write_text(  # what vmem wrote before: pruned on upgrade
        "---\napplyTo: \"**\"\n---\n" + marker(store.root.name, None, _store_id(store)) + "\nold\n")
    (github / "instructions" / "python.instructions.md").write_text("---\napplyTo: '**/*.py'\n---\nOurs\n")
    _cli(project, store, "sync", "--target", "copilot")
    text = (github / "copilot-instructions.md").read_bytes()
    assert text.startswith(mine.encode()) and text.count(b"<!-- vmem:start") == 1
    assert b"MANDATORY never join" in text and b"MANDATORY-PATHS" not in text  # scoped ones: their own files
    assert not (github / "instructions" / "vmem.instructions.md").exists()
    assert (github / "instructions" / f"vmem-{items['mandatory_paths']['id']}.instructions.md").is_file()
    _cli(project, store, "sync", "--target", "copilot")  # again: nothing changes
    assert (github / "copilot-instructions.md").read_bytes() == text
    import subprocess

    subprocess.run(["git", "-C", str(store.root), "rm", "-q", "-r", "claims", "knowledge"], check=True)
    # removed in the reviewer's own commit (a teammate's removal would leave the reviewed rules served)
    subprocess.run(["git", "-C", str(store.root), "-c", "user.name=Rita", "-c", "user.email=rita@example.com",
                    "commit", "-q", "-m", "nothing left to serve"], check=True)
    _cli(project, store, "sync", "--target", "copilot")
    assert (github / "copilot-instructions.md").read_bytes() == mine.encode()
    assert sorted(p.name for p in (github / "instructions").iterdir()) == ["python.instructions.md"]


def _store_id(store) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(store.root), "rev-list", "--max-parents=0", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.split()[0]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", " ", "\n", "\r", "#", "é", "\t"]), max_size=40),
       st.sampled_from(["agents-md", "copilot"]))
def test_adding_then_removing_a_section_gives_back_the_users_bytes(user, name):
    """Whatever the user's file ends with (no newline, one, several, CRLF), a sync and then a sync with nothing
    to serve leave it byte for byte as it was; a replaced section keeps that promise too."""
    from vmem.ops.writer import Owner

    target, owner = get(name), Owner("memory", "0123456789abcdef")
    file = "AGENTS.md" if name == "agents-md" else "copilot-instructions.md"
    part = next(part for _, part in target.parts() if part.section)
    section = target.render(BUNDLE, MARK)[file]
    old = user.encode() or None
    merged = part.merge(old, section, owner, Path(file))
    replaced = part.merge(merged, section.replace("ARR", "Annual ARR"), owner, Path(file))
    assert part.merge(replaced, None, owner, Path(file)) == old
