"""The README's "A team" section, run as written (issue 27): its fenced sh blocks, each on its person's machine.

Like the tour (tests/test_newcomer.py), the commands are the README's own text. Each person is a HOME with their
git identity and one line of git config that maps the README's URL to a local bare remote (what `git clone` of
the real host would reach); the only other substitution is the tour's: an id the README shows stands for the id
this run made. Every block starts in its person's home; a block's first comment line names whose it is. The
comment lines right after a command are the output the README shows: each must be in what the command printed
(ids, commit hashes, the home directory, the local remote's URL and the token count normalised)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_team_flow import PROTECT  # the protected-branch hook a git host stands for

ROOT = Path(__file__).resolve().parents[1]
URL = "https://git.example.com/team/memory.git"
STATEMENT = "Invoices go out on the first business day of the month."
PEOPLE = {"rita": ("Rita Reviewer", "rita@example.com"), "alice": ("Alice Analyst", "alice@example.com"),
          "admin": ("Sam Setup", "sam@example.com")}

_SECTION = re.compile(r"^## A team\n(.*?)(?=^## )", re.DOTALL | re.MULTILINE)
_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)
_ID = re.compile(r"\b[ck]-[0-9a-f]{12}\b")
_ID_OR_PREFIX = re.compile(r"\b[ck]-[0-9a-f]{4,12}\b")


def section(readme: str) -> str:
    found = _SECTION.search(readme)
    assert found, "README.md has no '## A team' section"
    return found.group(1)


def blocks(text: str) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """(person, [(command, output lines shown)]) per sh block. Output lines are the comments right under a
    command; a comment after a blank line (or first in the block) is prose, and the block's first names whose."""
    out = []
    for body in _BLOCK.findall(text):
        lines = body.splitlines()
        first = lines[0].lower()
        person = next((name for name in ("rita", "alice") if name in first.split(":")[0]), "admin")
        steps: list[tuple[str, list[str]]] = []
        after_command = False
        for line in lines:
            if not line.strip():
                after_command = False
            elif line.startswith("#"):
                if after_command:
                    steps[-1][1].append(line[1:].strip())
            else:
                steps.append((line, []))
                after_command = True
        out.append((person, steps))
    return out


class Machine:
    """One person's machine: a HOME (XDG defaults under it), their identity, the README's URL mapped to REMOTE."""

    def __init__(self, base: Path, key: str, remote: Path) -> None:
        name, email = PEOPLE[key]
        self.home = base / key
        self.home.mkdir()
        (self.home / ".gitconfig").write_text(f"[user]\n\tname = {name}\n\temail = {email}\n"
                                              f'[url "{remote.as_uri()}"]\n\tinsteadOf = {URL}\n')
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "VMEM_", "XDG_"))}
        self.env = {**keep, "HOME": str(self.home), "GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1",
                    "VMEM_WIDTH": "200", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

    def run(self, script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", script], cwd=self.home, env=self.env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=300)


def _remote_statements(remote: Path) -> str:
    """The text of every item file on the remote's main, read with git itself."""
    listed = subprocess.run(["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main"],
                            capture_output=True, text=True, check=True).stdout.split()
    return "\n".join(subprocess.run(["git", "--git-dir", str(remote), "show", f"main:{path}"], capture_output=True,
                                    text=True, check=True).stdout
                     for path in listed if path.startswith(("claims/", "knowledge/")))


@pytest.fixture
def team(tmp_path, monkeypatch):
    for name in [k for k in os.environ if k.startswith(("GIT_", "VMEM_", "XDG_"))]:
        monkeypatch.delenv(name)
    remote = tmp_path / "host" / "memory.git"
    # what a git host creates for a new, empty repository: bare, its default branch main
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    machines = {key: Machine(tmp_path, key, remote) for key in PEOPLE}
    alice = machines["alice"]
    done = alice.run("git init -q billing && cd billing && echo '# billing' > README.md && git add README.md && "
                     "git commit -q -m 'the code project'")  # Alice's existing code project
    assert done.returncode == 0, done.stderr
    return remote, machines


def run_section(remote: Path, machines: dict, check=lambda n: None) -> None:
    """Run the section's blocks in order, each as one bash script on its person's machine, as pasted; then check
    that every output line the README shows is among the lines the block printed, and CHECK(n) after block n."""
    steps = blocks(section((ROOT / "README.md").read_text(encoding="utf-8")))
    assert [person for person, _ in steps] == ["admin", "rita", "alice", "rita", "alice"]
    ids: dict[str, str] = {}

    def real_id(match: re.Match) -> str:
        keys = [k for k in ids if k.startswith(match.group())]
        assert len(keys) == 1, f"the README uses {match.group()}, which no earlier output shows"
        return ids[keys[0]][:len(match.group())]

    def normal(text: str, home: Path) -> str:
        text = _ID.sub(lambda m: next((k for k, v in ids.items() if v == m.group()), m.group()), text)
        text = text.replace(remote.as_uri(), URL).replace(str(home), "/home/" + home.name)
        text = re.sub(r"~\d+ tokens", "~N tokens", text)
        return re.sub(r"(\bat |\[)[0-9a-f]{10}\b", r"\1HASH", text)

    for n, (person, commands) in enumerate(steps, 1):
        machine = machines[person]
        script = "set -e\n" + "\n".join(_ID_OR_PREFIX.sub(real_id, command) for command, _ in commands)
        done = machine.run(script)
        assert done.returncode == 0, (n, script, done.stdout, done.stderr)
        printed = done.stdout + done.stderr
        for shown_id, made in zip(dict.fromkeys(_ID.findall("\n".join(o for _, out in commands for o in out))),
                                  dict.fromkeys(_ID.findall(printed))):
            ids.setdefault(shown_id, made)
        got = {line.strip() for line in normal(printed, machine.home).splitlines()}
        for _, shown in commands:
            for line in shown:
                assert normal(line, machine.home) in got, (n, line, printed)
        check(n)


def test_the_readme_team_section_runs_as_written(team):
    remote, machines = team

    def check(n: int) -> None:
        if n == 3:  # the proposal reached the remote at once: a reviewer can see it
            assert STATEMENT in _remote_statements(remote)
            assert "status: proposed" in _remote_statements(remote)
        if n == 4:
            assert "status: approved" in _remote_statements(remote)

    run_section(remote, machines, check)
    alice = machines["alice"]
    # the approval came back: the agent in Alice's project reads it from its rules files
    rules = alice.home / "billing" / ".claude" / "rules" / "vmem"
    assert STATEMENT in "\n".join(p.read_text() for p in rules.glob("*.md"))
    # the project holds the two committed files, the hook's command among them
    assert "vmem sync --hook" in (alice.home / "billing" / ".claude" / "settings.json").read_text()
    assert {".vmem.yaml", ".claude/settings.json"} <= set(alice.run("git -C billing ls-files").stdout.split())


def test_what_the_section_says_of_offline_protected_main_and_delivery_by_hand(team):
    """The messages the prose quotes are the ones vmem prints, and each case ends as the prose says."""
    remote, machines = team
    run_section(remote, machines)
    text = " ".join(section((ROOT / "README.md").read_text(encoding="utf-8")).split())
    offline_line = re.search(r"`(1 commit not yet delivered[^`]*)`", text).group(1)
    protected_line = re.search(r"`(main is protected on origin[^`]*)`", text).group(1)
    alice, rita = machines["alice"], machines["rita"]
    config = alice.home / ".gitconfig"
    mapped = config.read_text()

    # offline: the host cannot be reached (a name that never resolves); the commit waits and is counted
    config.write_text(mapped.replace(remote.as_uri(), "https://git.example.invalid/team/memory.git"))
    done = alice.run('cd billing && vmem propose "Credit notes are numbered per legal entity."')
    assert done.returncode == 0 and offline_line in done.stderr, done.stderr
    assert "waiting: 1 commit not on origin, not yet delivered" in alice.run("cd billing && vmem status").stdout
    config.write_text(mapped)
    done = alice.run("cd billing && vmem sync")  # the next session start delivers it
    assert done.returncode == 0, done.stderr
    assert "Credit notes are numbered per legal entity." in _remote_statements(remote)

    # protected main: the writer's branch, then the reviewer's vmem review takes it in
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(PROTECT)
    hook.chmod(0o755)
    done = alice.run('cd billing && vmem propose "Dunning emails pause during a payment dispute."')
    clone_id = re.compile(r"(vmem/proposals/[^/\s]+/)[0-9a-z]+")  # each clone's own random branch name
    assert done.returncode == 0 and clone_id.sub(r"\1ID", protected_line) in clone_id.sub(r"\1ID", done.stderr), \
        done.stderr
    assert "Dunning emails" not in _remote_statements(remote)
    done = rita.run("cd memory && vmem review --list")
    assert done.returncode == 0 and "merged" in done.stderr, done.stderr
    assert "Dunning emails pause during a payment dispute." in _remote_statements(remote)
    hook.unlink()

    # by hand: `git config vmem.deliver false` in the clone `vmem status` names; the commit goes with a push
    clone = re.search(r"^store: (\S+) at ", alice.run("cd billing && vmem status").stdout, re.MULTILINE).group(1)
    assert alice.run(f"git -C {clone} config vmem.deliver false").returncode == 0
    done = alice.run('cd billing && vmem propose "Refunds settle daily."')
    assert done.returncode == 0 and "not yet delivered" not in done.stderr, done.stderr
    assert "Refunds settle daily." not in _remote_statements(remote)
    assert alice.run(f"git -C {clone} push -q").returncode == 0
    assert "Refunds settle daily." in _remote_statements(remote)
