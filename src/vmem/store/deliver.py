"""Delivering a clone's commits to the team's remote (SPEC 15): the git host is vmem's server.

After a write, and at session start, a clone whose branch tracks a remote pushes what the remote lacks. When the
remote moved meanwhile (a teammate pushed first), vmem fetches and replays the clone's own commits — those the
remote never held, as far as this clone saw it (the remote-tracking ref, before the fetch and in its reflog) — on
the new remote head (`git rebase`: the commits stay the same person's; vmem's merge driver settles two edits of
one item) and pushes again, a bounded number of times, with a lease on the remote head it replayed on. Commits
the remote held and no longer holds (a force-push dropped them) are never replayed nor pushed back from here:
they are recorded in the git directory (DROPPED) and named by every delivery, session start and `vmem status`
until they are back on the remote or the user removes that file. When the remote refuses the branch itself (a
protected `main` that only reviewers may push), the commits go to this clone's own branch,
vmem/proposals/<writer>/<clone id>, pushed without --force over anything this clone lacks; a reviewer's
`vmem review` fetches and merges them (integrate), taking in only additions and edits of open items. Offline,
the commits stay local and are counted as waiting; the next write, `vmem sync` (the session-start hook) or
`vmem status` delivers them.

Everything runs under the store lock (no vmem write lands mid-replay), with git itself (no shell), each call
bounded in time, in the scrubbed environment every git child of vmem gets.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from vmem.lazyre import lazy
from vmem.output import counted

ATTEMPTS = 6  # push, replay on the new remote head, push again: a busy remote gets this many tries
PROPOSALS = "vmem/proposals/"  # refs/heads/vmem/proposals/<writer>/<clone id>: proposals when main is protected
CLONE_ID = "vmem.cloneid"  # this clone's part of its proposals branch's name, in the clone's own git config
DROPPED = "vmem-dropped.json"  # in the git directory: commits the remote held and dropped, until they are back
# what a proposals branch may bring in (SPEC 15): new or edited items still in review, each at its entry status
ENTRY = {"claim": ("proposed",), "knowledge": ("candidate", "quarantined")}
SHOWN = 3  # commits or paths a one-line message names before it says "…"
_KEPT = 20  # dropped commits remembered by name (the count is kept whole)
_HINT = "they go with the next vmem write, vmem sync or vmem status"
_OFFLINE = re.compile(r"could not resolve host|unable to access|could not read from remote|connection|timed out|"
                      r"network is unreachable|does not appear to be a git repository|no such file|"
                      r"repository exists|not found|git timeout", re.I)


class Delivery:
    """How delivery went. STATE: "local" (the branch tracks no remote), "delivered" (the remote's branch holds
    HEAD), "branch" (main refused them: they wait on BRANCH for a reviewer), "waiting" (offline, or the replay
    needs a person: MESSAGE says why, HINT what to run). WAITING: commits the remote does not hold yet.
    DROPPED: the notice about commits a force-push took off the remote (None: nothing dropped)."""

    __slots__ = ("state", "waiting", "remote", "branch", "message", "hint", "dropped")

    def __init__(self, state: str, waiting: int = 0, remote: str | None = None, branch: str | None = None,
                 message: str | None = None, hint: str | None = None, dropped: str | None = None) -> None:
        self.state, self.waiting, self.remote, self.branch = state, waiting, remote, branch
        self.message, self.hint, self.dropped = message, hint, dropped

    def as_dict(self) -> dict:
        return {"state": self.state, "waiting": self.waiting, "remote": self.remote, "branch": self.branch,
                "message": self.message, "hint": self.hint}

    def note(self) -> str | None:
        """One line for stderr when something is left to say (nothing when all is delivered)."""
        said = None
        if self.state == "waiting" and self.waiting:
            said = (f"{counted(self.waiting, 'commit')} not yet delivered to {self.remote} "
                    f"({self.message}); {self.hint}")
        elif self.state == "branch":
            said = f"main is protected on {self.remote}: delivered to {self.branch} for a reviewer to merge"
        return "; ".join(part for part in (said, self.dropped) if part) or None

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
    """The few settings delivery reads, in one git call: HEAD's branch, its upstream, vmem.deliver, this clone's
    id, user.email."""
    try:
        head = (_git_dir(root) / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return {}
    if not head.startswith("ref: refs/heads/"):
        return {}  # detached: nothing tracks
    local = head[len("ref: refs/heads/"):]
    done = run_git(root, "config", "-z", "--get-regexp",
                   rf"^(branch\.{re.escape(local)}\.(remote|merge)|vmem\.deliver|{re.escape(CLONE_ID)}|user\.email)$")
    found = {"local": local}
    for record in (done.stdout.decode("utf-8", "replace").split("\0") if done is not None else []):
        key, _, value = record.partition("\n")
        if key:
            found[key.lower().replace(f"branch.{local.lower()}.", "branch.")] = value
    return found


def _git_dir(root: Path) -> Path:
    """ROOT's git directory (a folder, or where a gitdir: file points), as the store's reader finds it."""
    from vmem.store.lite import Unsupported, git_dirs

    try:
        return git_dirs(root)[0]
    except Unsupported:
        return root / ".git"


def _ref_values(root: Path, *names: str) -> dict[str, str]:
    """{ref: commit} for those of NAMES that exist, read from the ref files (no process before every push); a
    repository with git's reftable storage is asked through git."""
    from vmem.store.lite import Unsupported, git_dirs

    try:
        common = git_dirs(root)[1].parent
    except Unsupported:
        common = root / ".git"
    if (common / "reftable").is_dir():
        listed = stdout_of(run_git(root, "for-each-ref", "--format=%(refname) %(objectname)", *names))
        return {ref: sha for ref, _, sha in (line.partition(" ") for line in listed.splitlines()) if ref in names}
    found, packed = {}, None
    for name in names:
        try:
            value = (common / name).read_text(encoding="ascii", errors="replace").strip()
        except OSError:  # not a loose ref (or a folder): packed, or absent
            value = ""
        if re.fullmatch(r"[0-9a-f]{40}([0-9a-f]{24})?", value):
            found[name] = value
            continue
        if packed is None:
            try:
                lines = (common / "packed-refs").read_text(encoding="ascii", errors="replace").splitlines()
            except OSError:
                lines = []
            packed = dict(reversed(line.split(" ", 1)) for line in lines if line[:1] not in ("#", "^", "")
                          and " " in line)
        if name in packed:
            found[name] = packed[name]
    return found


def _ancestor(root: Path, older: str, newer: str) -> bool:
    done = run_git(root, "merge-base", "--is-ancestor", older, newer)
    return done is not None and done.outcome == "exited" and done.returncode == 0


def tracking(root: Path, settings: dict | None = None) -> tuple[str, str, str] | None:
    """(remote, remote branch, local branch) that HEAD's branch tracks, or None (a local store, or detached)."""
    settings = _settings(root) if settings is None else settings
    remote, merge = settings.get("branch.remote", ""), settings.get("branch.merge", "")
    if not remote or remote == "." or not merge.startswith("refs/heads/"):
        return None
    return remote, merge[len("refs/heads/"):], settings["local"]


def writer_branch(root: Path, settings: dict | None = None, create: bool = False) -> str | None:
    """vmem/proposals/<the committer's e-mail, as a ref name>/<this clone's id>: one branch per clone, so two
    clones of one writer (a project's managed clone and a `vmem clone`) never push over each other. The id is
    made once, when CREATE (the first proposals push); until then None: this clone has no proposals branch."""
    settings = _settings(root) if settings is None else settings
    if os.environ.get("GIT_COMMITTER_EMAIL"):
        email = os.environ["GIT_COMMITTER_EMAIL"]
    else:
        email = settings.get("user.email") or "unknown"
    writer = re.sub(r"[^a-z0-9._-]+", "-", email.lower()).strip(".-") or "unknown"
    clone = settings.get(CLONE_ID, "").strip().lower()
    if not re.fullmatch(r"[a-z0-9]{4,32}", clone):
        if not create:
            return None
        import secrets

        clone = secrets.token_hex(4)  # a short random token: clones of one writer never collide in practice
        if not _ok(run_git(root, "config", CLONE_ID, clone)):
            return None
        settings[CLONE_ID] = clone
    return f"{PROPOSALS}{writer}/{clone}"


def _tracked(remote: str, branch: str | None) -> str:
    return f"refs/remotes/{remote}/{branch}"


def _counts(root: Path, remote: str, branch: str, settings: dict | None) -> tuple[int, int, str | None]:
    """(commits on HEAD that neither the remote's branch nor this clone's proposals branch holds, commits of the
    remote's branch that HEAD lacks, the remote branch's commit) as last seen, in one rev-list."""
    mine = writer_branch(root, settings)
    names = [_tracked(remote, branch)] + ([_tracked(remote, mine)] if mine else [])
    seen = _ref_values(root, *names)
    theirs, others = seen.get(names[0]), [seen[name] for name in names[1:] if name in seen]
    if theirs is None:
        text = stdout_of(run_git(root, "rev-list", "--count", "HEAD", "--not", *others))
        return (int(text) if text.isdigit() else 0), 0, None
    counted = stdout_of(run_git(root, "rev-list", "--left-right", "--count", f"{theirs}...HEAD", "--not", *others))
    behind, _, ahead = counted.partition("\t")
    return (int(ahead) if ahead.isdigit() else 0), (int(behind) if behind.isdigit() else 0), theirs


def waiting(root: Path, remote: str, branch: str, settings: dict | None = None) -> int:
    """Commits on HEAD that neither the remote's branch nor this clone's proposals branch holds (as last seen)."""
    return _counts(root, remote, branch, settings)[0]


def deliver(root: Path, git_dir: Path, timeout_s: float = 10.0, settings: dict | None = None) -> Delivery:
    """Push HEAD's branch to the remote it tracks; on a moved remote, fetch, replay this clone's own commits and
    push again (ATTEMPTS); on a protected branch, push to this clone's proposals branch. Holds the store lock
    throughout. SETTINGS: _settings' answer, when the caller has it."""
    from vmem.store import stage
    from vmem.store.lock import StoreLock

    settings = _settings(root) if settings is None else settings  # one git call; and one more to count what waits
    found = tracking(root, settings)
    if found is None or settings.get("vmem.deliver", "").strip().lower() in ("false", "no", "off", "0"):
        return Delivery("local")  # no remote, or the user delivers by hand
    remote, branch, _ = found
    dropped = dropped_note(root, git_dir)
    ahead, behind, theirs = _counts(root, remote, branch, settings)
    if ahead == 0:
        return Delivery("delivered", remote=remote, branch=branch, dropped=dropped)
    if stage.waiting(git_dir):  # (flush takes the store lock itself, briefly)
        stage.flush(git_dir, root, wait_s=5.0)  # git's index in step with HEAD before git replays onto it
    with StoreLock(git_dir / "vmem.lock"):
        problem = ""
        for attempt in range(ATTEMPTS):
            if behind:  # the remote holds what HEAD lacks: replay this clone's own commits on it first
                stopped = _replay(root, git_dir, remote, branch, timeout_s)
                if stopped is not None:
                    stopped.dropped = dropped_note(root, git_dir)
                    return stopped
                behind, theirs = 0, _ref_values(root, _tracked(remote, branch)).get(_tracked(remote, branch))
            # the lease: the push lands only on the remote head HEAD was built on, so a remote that moved (or was
            # forced back) meanwhile is fetched and looked at before anything of this clone goes on top of it
            lease = [f"--force-with-lease=refs/heads/{branch}:{theirs}"] if theirs else []
            pushed = run_git(root, "push", "--porcelain", "--quiet", *lease, remote, f"HEAD:refs/heads/{branch}",
                             timeout_s=timeout_s, network=True)
            if _ok(pushed):
                return Delivery("delivered", remote=remote, branch=branch, dropped=dropped_note(root, git_dir))
            problem = _err(pushed)
            text = (stdout_of(pushed) + "\n" + (pushed.stderr.decode("utf-8", "replace") if pushed else "")).lower()
            refused = [line.split("\t")[-1] for line in stdout_of(pushed).splitlines() if line.startswith("!")]
            problem = refused[0] if refused else problem
            if "declined" in text or "protected" in text:  # the host's rule: main is not this writer's to push
                sent = _to_writer_branch(root, remote, branch, timeout_s, problem, settings)
                sent.dropped = dropped_note(root, git_dir)
                return sent
            if "rejected" in text or "cannot lock ref" in text or "failed to update ref" in text:
                if attempt:  # a teammate's push won; pushing at the same moment as others: step aside a little
                    import random
                    import time

                    time.sleep(random.uniform(0.02, 0.1) * attempt)
                behind = 1  # fetch and look before the next push
                continue
            break  # offline, or refused for a reason no retry changes
        return Delivery("waiting", waiting(root, remote, branch), remote, branch,
                        "offline" if _OFFLINE.search(problem) else problem, _HINT, dropped_note(root, git_dir))


def _fetch(root: Path, remote: str, branch: str, mine: str | None, timeout_s: float):
    """Fetch the remote's BRANCH, and this clone's proposals branch MINE when it has one (a glob, so a branch the
    remote no longer has is pruned here instead of failing the fetch)."""
    specs = [f"+refs/heads/{branch}:{_tracked(remote, branch)}"]
    if mine:
        specs.append(f"+refs/heads/{mine}*:{_tracked(remote, mine)}*")
    return run_git(root, "fetch", "--quiet", *(["--prune"] if mine else []), remote, *specs, timeout_s=timeout_s,
                   network=True)


def _replay(root: Path, git_dir: Path, remote: str, branch: str, timeout_s: float) -> Delivery | None:
    """Fetch the remote's branch and replay HEAD's own commits on it; None to push again, or why it stopped."""
    before = _ref_values(root, _tracked(remote, branch)).get(_tracked(remote, branch))
    fetched = _fetch(root, remote, branch, None, timeout_s)
    if not _ok(fetched):
        return Delivery("waiting", waiting(root, remote, branch), remote, branch, _err(fetched), _HINT)
    stuck = _settle(root, git_dir, remote, branch, before, follow=True, timeout_s=timeout_s)
    if stuck:
        return Delivery("waiting", waiting(root, remote, branch), remote, branch,
                        f"replaying them on {remote}/{branch} needs a person ({stuck})",
                        f"run: git -C {root} pull --rebase, settle what it shows, then vmem status")
    return None


def _settle(root: Path, git_dir: Path, remote: str, branch: str, before: str | None, follow: bool,
            timeout_s: float) -> str | None:
    """After a fetch of the remote's BRANCH (whose remote-tracking ref was BEFORE): when the remote no longer holds
    commits this clone had from it (a force-push), record them and replay only this clone's own commits on the
    new head; else, when FOLLOW, bring HEAD to it (fast-forward, or replay HEAD's own commits). Under the store
    lock. None, or why the replay needs a person."""
    theirs = _tracked(remote, branch)
    new = _ref_values(root, theirs).get(theirs)
    if new is None:
        return None
    if (git_dir / DROPPED).is_file():
        _forget_restored(root, git_dir, new)
    forced = before is not None and before != new and not _ancestor(root, before, new)
    if forced:
        base = _own_base(root, theirs, before)
        if base and _drop(root, git_dir, remote, branch, base, new):
            return _rebase(root, ["--onto", new, base], timeout_s)  # only what follows BASE is this clone's
    if _ancestor(root, new, "HEAD") or not follow:
        return None  # nothing new there (HEAD may be ahead: on a proposals branch, or waiting)
    if _ok(run_git(root, "merge", "--ff-only", "--quiet", new)):
        return None
    if not forced:  # parted: a drop may have been fetched before (a plain `git fetch` took the new head in first)
        base = _own_base(root, theirs, before)
        if base and _drop(root, git_dir, remote, branch, base, new):
            return _rebase(root, ["--onto", new, base], timeout_s)
    return _rebase(root, [new], timeout_s)


def _rebase(root: Path, args: list[str], timeout_s: float) -> str | None:
    rebased = run_git(root, "rebase", "--quiet", *args, timeout_s=timeout_s * 3)
    if _ok(rebased):
        return None
    run_git(root, "rebase", "--abort")
    return _err(rebased)


def _own_base(root: Path, theirs: str, before: str | None) -> str | None:
    """The newest commit HEAD has from the remote: the remote-tracking ref before the fetch, or the newest of its
    earlier values (its reflog, git's fork point) that HEAD contains. What follows it on HEAD is this clone's."""
    fork = stdout_of(run_git(root, "merge-base", "--fork-point", theirs, "HEAD")) or None
    if before and before != fork and _ancestor(root, before, "HEAD") and (fork is None or
                                                                         _ancestor(root, fork, before)):
        return before
    return fork or stdout_of(run_git(root, "merge-base", theirs, "HEAD")) or None


def _drop(root: Path, git_dir: Path, remote: str, branch: str, base: str, new: str) -> int:
    """Record the commits HEAD has from the remote (BASE and before) that its new head NEW no longer holds; how
    many."""
    if _ancestor(root, base, new):
        return 0
    listed = stdout_of(run_git(root, "log", f"--max-count={_KEPT}", "--format=%H%x1f%s%x1f%cn <%ce>", base,
                               "--not", new))
    rows = [line.split("\x1f") for line in listed.splitlines() if line.count("\x1f") == 2]
    if not rows:
        return 0
    total = len(rows)
    if total == _KEPT:
        counted = stdout_of(run_git(root, "rev-list", "--count", base, "--not", new))
        total = int(counted) if counted.isdigit() else total
    _remember(git_dir, remote, branch, [{"commit": sha, "subject": _clean(subject), "committer": _clean(who)}
                                        for sha, subject, who in rows], total)
    return total


def _clean(text: str) -> str:
    """A commit's subject or name as one harmless line (it is someone else's text)."""
    text = "".join(ch if ch.isprintable() else " " for ch in text).strip()
    return text if len(text) <= 80 else text[:79] + "…"


def _remember(git_dir: Path, remote: str, branch: str, commits: list[dict], total: int) -> None:
    known = _read_dropped(git_dir)
    if known.get("remote") == remote and known.get("branch") == branch:  # dropped before, and not back yet
        seen = {row["commit"] for row in commits}
        extra = [row for row in known["commits"] if row["commit"] not in seen]
        commits, total = (commits + extra)[:_KEPT], total + len(extra)
    _write_dropped(git_dir, {"remote": remote, "branch": branch, "count": total, "commits": commits})


def _write_dropped(git_dir: Path, data: dict) -> None:
    import json

    path = git_dir / DROPPED
    tmp = path.with_name(f"{DROPPED}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)  # whole or not at all: every command reads it


def _read_dropped(git_dir: Path) -> dict:
    import json

    try:
        data = json.loads((git_dir / DROPPED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("commits"), list):
        return {}
    data["commits"] = [row for row in data["commits"] if isinstance(row, dict)
                       and re.fullmatch(r"[0-9a-f]{40}([0-9a-f]{24})?", str(row.get("commit", "")))]
    count = data.get("count")
    data["count"] = max(count if isinstance(count, int) else 0, len(data["commits"]))
    return data


def _forget_restored(root: Path, git_dir: Path, new: str) -> None:
    """Drop from the record the commits the remote's head NEW holds again (a reviewer restored them)."""
    known = _read_dropped(git_dir)
    listed = [row["commit"] for row in known.get("commits", [])]
    if not listed:
        (git_dir / DROPPED).unlink(missing_ok=True)
        return
    done = run_git(root, "rev-list", *listed, "--not", new)
    if not _ok(done):
        return  # a commit this clone no longer has: the record stays until the user removes it
    still = set(stdout_of(done).split())
    kept = [row for row in known["commits"] if row["commit"] in still]
    if not kept:
        (git_dir / DROPPED).unlink(missing_ok=True)
    elif len(kept) < len(listed):
        _write_dropped(git_dir, {**known, "commits": kept, "count": known["count"] - len(listed) + len(kept)})


def dropped(git_dir: Path) -> list[dict]:
    """The commits a force-push took off the remote that this clone had: [{commit, subject, committer}]."""
    return [{key: str(row.get(key, "")) for key in ("commit", "subject", "committer")}
            for row in _read_dropped(git_dir).get("commits", [])]


def dropped_note(root: Path, git_dir: Path) -> str | None:
    """The one line every command shows while commits dropped from the remote are not back (None: none)."""
    if not (git_dir / DROPPED).is_file():
        return None
    known = _read_dropped(git_dir)
    rows = known.get("commits") or []
    if not rows:
        return None
    total = known["count"]
    named = ", ".join(f"{row['commit'][:10]} \"{_clean(str(row.get('subject', '')))}\" "
                      f"({_clean(str(row.get('committer', '')))})" for row in rows[:SHOWN])
    return (f"{known.get('remote')}/{known.get('branch')} dropped {counted(total, 'commit')} this "
            f"clone had (a force-push): {named}{' …' if total > SHOWN else ''}; not delivered again from here; a "
            f"reviewer restores them with: git merge {rows[0]['commit'][:10]} (in the reviewer's clone, then vmem "
            f"status); to stop this notice: rm {git_dir / DROPPED}")


def _to_writer_branch(root: Path, remote: str, branch: str, timeout_s: float, why: str,
                      settings: dict | None = None) -> Delivery:
    """Push HEAD to this clone's proposals branch: plainly; over commits the branch holds that HEAD lacks only
    when they are this clone's own, replayed since (the same changes are on HEAD) — never over anyone else's."""
    mine = writer_branch(root, settings if settings is not None else _settings(root), create=True)
    if mine is None:
        return Delivery("waiting", waiting(root, remote, branch), remote, branch,
                        f"{remote}/{branch} refused them ({why}) and this clone cannot name its proposals branch",
                        f"run: git -C {root} config {CLONE_ID} <a few letters and digits>")
    theirs, legacy = _tracked(remote, mine), mine.rsplit("/", 1)[0]  # vmem/proposals/<writer>: an earlier vmem's
    if _tracked(remote, legacy) in _ref_values(root, _tracked(remote, legacy)):  # a file where a folder must be
        run_git(root, "update-ref", "-d", _tracked(remote, legacy))
    lease: list[str] = []
    for _ in range(ATTEMPTS):
        pushed = run_git(root, "push", "--porcelain", "--quiet", *lease, remote, f"HEAD:refs/heads/{mine}",
                         timeout_s=timeout_s, network=True)
        if _ok(pushed):
            return Delivery("branch", 0, remote, mine, f"{remote}/{branch} refused them ({why})")
        text = (stdout_of(pushed) + "\n" + (pushed.stderr.decode("utf-8", "replace") if pushed else "")).lower()
        if "exists; cannot create" in text:
            return Delivery("waiting", waiting(root, remote, branch), remote, mine,
                            f"{remote}/{branch} refused them ({why}), and {remote}'s {legacy}, from an earlier vmem, "
                            f"stands where this clone's {mine} goes",
                            f"a reviewer's vmem review takes it in and removes it; or remove it: git -C {root} push "
                            f"{remote} :refs/heads/{legacy}")
        if not any(reason in text for reason in ("non-fast-forward", "fetch first", "stale info")):
            break  # refused for a reason a look at the branch does not change
        fetched = run_git(root, "fetch", "--quiet", "--prune", remote, f"+refs/heads/{mine}*:{theirs}*",
                          timeout_s=timeout_s, network=True)
        if not _ok(fetched):
            break
        if theirs not in _ref_values(root, theirs):
            lease = []  # gone meanwhile (a reviewer merged it): the next push makes it again
            continue
        # commits on the branch whose changes HEAD lacks: this clone's commits, replayed since, have theirs on HEAD
        lacked = stdout_of(run_git(root, "rev-list", "--count", "--right-only", "--cherry-pick", f"HEAD...{theirs}"))
        if lacked != "0":
            count = int(lacked) if lacked.isdigit() else 0
            return Delivery("waiting", waiting(root, remote, branch), remote, mine,
                            f"{remote}/{branch} refused them ({why}); {remote}'s {mine} holds "
                            f"{counted(count, 'commit') if count else 'some commits'} this clone lacks (another clone with this clone's "
                            "id, or a teammate's push), which vmem does not overwrite",
                            f"look: git -C {root} log --oneline HEAD..{theirs}; to propose from a branch of this "
                            f"clone's own instead: git -C {root} config --unset {CLONE_ID}")
        lease = [f"--force-with-lease=refs/heads/{mine}:{theirs}"]  # only over exactly what was looked at
    return Delivery("waiting", waiting(root, remote, branch), remote, branch,
                    f"{remote}/{branch} refused them ({why}) and so did {mine} ({_err(pushed)})",
                    "ask a reviewer about the repository's permissions")


def _look(root: Path, git_dir: Path, remote: str, branch: str, settings: dict, follow: bool,
          timeout_s: float) -> dict:
    """Fetch the remote's branch and this clone's proposals branch, settle HEAD on the remote's branch (_settle)
    and count this clone's proposals that its proposals branch held and the remote now holds nowhere (LOST: a
    teammate overwrote or deleted the branch before a reviewer took them in). {fetched, stuck, lost, branch}."""
    from vmem.store import stage
    from vmem.store.lock import StoreLock

    mine = writer_branch(root, settings)
    names = [_tracked(remote, branch)] + ([_tracked(remote, mine)] if mine else [])
    before = _ref_values(root, *names)
    fetched = _fetch(root, remote, branch, mine, timeout_s)
    seen = {"fetched": fetched, "stuck": None, "lost": 0, "branch": mine}
    if not _ok(fetched):
        return seen
    if stage.waiting(git_dir):  # git's index in step with HEAD before git merges into it (flush locks itself)
        stage.flush(git_dir, root, wait_s=5.0)
    with StoreLock(git_dir / "vmem.lock"):
        seen["stuck"] = _settle(root, git_dir, remote, branch, before.get(names[0]), follow, timeout_s)
    if mine and names[1] in before:
        after = _ref_values(root, *names)
        if after.get(names[1]) != before[names[1]]:
            counted = stdout_of(run_git(root, "rev-list", "--count", before[names[1]], "--not",
                                        *after.values()))
            seen["lost"] = int(counted) if counted.isdigit() else 0
    return seen


def _lost_note(seen: dict, remote: str, again: bool) -> str | None:
    lost = seen["lost"]
    if not lost:
        return None
    return (f"{counted(lost, 'proposal')} this clone delivered to {seen['branch']} "
            f"{'is' if lost == 1 else 'are'} no longer on {remote} (a teammate overwrote or deleted the branch "
            f"before a reviewer took {'it' if lost == 1 else 'them'} in); "
            + ("delivered again" if again else "not delivered again yet"))


def catch_up(root: Path, git_dir: Path, timeout_s: float = 5.0) -> list[str]:
    """Session start (`vmem sync --pull`, the hook): fetch, bring HEAD to the remote's branch — fast-forward, or
    replay this clone's own commits on it — then deliver what waits, so a clone never freezes behind its remote.
    The warnings to show; offline or stuck, the last state is synced and the warning names the fix."""
    settings = _settings(root)
    found = tracking(root, settings)
    if found is None:  # git says what is missing (no remote, no upstream, a detached HEAD)
        pulled = run_git(root, "pull", "--ff-only", "--quiet", timeout_s=timeout_s, network=True)
        if _ok(pulled):
            return []
        return [_pull_failed(pulled, timeout_s)]
    remote, branch, _ = found
    seen = _look(root, git_dir, remote, branch, settings, True, timeout_s)
    warnings = []
    if not _ok(seen["fetched"]):  # offline: say what waits without a second try at the network
        problem, count = _err(seen["fetched"]), waiting(root, remote, branch, settings)
        if count:
            warnings.append(Delivery("waiting", count, remote, branch,
                                     "offline" if _OFFLINE.search(problem) else problem, _HINT).note())
        return [*warnings, _pull_failed(seen["fetched"], timeout_s),
                *filter(None, [dropped_note(root, git_dir)])]
    if seen["stuck"]:
        return [*filter(None, [_lost_note(seen, remote, False)]),
                f"this clone and {remote}/{branch} have parted and the replay needs a person ({seen['stuck']}); "
                f"syncing the local state; fix: git -C {root} pull --rebase",
                *filter(None, [dropped_note(root, git_dir)])]
    sent = deliver(root, git_dir, timeout_s, settings)
    return list(filter(None, [_lost_note(seen, remote, sent.state in ("delivered", "branch")),
                              sent.note() if sent.state == "waiting" else sent.dropped]))


def check(root: Path, git_dir: Path, timeout_s: float = 5.0) -> dict:
    """`vmem status`'s look at the remote before it delivers: fetch the remote's branch and this clone's proposals
    branch (bounded), record a drop, replay onto a forced head (never follow ordinary progress: that is the
    hook's). {checked, message, lost}: CHECKED False when the remote could not be asked (MESSAGE says why)."""
    settings = _settings(root)
    found = tracking(root, settings)
    if found is None:
        return {"checked": False, "message": None, "lost": 0}
    remote, branch, _ = found
    seen = _look(root, git_dir, remote, branch, settings, False, timeout_s)
    if not _ok(seen["fetched"]):
        problem = _err(seen["fetched"])
        return {"checked": False, "message": "offline" if _OFFLINE.search(problem) else problem, "lost": 0}
    return {"checked": True, "message": seen["stuck"], "lost": seen["lost"]}


def on_remote(root: Path, checked: dict) -> dict:
    """This clone's proposals against the remote as CHECKED (and delivered since): {checked, branch, held (on its
    proposals branch), missing (on neither the remote's branch nor its proposals branch), lost, message}."""
    settings = _settings(root)
    found = tracking(root, settings)
    answer = {"checked": checked.get("checked", False), "branch": None, "held": 0, "missing": 0,
              "lost": checked.get("lost", 0), "message": checked.get("message")}
    if found is None:
        return answer
    remote, branch, _ = found
    mine = writer_branch(root, settings)
    missing = waiting(root, remote, branch, settings)
    answer.update(branch=mine, missing=missing)
    if mine:
        theirs = _ref_values(root, _tracked(remote, branch)).get(_tracked(remote, branch))
        own = stdout_of(run_git(root, "rev-list", "--count", "HEAD", *(["--not", theirs] if theirs else [])))
        answer["held"] = max(0, int(own) - missing) if own.isdigit() else 0
    return answer


def integrate(root: Path, git_dir: Path, timeout_s: float = 10.0) -> list[dict]:
    """A reviewer's side of protected main: fetch every clone's proposals branch, merge each into HEAD's branch
    (the writers' own commits, so every proposal stays its writer's) when it only adds or edits items still in
    review (_beyond_proposals), push, and retire the branches that were merged unless their writer pushed more
    meanwhile. One dict per branch: {branch, merged, message}."""
    from vmem.store import stage
    from vmem.store.lock import StoreLock

    found = tracking(root)
    if found is None:
        return []
    remote, branch, _ = found
    if stage.waiting(git_dir):  # git's index in step with HEAD before git merges into it (flush locks itself)
        stage.flush(git_dir, root, wait_s=5.0)
    with StoreLock(git_dir / "vmem.lock"):
        before = _ref_values(root, _tracked(remote, branch)).get(_tracked(remote, branch))
        # a glob matches across "/": vmem/proposals/<writer>/<clone id> comes along, and so does any other name
        fetched = run_git(root, "fetch", "--quiet", "--prune", remote,
                          f"+refs/heads/{branch}:{_tracked(remote, branch)}",
                          f"+refs/heads/{PROPOSALS}*:refs/remotes/{remote}/{PROPOSALS}*", timeout_s=timeout_s,
                          network=True)
        if not _ok(fetched):
            return [{"branch": None, "merged": False, "message": f"cannot fetch from {remote}: {_err(fetched)}"}]
        stuck = _settle(root, git_dir, remote, branch, before, True, timeout_s)
        notice = [{"branch": None, "merged": False, "message": note}
                  for note in filter(None, [dropped_note(root, git_dir)])]
        if stuck:
            return [*notice, {"branch": None, "merged": False,
                              "message": f"this clone and {remote}/{branch} have parted; run: git -C {root} pull "
                                         "--rebase"}]
        listed = stdout_of(run_git(root, "for-each-ref", "--format=%(refname) %(objectname)",
                                   f"refs/remotes/{remote}/{PROPOSALS}"))
        results = []
        for line in listed.splitlines():
            ref, sha = line.split()
            name = ref[len(f"refs/remotes/{remote}/"):]
            if _ancestor(root, sha, "HEAD"):
                results.append({"branch": name, "merged": True, "message": "already merged"})
                continue
            beyond, base = _beyond_proposals(root, sha)
            if beyond:  # CI, vmem.yaml, a decision, a deletion or a rename waits for a person to look
                results.append({"branch": name, "merged": False,
                                "message": f"not merged: it also changes {', '.join(beyond[:SHOWN])}"
                                           f"{' …' if len(beyond) > SHOWN else ''}; a proposal only adds or edits "
                                           f"items still in review; look: git -C {root} diff --no-renames "
                                           f"--name-status {(base or 'HEAD')[:12]} {sha[:12]}"})
                continue
            done = run_git(root, "merge", "--no-edit", "--quiet", "-m", f"vmem: merge proposals from {name}", sha,
                           timeout_s=timeout_s * 3)
            if not _ok(done):
                run_git(root, "merge", "--abort")
                results.append({"branch": name, "merged": False, "message": _err(done)})
                continue
            results.append({"branch": name, "merged": True, "message": "merged"})
        pushed = run_git(root, "push", "--quiet", remote, f"HEAD:refs/heads/{branch}", timeout_s=timeout_s,
                         network=True)
        if not _ok(pushed):
            return [*notice, *results, {"branch": None, "merged": False, "message": f"push refused: {_err(pushed)}"}]
        for row in results:
            if row["merged"]:  # only if the writer pushed nothing since (a lease on what was fetched)
                sha = stdout_of(run_git(root, "rev-parse", f"refs/remotes/{remote}/{row['branch']}"))
                run_git(root, "push", "--quiet", f"--force-with-lease=refs/heads/{row['branch']}:{sha}", remote,
                        f":refs/heads/{row['branch']}", timeout_s=timeout_s, network=True)
        return [*notice, *results]


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


def _pull_failed(done, timeout_s: float) -> str:
    if done is not None and done.outcome == "timeout":  # the whole process group was ended, git's children too
        return f"git pull took longer than {timeout_s:g}s; syncing the local state"
    return f"git pull failed ({_err(done)}); syncing the local state"
