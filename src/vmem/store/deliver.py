"""Delivering a clone's commits to the team's remote (SPEC 15): the git host is vmem's server.

After a write, and at session start, a clone whose branch tracks a remote pushes what the remote lacks. When the
remote moved meanwhile (a teammate pushed first), vmem fetches and replays the clone's own commits on the new
remote head (`git rebase`: the commits stay the same person's; vmem's merge driver settles two edits of one item)
and pushes again, a bounded number of times. When the remote refuses the branch itself (a protected `main` that
only reviewers may push), the commits go to the writer's own branch, vmem/proposals/<writer>, which a reviewer's
`vmem review` fetches and merges (vmem.store.deliver.integrate). Offline, the commits stay local and are counted
as waiting; the next write, `vmem sync` (the session-start hook) or `vmem status` delivers them.

Everything runs under the store lock (no vmem write lands mid-replay), with git itself (no shell), each call
bounded in time, in the scrubbed environment every git child of vmem gets.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from vmem.lazyre import lazy

ATTEMPTS = 6  # push, replay on the new remote head, push again: a busy remote gets this many tries
PROPOSALS = "vmem/proposals/"  # refs/heads/vmem/proposals/<writer>: where proposals go when main is protected
# what a proposals branch may bring in (SPEC 15): new or edited items still in review, each at its entry status
ENTRY = {"claim": ("proposed",), "knowledge": ("candidate", "quarantined")}
SHOWN = 3  # paths a one-line message names before it says "…"
_OFFLINE = re.compile(r"could not resolve host|unable to access|could not read from remote|connection|timed out|"
                      r"network is unreachable|does not appear to be a git repository|no such file|"
                      r"repository exists|not found|git timeout", re.I)


class Delivery:
    """How delivery went. STATE: "local" (the branch tracks no remote), "delivered" (the remote's branch holds
    HEAD), "branch" (main refused them: they wait on BRANCH for a reviewer), "waiting" (offline, or the replay
    needs a person: MESSAGE says why, HINT what to run). WAITING: commits the remote does not hold yet."""

    __slots__ = ("state", "waiting", "remote", "branch", "message", "hint")

    def __init__(self, state: str, waiting: int = 0, remote: str | None = None, branch: str | None = None,
                 message: str | None = None, hint: str | None = None) -> None:
        self.state, self.waiting, self.remote, self.branch = state, waiting, remote, branch
        self.message, self.hint = message, hint

    def as_dict(self) -> dict:
        return {"state": self.state, "waiting": self.waiting, "remote": self.remote, "branch": self.branch,
                "message": self.message, "hint": self.hint}

    def note(self) -> str | None:
        """One line for stderr when something is left to say (nothing when all is delivered)."""
        if self.state == "waiting" and self.waiting:
            return (f"{self.waiting} commit{'s' if self.waiting != 1 else ''} not yet delivered to {self.remote} "
                    f"({self.message}); {self.hint}")
        if self.state == "branch":
            return f"main is protected on {self.remote}: delivered to {self.branch} for a reviewer to merge"
        return None

    def __repr__(self) -> str:
        return f"Delivery({self.state!r}, waiting={self.waiting}, branch={self.branch!r}, message={self.message!r})"


def run_git(root: Path, *args: str, timeout_s: float = 10.0, network: bool = False, input: bytes | None = None,
            max_output: int = 1_000_000):
    import shutil

    from vmem.process import run_bounded
    from vmem.store.gitenv import scrubbed_env

    git = shutil.which("git")
    if git is None:
        return None
    extra = {"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_SEQUENCE_EDITOR": "true",
             # the merge driver (`vmem merge-driver`) is found beside the vmem that runs now
             "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])}
    if network:
        from vmem.store.gitenv import ALLOWED_PROTOCOLS

        extra.update(GIT_ASKPASS="", SSH_ASKPASS="", GIT_ALLOW_PROTOCOL=ALLOWED_PROTOCOLS)
    return run_bounded([git, "-C", str(root), "-c", "protocol.ext.allow=never", "-c", "core.hooksPath=/dev/null",
                        *args], input=input, timeout_s=timeout_s, env=scrubbed_env(extra), max_output=max_output)


def stdout_of(done) -> str:
    return done.stdout.decode("utf-8", "replace").strip() if done is not None and done.outcome == "exited" else ""


def _ok(done) -> bool:
    return done is not None and done.outcome == "exited" and done.returncode == 0


def _err(done) -> str:
    if done is None:
        return "git is not installed"
    if done.outcome != "exited":
        return f"git {done.outcome}"
    lines = (done.stderr.decode("utf-8", "replace").strip() or done.stdout.decode("utf-8", "replace")).splitlines()
    return (lines or ["failed"])[-1].strip()


def _settings(root: Path) -> dict[str, str]:
    """The few settings delivery reads, in one git call: HEAD's branch, its upstream, vmem.deliver, user.email."""
    try:
        head = (_git_dir(root) / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return {}
    if not head.startswith("ref: refs/heads/"):
        return {}  # detached: nothing tracks
    local = head[len("ref: refs/heads/"):]
    done = run_git(root, "config", "-z", "--get-regexp",
                   rf"^(branch\.{re.escape(local)}\.(remote|merge)|vmem\.deliver|user\.email)$")
    found = {"local": local}
    for record in (done.stdout.decode("utf-8", "replace").split("\0") if done is not None else []):
        key, _, value = record.partition("\n")
        if key:
            found[key.lower().replace(f"branch.{local.lower()}.", "branch.")] = value
    return found


def _git_dir(root: Path) -> Path:
    """ROOT's git directory (a folder, or where a gitdir: file points), as the store's reader finds it."""
    from vmem.store.lite import Unsupported, _git_dirs

    try:
        return _git_dirs(root)[0]
    except Unsupported:
        return root / ".git"


def tracking(root: Path, settings: dict | None = None) -> tuple[str, str, str] | None:
    """(remote, remote branch, local branch) that HEAD's branch tracks, or None (a local store, or detached)."""
    settings = _settings(root) if settings is None else settings
    remote, merge = settings.get("branch.remote", ""), settings.get("branch.merge", "")
    if not remote or remote == "." or not merge.startswith("refs/heads/"):
        return None
    return remote, merge[len("refs/heads/"):], settings["local"]


def writer_branch(root: Path, settings: dict | None = None) -> str:
    """vmem/proposals/<the committer's e-mail, as a ref name>: one branch per writer."""
    if os.environ.get("GIT_COMMITTER_EMAIL"):
        email = os.environ["GIT_COMMITTER_EMAIL"]
    else:
        settings = _settings(root) if settings is None else settings
        email = settings.get("user.email") or "unknown"
    return PROPOSALS + (re.sub(r"[^a-z0-9._-]+", "-", email.lower()).strip(".-") or "unknown")


def waiting(root: Path, remote: str, branch: str, settings: dict | None = None) -> int:
    """Commits on HEAD that neither the remote's branch nor this writer's proposals branch holds (as last seen)."""
    refs = [f"refs/remotes/{remote}/{branch}", f"refs/remotes/{remote}/{writer_branch(root, settings)}"]
    done = run_git(root, "rev-list", "--count", "--ignore-missing", "HEAD", "--not", *refs)
    text = stdout_of(done)
    return int(text) if text.isdigit() else 0


def deliver(root: Path, git_dir: Path, timeout_s: float = 10.0) -> Delivery:
    """Push HEAD's branch to the remote it tracks; on a moved remote, fetch, replay and push again (ATTEMPTS); on a
    protected branch, push to this writer's proposals branch. Holds the store lock throughout."""
    from vmem.store import stage
    from vmem.store.lock import StoreLock

    settings = _settings(root)  # one git call; and one more to count what waits
    found = tracking(root, settings)
    if found is None or settings.get("vmem.deliver", "").strip().lower() in ("false", "no", "off", "0"):
        return Delivery("local")  # no remote, or the user delivers by hand
    remote, branch, _ = found
    if waiting(root, remote, branch, settings) == 0:
        return Delivery("delivered", remote=remote, branch=branch)
    if stage.waiting(git_dir):  # (flush takes the store lock itself, briefly)
        stage.flush(git_dir, root, wait_s=5.0)  # git's index in step with HEAD before git replays onto it
    with StoreLock(git_dir / "vmem.lock"):
        problem = ""
        for attempt in range(ATTEMPTS):
            pushed = run_git(root, "push", "--porcelain", "--quiet", remote, f"HEAD:refs/heads/{branch}",
                          timeout_s=timeout_s, network=True)
            if pushed is not None and pushed.outcome == "exited" and pushed.returncode == 0:
                return Delivery("delivered", remote=remote, branch=branch)
            problem = _err(pushed)
            text = (stdout_of(pushed) + "\n" + (pushed.stderr.decode("utf-8", "replace") if pushed else "")).lower()
            refused = [line.split("\t")[-1] for line in stdout_of(pushed).splitlines() if line.startswith("!")]
            problem = refused[0] if refused else problem
            if "declined" in text or "protected" in text:  # the host's rule: main is not this writer's to push
                return _to_writer_branch(root, remote, branch, timeout_s, problem)
            if "rejected" in text or "cannot lock ref" in text or "failed to update ref" in text:
                if attempt:  # a teammate's push won; pushing at the same moment as others: step aside a little
                    import random
                    import time

                    time.sleep(random.uniform(0.02, 0.1) * attempt)
                replayed = _replay(root, remote, branch, timeout_s)
                if replayed is not None:
                    return replayed
                continue
            break  # offline, or refused for a reason no retry changes
        return Delivery("waiting", waiting(root, remote, branch), remote, branch,
                        "offline" if _OFFLINE.search(problem) else problem,
                        "they go with the next vmem write, vmem sync or vmem status")


def _replay(root: Path, remote: str, branch: str, timeout_s: float) -> Delivery | None:
    """Fetch the remote's branch and replay HEAD's own commits on it; None to push again, or why it stopped."""
    fetched = run_git(root, "fetch", "--quiet", remote, f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}",
                   timeout_s=timeout_s, network=True)
    if fetched is None or fetched.outcome != "exited" or fetched.returncode != 0:
        return Delivery("waiting", waiting(root, remote, branch), remote, branch, _err(fetched),
                        "they go with the next vmem write, vmem sync or vmem status")
    rebased = run_git(root, "rebase", "--quiet", f"refs/remotes/{remote}/{branch}", timeout_s=timeout_s * 3)
    if rebased is None or rebased.outcome != "exited" or rebased.returncode != 0:
        run_git(root, "rebase", "--abort")
        return Delivery("waiting", waiting(root, remote, branch), remote, branch,
                        f"replaying them on {remote}/{branch} needs a person ({_err(rebased)})",
                        f"run: git -C {root} pull --rebase, settle what it shows, then vmem status")
    return None


def _to_writer_branch(root: Path, remote: str, branch: str, timeout_s: float, why: str) -> Delivery:
    mine = writer_branch(root)
    pushed = run_git(root, "push", "--porcelain", "--quiet", "--force", remote, f"HEAD:refs/heads/{mine}",
                  timeout_s=timeout_s, network=True)
    if pushed is not None and pushed.outcome == "exited" and pushed.returncode == 0:
        return Delivery("branch", 0, remote, mine, f"{remote}/{branch} refused them ({why})")
    return Delivery("waiting", waiting(root, remote, branch), remote, branch,
                    f"{remote}/{branch} refused them ({why}) and so did {mine} ({_err(pushed)})",
                    "ask a reviewer about the repository's permissions")


def integrate(root: Path, git_dir: Path, timeout_s: float = 10.0) -> list[dict]:
    """A reviewer's side of protected main: fetch every writer's proposals branch, merge each into HEAD's branch
    (the writers' own commits, so every proposal stays its writer's) when it only adds or edits items still in
    review (_beyond_proposals), push, and retire the branches that were merged unless their writer pushed more
    meanwhile. One dict per branch: {branch, merged, message}."""
    from vmem.store.lock import StoreLock

    found = tracking(root)
    if found is None:
        return []
    remote, branch, _ = found
    with StoreLock(git_dir / "vmem.lock"):
        fetched = run_git(root, "fetch", "--quiet", "--prune", remote,
                       f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}",
                       f"+refs/heads/{PROPOSALS}*:refs/remotes/{remote}/{PROPOSALS}*", timeout_s=timeout_s,
                       network=True)
        if fetched is None or fetched.outcome != "exited" or fetched.returncode != 0:
            return [{"branch": None, "merged": False, "message": f"cannot fetch from {remote}: {_err(fetched)}"}]
        merged = run_git(root, "merge", "--ff-only", "--quiet", f"refs/remotes/{remote}/{branch}")
        if merged.returncode != 0:
            return [{"branch": None, "merged": False,
                     "message": f"this clone and {remote}/{branch} have parted; run: git -C {root} pull --rebase"}]
        listed = stdout_of(run_git(root, "for-each-ref", "--format=%(refname) %(objectname)",
                           f"refs/remotes/{remote}/{PROPOSALS}"))
        results = []
        for line in listed.splitlines():
            ref, sha = line.split()
            name = ref[len(f"refs/remotes/{remote}/"):]
            if run_git(root, "merge-base", "--is-ancestor", sha, "HEAD").returncode == 0:
                results.append({"branch": name, "merged": True, "message": "already merged"})
                continue
            beyond, base = _beyond_proposals(root, sha)
            if beyond:  # CI, vmem.yaml, a decision, a deletion or a rename waits for a person to look
                results.append({"branch": name, "merged": False,
                                "message": f"not merged: it also changes {', '.join(beyond[:SHOWN])}"
                                           f"{' …' if len(beyond) > SHOWN else ''}; a proposal only adds or edits "
                                           f"items still in review; look: git -C {root} diff --no-renames "
                                           f"--name-status {(base or 'HEAD')[:12]} {sha[:12]}"})
            else:
                done = run_git(root, "merge", "--no-edit", "--quiet", "-m", f"vmem: merge proposals from {name}", sha,
                            timeout_s=timeout_s * 3)
                if done.returncode != 0:
                    run_git(root, "merge", "--abort")
                    results.append({"branch": name, "merged": False, "message": _err(done)})
                    continue
                results.append({"branch": name, "merged": True, "message": "merged"})
        pushed = run_git(root, "push", "--quiet", remote, f"HEAD:refs/heads/{branch}", timeout_s=timeout_s,
                      network=True)
        if pushed.returncode != 0:
            return [*results, {"branch": None, "merged": False, "message": f"push refused: {_err(pushed)}"}]
        for row in results:
            if row["merged"]:  # only if the writer pushed nothing since (a lease on what was fetched)
                sha = stdout_of(run_git(root, "rev-parse", f"refs/remotes/{remote}/{row['branch']}"))
                run_git(root, "push", "--quiet", f"--force-with-lease=refs/heads/{row['branch']}:{sha}", remote,
                     f":refs/heads/{row['branch']}", timeout_s=timeout_s, network=True)
        return results


# where each kind of file a proposal may add lives (compiled when a reviewer's review first asks)
_PLACES = (("claim", lazy(r"claims/[0-9a-f]{2}/c-[0-9a-f]{12}\.yaml")),
           ("knowledge", lazy(r"knowledge/[0-9a-f]{2}/k-[0-9a-f]{12}\.yaml")),
           ("entity", lazy(r"entities/[a-z0-9][a-z0-9_-]{0,63}\.yaml")),
           ("episode", lazy(r"episodes/[a-z0-9][a-z0-9_-]{0,63}/[a-z0-9][a-z0-9_-]{0,63}\.yaml")))


def _beyond_proposals(root: Path, sha: str) -> tuple[list[str], str | None]:
    """What the branch at SHA changes beyond a proposal, judged by the trees (the merge base's against SHA's, with
    renames as the deletion and addition they are): each offending path with why; and the merge base. A proposal
    adds or edits claims still `proposed` and knowledge still `candidate`/`quarantined` (before and after, on the
    merge base and on HEAD), and adds customers and episodes; it deletes, renames and decides nothing."""
    base = stdout_of(run_git(root, "merge-base", "HEAD", sha))
    if not base:
        return ["its history (it shares none with this branch)"], None
    raw = run_git(root, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", "--no-textconv",
                  "--ignore-submodules=none", base, sha, timeout_s=30.0, max_output=32_000_000)
    if not _ok(raw):
        return [f"its tree (git diff: {_err(raw)})"], base
    tokens = raw.stdout.split(b"\0")
    beyond, wanted = [], []
    for meta, name in zip(tokens[0::2], tokens[1::2]):
        fields = meta.decode("ascii", "replace").lstrip(":").split()
        path = name.decode("utf-8", "replace")
        if len(fields) != 5:
            beyond.append(f"{path} (unreadable in git's listing)")
            continue
        _, mode, old, new, status = fields
        kind = next((k for k, place in _PLACES if place.fullmatch(path)), None)
        if status == "D":
            beyond.append(f"{path} (deleted)")
        elif status not in ("A", "M"):
            beyond.append(f"{path} (changed in kind)")
        elif kind is None:
            beyond.append(f"{path} (not an item)")
        elif mode != "100644":
            beyond.append(f"{path} (not a plain file)")
        elif kind in ("entity", "episode") and status == "M":
            beyond.append(f"{path} (edits an existing {'customer' if kind == 'entity' else 'episode'})")
        else:
            wanted.append((path, kind, old if status == "M" else None, new))
    if wanted:
        beyond += _judge_items(root, wanted)
    return beyond, base


def _judge_items(root: Path, wanted: list[tuple[str, str, str | None, str]]) -> list[str]:
    """Each added or edited item file (PATH, KIND, blob on the merge base or None, blob on the branch) read: the
    branch's version must be a valid item where its id places it, a claim or knowledge item at an entry status;
    the merge base's and HEAD's versions, where there are any, open proposals (customers and episodes: new)."""
    from vmem import model
    from vmem.store.parse import parse_blob

    asked = []
    for path, _, old, new in wanted:
        asked += [new, old or new, f"HEAD:{path}"]
    done = run_git(root, "cat-file", "--batch", input="".join(f"{line}\n" for line in asked).encode(),
                   timeout_s=30.0, max_output=64_000_000)
    if not _ok(done):
        return [f"{wanted[0][0]} (cannot be read: {_err(done)})"]
    blobs, out, at = [], done.stdout, 0
    for _ in asked:  # "<oid> <type> <size>\n<content>\n", or "<what was asked> missing\n"
        end = out.find(b"\n", at)
        header = out[at:end].split()
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            blobs.append((header[0].decode(), out[end + 1:end + 1 + size] if header[1] == b"blob" else None))
            at = end + 1 + size + 1
        else:
            blobs.append((None, None))
            at = end + 1
    beyond = []
    for n, (path, kind, old, _) in enumerate(wanted):
        (new_oid, new_data), (old_oid, old_data), (head_oid, head_data) = blobs[3 * n:3 * n + 3]
        entry = ENTRY.get(kind)
        try:  # a hostile file must never stop the review: anything that does not read is not merged
            item = parse_blob(kind, path, new_oid, new_data)
            if kind in ("claim", "knowledge"):
                placed = item.get("kind") == kind and model.item_path(item["id"]) == path
            elif kind == "entity":
                placed = model.entity_path(item["id"]) == path
            else:
                placed = model.episode_path(item["entity"], item["id"]) == path
        except Exception:  # noqa: BLE001 - SchemaError, InvalidId, or a blob that is not one
            beyond.append(f"{path} (not a valid {kind})")
            continue
        if not placed:
            beyond.append(f"{path} (not where its id places it)")
            continue
        if entry is None:  # a customer or an episode: new on the branch, and not on HEAD either
            if head_oid is not None:
                beyond.append(f"{path} (edits an existing {'customer' if kind == 'entity' else 'episode'})")
            continue
        if item.get("status") not in entry:
            beyond.append(f"{path} (made {item.get('status')})")
            continue
        for prior_oid, prior_data in ((old_oid, old_data) if old else (None, None), (head_oid, head_data)):
            if prior_oid is None or prior_oid == new_oid:
                continue
            try:
                status = parse_blob(kind, path, prior_oid, prior_data).get("status")
            except Exception:  # noqa: BLE001 - an earlier version that does not read is not an open proposal
                status = "unreadable"
            if status not in entry:
                beyond.append(f"{path} (edits a {status} {kind})")
                break
    return beyond


def catch_up(root: Path, git_dir: Path, timeout_s: float = 5.0) -> list[str]:
    """Session start (`vmem sync --pull`, the hook): deliver what waits, then bring HEAD to the remote's branch —
    fast-forward, or replay this clone's own commits on it — so a clone never freezes behind its remote. The
    warnings to show; offline or stuck, the last state is synced and the warning names the fix."""
    from vmem.store.lock import StoreLock

    found = tracking(root)
    if found is None:  # git says what is missing (no remote, no upstream, a detached HEAD)
        pulled = run_git(root, "pull", "--ff-only", "--quiet", timeout_s=timeout_s, network=True)
        if pulled is not None and pulled.outcome == "exited" and pulled.returncode == 0:
            return []
        return [_pull_failed(pulled, timeout_s)]
    remote, branch, _ = found
    warnings = []
    sent = deliver(root, git_dir, timeout_s)
    if sent.state == "waiting" and sent.note():
        warnings.append(sent.note())
    fetched = run_git(root, "fetch", "--quiet", remote, f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}",
                   timeout_s=timeout_s, network=True)
    if fetched is None or fetched.outcome != "exited" or fetched.returncode != 0:
        return [*warnings, _pull_failed(fetched, timeout_s)]
    theirs = f"refs/remotes/{remote}/{branch}"
    from vmem.store import stage

    if stage.waiting(git_dir):  # git's index in step with HEAD before git merges into it (flush locks itself)
        stage.flush(git_dir, root, wait_s=5.0)
    with StoreLock(git_dir / "vmem.lock"):
        if run_git(root, "merge-base", "--is-ancestor", theirs, "HEAD").returncode == 0:
            return warnings  # nothing new there (HEAD may be ahead: on a proposals branch, or waiting)
        if run_git(root, "merge", "--ff-only", "--quiet", theirs).returncode == 0:
            return warnings
        rebased = run_git(root, "rebase", "--quiet", theirs, timeout_s=timeout_s * 3)
        if rebased is None or rebased.returncode != 0:
            run_git(root, "rebase", "--abort")
            return [*warnings, f"this clone and {remote}/{branch} have parted and the replay needs a person "
                               f"({_err(rebased)}); syncing the local state; fix: git -C {root} pull --rebase"]
    return warnings


def _pull_failed(done, timeout_s: float) -> str:
    if done is not None and done.outcome == "timeout":  # the whole process group was ended, git's children too
        return f"git pull took longer than {timeout_s:g}s; syncing the local state"
    return f"git pull failed ({_err(done)}); syncing the local state"
