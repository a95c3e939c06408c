"""Generated files, one rule: a code project set up with every target and committed as `vmem hook install` says
stays clean in every teammate's clone. Per-clone files are ignored by vmem's one .gitignore block; the committed
sections (AGENTS.md, Copilot's instructions) change only when what the team serves changes, and then to the same
bytes in every clone, wherever each person keeps the store. Two machines, the README's URL mapped to bare
remotes, every command through the console script."""

from __future__ import annotations

import subprocess

from test_readme_team import URL, Machine

EVERY = "--target claude --target agents-md --target cursor --target copilot"
PROJECT_URL = "https://git.example.com/team/billing.git"


def _ok(machine: Machine, script: str) -> str:
    done = machine.run(script)
    assert done.returncode == 0, (script, done.stdout, done.stderr)
    return done.stdout


def _status(machine: Machine) -> list[str]:
    return sorted(_ok(machine, "git -C billing status --porcelain --untracked-files=all").splitlines())


def test_a_project_with_every_target_stays_clean_in_every_clone(tmp_path):
    store_remote, project_remote = tmp_path / "memory.git", tmp_path / "billing.git"
    for bare in (store_remote, project_remote):
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    people = tmp_path / "people"
    people.mkdir()
    alice, rita = Machine(people, "alice", store_remote), Machine(people, "rita", store_remote)
    for person in (alice, rita):
        (person.home / ".gitconfig").write_text((person.home / ".gitconfig").read_text()
                                                + f'[url "{project_remote.as_uri()}"]\n\tinsteadOf = {PROJECT_URL}\n')
    _ok(rita, f"vmem init memory --reviewer rita@example.com && git -C memory remote add origin {URL} && "
              "git -C memory push -q -u origin main")

    # Alice sets the project up with every target and the MCP config, and commits exactly what vmem names
    out = _ok(alice, f"git clone -q {PROJECT_URL} billing && cd billing && printf '# Billing\\n' > AGENTS.md && "
                     "git add AGENTS.md && git commit -qm start && "
                     f"vmem hook install --store {URL} {EVERY} && vmem mcp install")
    commit = next(line for line in out.splitlines() if line.startswith("commit: "))[len("commit: "):].split(", ")
    assert commit == [".vmem.yaml", ".claude/settings.json", ".gitignore", "AGENTS.md"]
    later = next(line for line in out.splitlines() if line.startswith("after the first vmem sync"))
    assert later.endswith("commit: .github/copilot-instructions.md")  # not there before a sync writes it
    _ok(alice, f"cd billing && git add {' '.join(commit)} .mcp.json .cursor/mcp.json && git commit -qm vmem && "
               "vmem sync")
    assert _status(alice) == []  # nothing served yet: the sync wrote nothing to commit

    # a reviewer approves one proposal: the committed sections change, once, in one commit of Alice's
    proposed = _ok(alice, 'cd billing && vmem propose "Invoices go out on the first business day." --json')
    item = proposed.split('"id": "')[1].split('"')[0]
    _ok(rita, f"cd memory && git pull -q && vmem approve {item}")
    _ok(alice, "cd billing && vmem sync")
    assert _status(alice) == [" M AGENTS.md", "?? .github/copilot-instructions.md"]
    _ok(alice, "cd billing && git add AGENTS.md .github/copilot-instructions.md && git commit -qm 'vmem: rules' && "
               "git push -q origin HEAD:main")
    tracked = _ok(alice, "git -C billing ls-files").split()
    assert not [path for path in tracked if "/vmem" in path or path.startswith(".claude/rules")]  # per-clone

    # Rita's clone of the project, synced from her own clone of the store (another folder name, her own
    # commits): the same bytes, nothing to commit; a proposal nobody reviewed changes nothing served
    _ok(rita, f"git clone -q {PROJECT_URL} billing && cd billing && vmem sync --store ~/memory")
    assert _status(rita) == []
    _ok(rita, 'cd memory && vmem propose "Credit notes go out on the fifth." && cd ../billing && '
              "vmem sync --store ~/memory")
    assert _status(rita) == []
    _ok(alice, "cd billing && vmem sync")
    assert _status(alice) == []
    for person in (alice, rita):  # the user's text kept, vmem's section under it
        assert (person.home / "billing" / "AGENTS.md").read_text().startswith("# Billing\n")
    assert (alice.home / "billing" / "AGENTS.md").read_bytes() == (rita.home / "billing" / "AGENTS.md").read_bytes()


def test_a_target_added_by_hand_to_the_config_is_ignored_at_the_next_sync(tmp_path):
    """The one rule holds for every writer: `targets add` and a sync after a hand edit of .vmem.yaml both keep
    vmem's block in step, and say to commit it."""
    store_remote = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(store_remote)], check=True)
    people = tmp_path / "people"
    people.mkdir()
    alice = Machine(people, "alice", store_remote)
    _ok(alice, f"vmem init memory --reviewer rita@example.com >/dev/null && git init -q billing && cd billing && "
               "touch CLAUDE.md && vmem hook install --store ../memory --target claude >/dev/null && "
               "git add -A && git commit -qm vmem")
    out = _ok(alice, "cd billing && vmem targets add cursor")
    assert "commit: .vmem.yaml, .gitignore" in out and "/.cursor/rules/vmem/" in (
        alice.home / "billing" / ".gitignore").read_text()
    _ok(alice, "cd billing && git commit -qam cursor")
    config = alice.home / "billing" / ".vmem.yaml"
    config.write_text(config.read_text().replace("targets: [claude, cursor]", "targets: [claude, cursor, copilot]"))
    done = alice.run("cd billing && vmem sync")
    assert done.returncode == 0 and "now ignores what the targets in .vmem.yaml write (commit it)" in done.stderr
    assert "/.github/instructions/vmem*.instructions.md" in (alice.home / "billing" / ".gitignore").read_text()
    assert sorted(_ok(alice, "git -C billing status --porcelain").splitlines()) == [" M .gitignore", " M .vmem.yaml"]
