"""vmem hook install/uninstall (issue 12): a teammate who clones the project gets every target's files from the
committed config and hook command, with no environment variables; without vmem the session still starts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from test_sync import mixed  # noqa: F401 - the fixture: every status, scope, audience and personal case

USER_AGENTS = "# Our service\n\nHand-written: the API lives in api/, run `make check` before pushing.\n"
TEAM_URL = "https://git.example.com/team/memory.git"
SESSION_START = json.dumps({"session_id": "s1", "transcript_path": "/dev/null", "cwd": ".",
                            "hook_event_name": "SessionStart", "source": "startup"})


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout


def _hook_command(project: Path) -> str:
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    [command] = [h["command"] for g in settings["hooks"]["SessionStart"] for h in g["hooks"]]
    return command


def _run_hook(project: Path, path: str, home: Path) -> subprocess.CompletedProcess:
    """The hook exactly as Claude Code runs it: the committed command in a shell, in the project, JSON on stdin."""
    env = {"PATH": path, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(project), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CACHE_HOME": str(home / "cache"), "GIT_CONFIG_NOSYSTEM": "1",
           **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}  # a checkout under test, if any
    return subprocess.run(["/bin/sh", "-c", _hook_command(project)], cwd=project, input=SESSION_START,
                          capture_output=True, text=True, env=env, timeout=120)


def test_a_teammates_clone_runs_the_committed_hook_and_gets_every_target(mixed, vmem, tmp_path, monkeypatch):  # noqa: F811
    store, items = mixed
    monkeypatch.delenv("VMEM_STORE")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(store.root), str(remote)], check=True)
    # the team's URL, which this machine's git maps to the bare remote: nothing committed names a local path
    home = Path(os.environ["HOME"])
    with open(home / ".gitconfig", "a") as config:
        config.write(f'[url "{remote.as_uri()}"]\n\tinsteadOf = {TEAM_URL}\n')
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q", "-b", "main")
    (project / "AGENTS.md").write_text(USER_AGENTS)
    monkeypatch.chdir(project)
    vmem("hook", "install", "--store", TEAM_URL, "--target", "claude", "--target", "agents-md", "--target", "cursor",
         "--target", "copilot")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "vmem hook")
    committed = _git(project, "ls-files").split()
    assert sorted(committed) == [".claude/settings.json", ".gitignore", ".vmem.yaml", "AGENTS.md"]
    for name in committed:  # portable: no path of this machine, its venv or its home
        text = (project / name).read_text()
        for local in (str(tmp_path), sys.prefix, sys.executable, str(home), "/usr/", "/root"):
            assert local not in text, (name, local)

    teammate = tmp_path / "teammate"
    teammate.mkdir()
    shutil.copy(home / ".gitconfig", teammate / ".gitconfig")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(project), str(clone)], check=True)
    vmem_bin = str(Path(shutil.which("vmem")).parent)
    done = _run_hook(clone, f"{vmem_bin}:/usr/bin:/bin", teammate)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]
    assert "MANDATORY never join" in context["additionalContext"] and "MANDATORY-PATHS" not in \
        context["additionalContext"]
    # no CLAUDE.md: Claude Code reads AGENTS.md, and Cursor always does, so their own files would be second copies
    assert "vmem's section of AGENTS.md" in context["additionalContext"]
    assert not (clone / ".claude" / "rules" / "vmem").exists() and not (clone / ".cursor" / "rules" / "vmem").exists()
    assert "MANDATORY never join" in (clone / ".github" / "copilot-instructions.md").read_text()
    assert "MANDATORY-PATHS" in "".join(p.read_text() for p in (clone / ".github" / "instructions").iterdir())
    agents = (clone / "AGENTS.md").read_text()
    assert agents.startswith(USER_AGENTS) and "MANDATORY never join" in agents

    # offline: the last good state, and a notice
    remote.rename(tmp_path / "gone.git")
    offline = _run_hook(clone, f"{vmem_bin}:/usr/bin:/bin", teammate)
    answer = json.loads(offline.stdout)
    assert offline.returncode == 0 and "git pull failed" in answer["systemMessage"]
    # the rule itself, or (when the files already held it before this session: a slow machine) its name
    offline_context = answer["hookSpecificOutput"]["additionalContext"]
    assert "MANDATORY never join" in offline_context or "Join on ids" in offline_context, offline_context

    # no vmem on PATH: the session still starts, with a one-line notice saying how to install it
    absent = _run_hook(clone, "/usr/bin:/bin", teammate)
    assert absent.returncode == 0 and "pipx install vmem-cli" in json.loads(absent.stdout)["systemMessage"]
    assert len(absent.stdout.strip().splitlines()) == 1

    # uninstall removes exactly what install and sync added; the user's AGENTS.md text is back, byte for byte
    monkeypatch.setenv("XDG_DATA_HOME", str(teammate / "data"))
    vmem("hook", "uninstall", "--project", str(clone))
    assert (clone / "AGENTS.md").read_text() == USER_AGENTS
    status = sorted(_git(clone, "status", "--porcelain", "--untracked-files=all").splitlines())
    assert status == [" D .claude/settings.json", " D .gitignore", " D .vmem.yaml"]  # vmem's block was all


def test_install_merges_refuses_foreign_config_and_uninstall_keeps_other_hooks(mixed, vmem, tmp_path, monkeypatch):  # noqa: F811
    store, _ = mixed
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "echo hi"}, {"type": "command", "command": "vmem sync --hook"}]}]}}))
    data = vmem.json("hook", "install", "--project", str(project), "--store", str(store.root))["data"]
    assert data["store"] == {"url": None, "path": "../seeded"}  # relative to the project
    commands = [h["command"] for g in json.loads(settings.read_text())["hooks"]["SessionStart"] for h in g["hooks"]]
    assert commands == ["echo hi", data["command"]]  # the old bare command replaced, not doubled
    vmem("hook", "uninstall", "--project", str(project))
    assert json.loads(settings.read_text()) == {"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "echo hi"}]}]}}
    assert not (project / ".vmem.yaml").exists()
    (project / ".vmem.yaml").write_text("store: {path: ../elsewhere}\n")
    out = vmem("hook", "install", "--project", str(project), "--store", str(store.root), code=2)
    assert "not written by vmem" in out.stderr and (project / ".vmem.yaml").read_text().startswith("store:")


def test_hostile_project_configs_are_refused_in_one_line(mixed, tmp_path):  # noqa: F811
    store, _ = mixed
    project = tmp_path / "p"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "VMEM_STORE"}
    for config in ('store: {url: "ext::sh -c touch% /tmp/pwned"}\n', "store: {url: --upload-pack=touch}\n",
                   "store: {path: /etc}\n", "store: {path: ../seeded}\ntargets: [claude, ../../x]\n",
                   "store: {path: ../seeded}\nbudget: -1\n"):
        (project / ".vmem.yaml").write_text(config)
        out = subprocess.run([sys.executable, "-m", "vmem", "sync"], cwd=project, capture_output=True, text=True,
                             env=env)
        assert out.returncode == 2 and out.stderr.startswith("error: ") and len(out.stderr.splitlines()) == 2, \
            (config, out.stderr)
        hook = subprocess.run([sys.executable, "-m", "vmem", "sync", "--hook"], cwd=project, capture_output=True,
                              text=True, env=env)
        assert hook.returncode == 0 and "vmem sync skipped" in hook.stdout
    assert not Path("/tmp/pwned").exists() and not (project / ".claude").exists()


def test_targets_add_and_remove_edit_the_config_and_prune_what_is_dropped(mixed, vmem, tmp_path, monkeypatch):  # noqa: F811
    store, _ = mixed
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.delenv("VMEM_STORE")
    monkeypatch.chdir(project)
    vmem("hook", "install", "--store", str(store.root), "--target", "claude", "--target", "cursor")
    vmem("sync")
    assert any((project / ".cursor" / "rules" / "vmem").iterdir())
    data = vmem.json("targets", "remove", "cursor")["data"]
    assert data["targets"] == ["claude"] and data["removed"]
    assert not any((project / ".cursor" / "rules" / "vmem").iterdir())
    assert vmem.json("targets", "add", "agents-md")["data"]["targets"] == ["claude", "agents-md"]
    assert "targets: [claude, agents-md]" in (project / ".vmem.yaml").read_text()
    assert vmem.json("targets", "list")["data"] == {"targets": ["claude", "agents-md"], "config": True}
    assert "unknown target" in vmem("targets", "add", "../x", code=2).stderr
    assert "at least one target" in vmem("targets", "remove", "claude", "agents-md", code=2).stderr


def test_a_path_store_records_its_origin_url_too(mixed, vmem, tmp_path):  # noqa: F811
    store, _ = mixed
    _git(store.root, "remote", "add", "origin", TEAM_URL)
    project = tmp_path / "project"
    project.mkdir()
    data = vmem.json("hook", "install", "--project", str(project), "--store", str(store.root))["data"]
    assert data["store"] == {"url": TEAM_URL, "path": "../seeded"}  # a teammate without the checkout clones it


def test_sessions_starting_at_once_all_get_their_context_and_the_files_end_whole(mixed, tmp_path):  # noqa: F811
    """Two agent windows opened together run the hook concurrently: each stages its own temporary files."""
    store, items = mixed
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "VMEM_STORE": str(store.root), "CLAUDE_PROJECT_DIR": str(project)}
    command = [sys.executable, "-m", "vmem", "sync", "--hook", "--target", "claude", "--target", "agents-md",
               "--target", "cursor", "--target", "copilot"]
    for _ in range(3):
        shutil.rmtree(project, ignore_errors=True)
        project.mkdir()
        runs = [subprocess.Popen(command, env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for _ in range(4)]
        for run in runs:
            out, err = run.communicate(timeout=120)
            assert run.returncode == 0, err
            answer = json.loads(out)
            assert "systemMessage" not in answer and "MANDATORY never join" in \
                answer["hookSpecificOutput"]["additionalContext"]
        assert not [p for p in project.rglob("*.vmem-tmp")]
        assert (project / "AGENTS.md").read_text().count("<!-- vmem:start") == 1
        assert (project / ".github" / "copilot-instructions.md").read_text().count("<!-- vmem:start") == 1
        assert "MANDATORY-PATHS" in (project / ".github" / "instructions" /
                                     f"vmem-{items['mandatory_paths']['id']}.instructions.md").read_text()


def _cli(project: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess:
    """The installed console script, run by the user in their project."""
    env = {k: v for k, v in os.environ.items() if k != "VMEM_STORE"}
    out = subprocess.run([shutil.which("vmem"), *args], cwd=project, capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == code, out.stderr
    return out


def test_install_says_what_to_commit_and_ignores_what_each_clone_regenerates(mixed, tmp_path):  # noqa: F811
    """Issue 31: after every approval, each teammate's session hook rewrote the generated files and git showed
    them modified. The whole files vmem writes are per-clone output, ignored through a marked .gitignore block
    that never duplicates or touches the user's lines; the shared config is committed."""
    store, items = mixed
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q", "-b", "main")
    users = "node_modules/\n/.cursor/rules/vmem/\n# ours\n*.log"  # one of vmem's lines already; no final newline
    (project / ".gitignore").write_text(users)
    (project / "CLAUDE.md").write_text("# Ours\n")  # so Claude Code reads its own files, not AGENTS.md
    every = [a for t in ("claude", "agents-md", "cursor", "copilot") for a in ("--target", t)]
    out = _cli(project, "hook", "install", "--store", str(store.root), *every).stdout
    assert "commit: .vmem.yaml, .claude/settings.json, .gitignore\n" in out  # AGENTS.md is not there yet
    assert "after the first vmem sync writes them, commit: AGENTS.md, .github/copilot-instructions.md" in out
    assert "ignored: /.claude/rules/vmem/, /.cursor/rules/vmem/, /.github/instructions/vmem*.instructions.md" in out
    ignore = (project / ".gitignore").read_text()
    assert ignore.startswith(users + "\n# vmem: ") and ignore.count("/.cursor/rules/vmem/") == 1
    assert ignore.endswith("/.claude/rules/vmem/\n/.github/instructions/vmem*.instructions.md\n# vmem: end\n")
    again = _cli(project, "hook", "install", "--store", str(store.root), "--json")
    assert json.loads(again.stdout)["data"]["gitignore_written"] is False
    assert (project / ".gitignore").read_text() == ignore  # idempotent

    _cli(project, "sync")
    assert (project / ".claude" / "rules" / "vmem" / f"km_{items['mandatory']['id']}.md").is_file()
    status = sorted(_git(project, "status", "--porcelain", "--untracked-files=all").splitlines())
    assert status == ["?? .claude/settings.json", "?? .github/copilot-instructions.md", "?? .gitignore",
                      "?? .vmem.yaml", "?? AGENTS.md", "?? CLAUDE.md"]  # no generated whole file to commit
    _git(project, "add", "--all")
    _git(project, "-c", "user.name=R", "-c", "user.email=r@e.com", "commit", "-q", "-m", "vmem")
    subprocess.run([shutil.which("vmem"), "revoke", items["approved_paths"]["id"], "--store", str(store.root)],
                   check=True, capture_output=True, env={**os.environ, "GIT_AUTHOR_NAME": "Rita",
                                                         "GIT_AUTHOR_EMAIL": "rita@example.com",
                                                         "GIT_COMMITTER_NAME": "Rita",
                                                         "GIT_COMMITTER_EMAIL": "rita@example.com"})
    written = json.loads(_cli(project, "sync", "--json").stdout)["data"]
    assert any(".claude/rules/vmem" in p for p in written["deleted"])  # the ignored files did change
    status = sorted(_git(project, "status", "--porcelain").splitlines())
    assert status == [" M .github/copilot-instructions.md", " M AGENTS.md"]  # only the sections, as install said

    _cli(project, "hook", "uninstall")
    assert (project / ".gitignore").read_text() == users  # byte for byte, the missing final newline too


def test_a_damaged_gitignore_block_is_refused_and_nothing_is_written(mixed, tmp_path):  # noqa: F811
    store, _ = mixed
    project = tmp_path / "project"
    project.mkdir()
    from vmem.ops.hook import IGNORE_START

    (project / ".gitignore").write_text(f"dist/\n{IGNORE_START}\n/.claude/rules/vmem/\n")  # its end line lost
    out = _cli(project, "hook", "install", "--store", str(store.root), code=2)
    assert out.stderr.startswith("error: ") and "damaged vmem block" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 2
    assert (project / ".gitignore").read_text() == f"dist/\n{IGNORE_START}\n/.claude/rules/vmem/\n"
    assert sorted(p.name for p in project.iterdir()) == [".gitignore"]  # no config, no hook: nothing half-done
