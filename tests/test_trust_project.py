"""Trust across clones (issue 28): what a teammate's commit to the agent's *project* can make vmem do on every
colleague's machine, and what the report shows to whoever it is shared with. Each test runs the attack first
through the path users take (the CLI, the hook as Claude Code runs it), then checks it is refused.

- Attack 7: the committed `.vmem.yaml` points the SessionStart hook at another store on the colleague's machine
  (a `file://` URL, a store path through a committed symlink or out through `..` past one), so its rules are
  synced into the project. A URL is a network transport (https, ssh, user@host:path); `file://` and store paths
  that resolve through a symlink are refused, like absolute paths.
- Attack 8b: `vmem report` without `--quarantined-evidence` printed a quarantined item's customer text inside its
  statement and its de-id gate reason (which quotes the customer's words)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import REVIEWER
from test_team import run

RITA = f"Rita <{REVIEWER[1]}>"
SECRET = "PRIVATE-RULE never share the staging credentials"  # a rule of the colleague's *other* store
TEAM_URL = "https://git.example.com/team/memory.git"


@pytest.fixture
def other_store(seeded, vmem):
    """A store on the colleague's machine that the project must not be able to reach (say: their personal
    store), holding one mandatory rule the hook would put into every session."""
    item = vmem.json("propose", SECRET, store=seeded)["data"]["item"]["id"]
    vmem("mandate", item, who=RITA, store=seeded)
    return seeded


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def _env(tmp_path: Path) -> dict:
    """A teammate's environment: no VMEM_STORE, their own data dir (where URL stores are cloned)."""
    env = {k: v for k, v in os.environ.items() if k != "VMEM_STORE"}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), CLAUDE_PROJECT_DIR="")
    return env


def _sync(project: Path, tmp_path: Path, *args: str):
    return run(sys.executable, "-m", "vmem", "sync", *args, cwd=project, env=_env(tmp_path), check=False)


def _assert_refused(project: Path, tmp_path: Path) -> None:
    """`vmem sync` refuses in one line naming the file (and a hint); the hook never fails the session but says
    why; nothing reaches the project either way."""
    out = _sync(project, tmp_path)
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert out.stderr.startswith("error: ") and ".vmem.yaml" in out.stderr.splitlines()[0], out.stderr
    assert len(out.stderr.splitlines()) == 2, out.stderr  # the error, then the fix
    hook = _sync(project, tmp_path, "--hook")
    assert hook.returncode == 0, hook.stderr
    answer = json.loads(hook.stdout)
    assert answer["systemMessage"].startswith("vmem sync skipped: ") and ".vmem.yaml" in answer["systemMessage"]
    assert SECRET not in hook.stdout
    written = [p for p in project.rglob("*") if p.name != ".vmem.yaml" and not p.is_symlink()
               and project / "memory" not in p.parents]
    assert written == [], written


# -- attack 7: a committed .vmem.yaml names another local store ------------------------------------------------


def test_a_relative_store_path_next_to_the_project_is_served(other_store, project, tmp_path):
    """The intended use, kept: `store: {path: ../memory}` (no symlink anywhere along it)."""
    (project / ".vmem.yaml").write_text("store: {path: ../seeded}\n")
    hook = _sync(project, tmp_path, "--hook")
    assert hook.returncode == 0 and SECRET in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("form", ["file-uri", "file-uri-localhost", "file-colon", "absolute-path", "relative-path",
                                  "git-dir"])
def test_a_committed_config_cannot_name_a_local_store_by_url(other_store, project, tmp_path, form):
    """Attack 7: `store: {url: file:///home/x/other-store}` made every colleague's hook clone that store and sync
    its rules into the project; git takes plain paths as URLs too."""
    root = other_store.root
    url = {"file-uri": root.as_uri(), "file-uri-localhost": f"file://localhost{root}", "file-colon": f"file:{root}",
           "absolute-path": str(root), "relative-path": "../seeded", "git-dir": f"{root}/.git"}[form]
    (project / ".vmem.yaml").write_text(f"store: {{url: {json.dumps(url)}}}\n")
    _assert_refused(project, tmp_path)
    assert not (tmp_path / "data" / "vmem" / "stores").exists() or \
        not any((tmp_path / "data" / "vmem" / "stores").iterdir())  # nothing cloned either


@pytest.mark.parametrize("form", ["absolute-link", "relative-link", "out-through-a-link", "link-beside-the-project"])
def test_a_committed_config_cannot_reach_a_store_through_a_symlink(other_store, project, tmp_path, form):
    """Attack 7: a relative store.path that resolves through a committed symlink (`memory -> /somewhere/else`),
    or whose `..` leaves through one, reached any store on the colleague's machine."""
    root = other_store.root
    if form == "absolute-link":
        (project / "memory").symlink_to(root)
        path = "memory"
    elif form == "relative-link":
        (project / "memory").symlink_to("../seeded")
        path = "memory"
    elif form == "out-through-a-link":  # memory/.. is the link target's parent, not the project
        (tmp_path / "deep").mkdir()
        (project / "memory").symlink_to(tmp_path / "deep")
        path = "memory/../seeded"
        assert (project / path / "vmem.yaml").is_file() and not Path(os.path.normpath(project / path)).exists()
    else:  # a symlink anywhere along the path counts, not only one inside the project
        (tmp_path / "elsewhere").symlink_to(root)
        path = "../elsewhere"
    (project / ".vmem.yaml").write_text(f"store: {{path: {json.dumps(path)}}}\n")
    _assert_refused(project, tmp_path)


def test_every_consumer_of_the_project_config_refuses_it(other_store, project, tmp_path, vmem, monkeypatch):
    """Not only sync: the MCP server and `vmem targets` read the same config and refuse it the same way."""
    monkeypatch.delenv("VMEM_STORE")
    (project / ".vmem.yaml").write_text(f"store: {{url: {json.dumps(other_store.root.as_uri())}}}\n")
    for argv in (["mcp", "--project", str(project)], ["targets", "list", "--project", str(project)]):
        out = vmem(*argv, code=2)
        assert ".vmem.yaml" in out.stderr and "https" in out.stderr, (argv, out.stderr)
    (project / ".vmem.yaml").write_text("store: {path: memory}\n")
    (project / "memory").symlink_to(other_store.root)
    out = vmem("mcp", "--project", str(project), code=2)
    assert ".vmem.yaml" in out.stderr and "symlink" in out.stderr


@pytest.mark.parametrize("form", ["file-uri", "link"])
def test_hook_install_refuses_to_write_a_config_that_names_a_local_store(other_store, project, tmp_path, vmem, form):
    """`vmem hook install --store X` must not write what every reader would then refuse."""
    if form == "file-uri":
        store = other_store.root.as_uri()
    else:
        (tmp_path / "link").symlink_to(other_store.root)
        store = str(tmp_path / "link")
    out = vmem("hook", "install", "--project", str(project), "--store", store, code=2)
    assert out.stderr.startswith("error: ") and len(out.stderr.splitlines()) == 2, out.stderr
    assert list(project.iterdir()) == []  # no .vmem.yaml, no .claude/settings.json


def test_a_local_origin_is_not_recorded_but_the_path_is(other_store, project, tmp_path, vmem):
    """A store cloned from a local bare repository has a local origin: hook install records its relative path
    and leaves that origin out (a teammate could not fetch it, and every reader would refuse it)."""
    bare = tmp_path / "bare.git"
    run("git", "clone", "-q", "--bare", str(other_store.root), str(bare))
    for origin in (bare.as_uri(), str(bare)):
        run("git", "-C", str(other_store.root), "remote", "remove", "origin", check=False)
        run("git", "-C", str(other_store.root), "remote", "add", "origin", origin)
        data = vmem.json("hook", "install", "--project", str(project), "--store", str(other_store.root))["data"]
        assert data["store"] == {"url": None, "path": "../seeded"}


def test_a_team_url_mapped_to_a_local_mirror_by_the_users_own_git_config_still_works(other_store, project,
                                                                                        tmp_path, vmem):
    """What the committed file says is https; the user's own insteadOf (not the project's) maps it to a local
    repository, as tests and air-gapped teams do."""
    bare = tmp_path / "remote.git"
    run("git", "clone", "-q", "--bare", str(other_store.root), str(bare))
    with open(Path(os.environ["HOME"]) / ".gitconfig", "a") as config:
        config.write(f'[url "{bare.as_uri()}"]\n\tinsteadOf = {TEAM_URL}\n')
    env = _env(tmp_path)
    done = run(sys.executable, "-m", "vmem", "hook", "install", "--project", str(project), "--store", TEAM_URL,
               env=env, check=False)
    assert done.returncode == 0, done.stderr
    hook = _sync(project, tmp_path, "--hook")
    assert hook.returncode == 0 and SECRET in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("url", [TEAM_URL, "ssh://git@git.example.com/team/memory.git",
                                 "git@git.example.com:team/memory.git"])
def test_network_urls_are_accepted(url):
    from vmem.store.remote import check_url

    assert check_url(url) == url


# -- attack 8b: the report quotes a quarantined item's customer text ------------------------------------------

LEAKS = ("tidewell", "saoirse", "delaney", "information governance lead")  # names, contact, the verbatim quote


def _site(out: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(out.iterdir()) if p.is_file()).casefold()


def test_the_report_never_prints_a_quarantined_items_customer_text_without_the_flag(seeded, vmem, tmp_path):
    """Attack 8b: the quarantined card and the gates table hid the evidence quotes but printed the statement
    and the de-id gate's reason, which quotes the customer: here the whole verbatim quote of a call, of which
    the statement reused a few words."""
    named = vmem.json("propose", "Saoirse Delaney at Tidewell wants EU hosting before the renewal", "--from",
                      "tidewell", "--episode", "ep-tidewell-01", "-c", "industry:healthcare", store=seeded)["data"]
    reused = vmem.json("propose", "Healthcare buyers say the audit trail is the first thing security checks",
                       "--from", "tidewell", "-c", "industry:healthcare", store=seeded)["data"]
    vmem("consolidate", store=seeded)
    for proposal in (named, reused):
        item = vmem.json("show", proposal["item"]["id"])["data"]
        assert item["status"] == "quarantined", item
    reason = vmem.json("show", reused["item"]["id"])["data"]["gate"]["reason"]
    assert "information governance lead" in reason  # the reason quotes the customer beyond the statement

    done = vmem.json("report", "--out", str(tmp_path / "site"))["data"]
    site = _site(tmp_path / "site")
    assert [leak for leak in LEAKS if leak in site] == []
    assert named["item"]["id"] in site and reused["item"]["id"] in site  # still listed, with what is safe
    assert "deid failed" in site and "--quarantined-evidence" in site
    assert all(leak not in json.dumps(done).casefold() for leak in LEAKS)

    vmem("report", "--out", str(tmp_path / "flagged"), "--quarantined-evidence")
    flagged = _site(tmp_path / "flagged")
    assert [leak for leak in LEAKS if leak not in flagged] == []  # with the flag: shown as before
