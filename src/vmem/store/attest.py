"""Trust derived from history (SPEC 12): the status each item may be served with, as git history attests it.

A status in a file is a claim about history. Walking the commits oldest first, an item's *attested status*
moves only when a commit changes the file's status in a way that was allowed: a vmem commit that names the
item, a transition the lifecycle table permits, and for governance targets (approved, mandatory, revoked,
rejected, published) the matching action by a committer who is a reviewer in the policy attested at the parent
(with a verified signature when `require_signed`). New files enter at an entry status (a proposed claim, a
candidate or quarantined learning), or at any status through a reviewer's import. A change that was not allowed
leaves the attested status where it was and is recorded as *unattested*, with the commit that made it.

The policy is attested the same way: a change to vmem.yaml counts only if its committer is a reviewer under the
policy attested before it (anyone, while the list is empty), so nobody adds themselves as a reviewer.

The lexicon is tracked too: an entity or episode file that cannot be read is *broken* from the commit that
broke it, and knowledge published after that point is not served until the file is fixed (SPEC 11).

The result is cached per commit in the user cache directory and brought forward commit by commit, each step
costing a tree diff and the parse of the files it changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pygit2

from vmem import model
from vmem.errors import SchemaError
from vmem.policy import DEFAULTS, POLICY_FILE, load_policy
from vmem.store import codec
from vmem.store.cache import cache_file, read_cache, write_cache
from vmem.store.changes import Change, tree_changes
from vmem.store.message import parse as parse_message
from vmem.store.parse import parse_blob

FORMAT = 2  # 2: served content (the blob a reviewer attested) and content changes made without one
TOPS = ("claims", "knowledge", "entities", "episodes", POLICY_FILE)
SERVABLE = {"claim": ("approved", "mandatory"), "knowledge": ("published",)}
ENTRY = {"claim": ("proposed",), "knowledge": ("candidate", "quarantined")}
# governance targets, and the vmem actions that may set each (a reviewer's)
GOVERNED = {
    "approved": ("approve", "mandate", "supersede", "import"),
    "mandatory": ("mandate", "supersede", "import"),
    "revoked": ("revoke",),
    "rejected": ("reject",),
    "published": ("publish", "import"),
}
GOVERNED_ACTIONS = ("approve", "mandate", "publish", "revoke", "reject")
# the other targets, and the vmem actions that set them (anyone's, within the lifecycle)
ROUTINE = {
    "superseded": ("supersede", "approve", "mandate"),
    "expired": ("expire", "consolidate"),
    "quarantined": ("propose", "consolidate"),
    "eligible": ("consolidate",),
    "candidate": ("consolidate", "edit", "forget"),
    "merged": ("consolidate",),
    "invalidated": ("forget",),
    "proposed": ("propose", "supersede"),
}
# what an agent is served of an item: a change to any of these needs a reviewer too, like a status change
CONTENT = {"claim": ("statement", "title", "scope", "audience", "personal", "paths", "expires_at", "valid_from",
                     "valid_to"),
           "knowledge": ("statement", "audience", "valid_from", "valid_to")}
CONTENT_ACTIONS = ("approve", "mandate", "publish", "import")
# two lawful steps that one consolidate commit takes at once
NET_STEPS = {("knowledge", "eligible", "quarantined"), ("knowledge", "candidate", "published")}


class State:
    """The attestation as of one commit. Plain dicts, so it marshals into the cache."""

    def __init__(self, data: dict | None = None) -> None:
        data = data or {}
        self.status: dict[str, str] = data.get("status", {})  # item path -> attested status
        self.unattested: dict[str, list] = data.get("unattested", {})  # path -> [status in file, commit]
        self.published: dict[str, int] = data.get("published", {})  # knowledge path -> seq of its publish
        self.served: dict[str, list] = data.get("served", {})  # path -> [blob served, its content fingerprint]
        self.altered: dict[str, str] = data.get("altered", {})  # path -> commit that changed served content
        self.broken: dict[str, list] = data.get("broken", {})  # lexicon path -> [seq it broke at, problem]
        self.policy: dict = data.get("policy") or DEFAULTS
        self.policy_blob: str | None = data.get("policy_blob")
        self.policy_unattested: list | None = data.get("policy_unattested")  # [blob, commit, committer]
        self.refused: list[list] = data.get("refused", [])  # [commit, action, committer, why]
        self.seq: int = data.get("seq", 0)
        self.commit: str | None = data.get("commit")
        self.root: str | None = data.get("root")  # the first commit: the store's identity across clones

    def as_dict(self) -> dict:
        return {"status": self.status, "unattested": self.unattested, "published": self.published,
                "served": self.served, "altered": self.altered,
                "broken": self.broken, "policy": self.policy, "policy_blob": self.policy_blob,
                "policy_unattested": self.policy_unattested, "refused": self.refused, "seq": self.seq,
                "commit": self.commit, "root": self.root}

    def copy(self) -> "State":
        import marshal

        return State(marshal.loads(marshal.dumps(self.as_dict())))

    # -- what consumers ask -------------------------------------------------------------------------------------

    def status_of(self, path: str) -> str | None:
        """The status history attests for the item at PATH (None: none; such an item is never served)."""
        return self.status.get(path)

    @property
    def lexicon_since(self) -> int | None:
        """The point in history from which the lexicon has been incomplete (None: every file reads)."""
        return min(seq for seq, _ in self.broken.values()) if self.broken else None

    def servable(self, path: str, kind: str) -> bool:
        """Attested as servable; knowledge published after the lexicon broke is held back until it is fixed."""
        if self.status.get(path) not in SERVABLE[kind]:
            return False
        since = self.lexicon_since
        return kind != "knowledge" or since is None or self.published.get(path, since) < since

    def served_blob(self, path: str, current: str | None) -> str | None:
        """The blob to serve for PATH: the version whose content history attests (a hand edit of an approved
        statement is not served; the reviewed text is), else the CURRENT one."""
        found = self.served.get(path)
        return found[0] if found else current

    def lexicon_problems(self) -> list[tuple[str, str]]:
        return sorted((path, problem) for path, (_, problem) in self.broken.items())


def cache_path(root: Path) -> Path:
    return cache_file(root).with_suffix(".attest")


def attestation(repo: pygit2.Repository, root: Path, commit: str | None = None) -> State:
    """The attestation at COMMIT (default HEAD): cached per commit, brought forward from the cached one."""
    if repo.head_is_unborn:
        return State()
    head = repo.head.peel(pygit2.Commit) if commit is None else repo[commit].peel(pygit2.Commit)
    target = str(head.id)
    path = cache_path(root)
    cached = read_cache(path)
    if cached is not None and (cached.get("format") != FORMAT or not isinstance(cached.get("state"), dict)):
        cached = None
    if cached is not None and cached["state"].get("commit") == target:
        return State(cached["state"])
    start = State(cached["state"]) if cached is not None else None
    state = _walk(repo, head, start, root)
    if commit is None:  # the cache follows HEAD; a look into the past (recall --as-of) leaves it alone
        write_cache(path, {"format": FORMAT, "state": state.as_dict()})
    return state


def _walk(repo: pygit2.Repository, head: pygit2.Commit, start: State | None, root: Path) -> State:
    """Replay the commits after START's commit up to HEAD, oldest first; from the root if START does not fit."""
    commits = _range(repo, head, start.commit) if start is not None and start.commit else None
    if commits is None:
        start = None
        commits = list(repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE))
    states: dict[str, State] = {start.commit: start} if start is not None else {}
    need: dict[str, int] = {}
    for commit in commits:
        for parent_id in commit.parent_ids:
            need[str(parent_id)] = need.get(str(parent_id), 0) + 1
    seq = start.seq if start is not None else 0
    verifier = _Verifier(root)
    for commit in commits:
        seq += 1
        state = _step(repo, commit, states, need, seq, verifier)
        state.seq, state.commit = seq, str(commit.id)
        states[str(commit.id)] = state
    return states[str(head.id)]


def _range(repo: pygit2.Repository, head: pygit2.Commit, since: str) -> list[pygit2.Commit] | None:
    """The commits after SINCE up to HEAD, oldest first, if each one's parents are among them or SINCE."""
    try:
        repo[since].peel(pygit2.Commit)
    except (KeyError, ValueError, TypeError, pygit2.GitError):
        return None
    walker = repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    walker.hide(since)
    commits = list(walker)
    if not commits:
        return None  # HEAD is SINCE's ancestor (a look into the past): replay from the start
    known = {since} | {str(c.id) for c in commits}
    if any(str(p) not in known for c in commits for p in c.parent_ids):
        return None  # HEAD is not a descendant of SINCE (history rewritten, branch switched): start over
    return commits


def _take(states: dict[str, State], need: dict[str, int], commit_id: str, own: bool) -> State:
    """A parent's state: handed over when this is its last child to be replayed, else copied (or read only)."""
    need[commit_id] -= 1
    if need[commit_id] == 0:
        return states.pop(commit_id)
    return states[commit_id].copy() if own else states[commit_id]


class _Verifier:
    """Reviewer checks with `require_signed`: `git verify-commit`, once per commit."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def signed(self, commit_id: str) -> bool:
        import shutil
        import subprocess

        git = shutil.which("git")
        if git is None:
            return False  # fails closed: nothing to verify signatures with
        try:
            done = subprocess.run([git, "-C", str(self.root), "verify-commit", commit_id], capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0


def is_reviewer(policy: dict, email: str) -> bool:
    reviewers = {r.casefold() for r in policy["reviewers"]}
    return not reviewers or email.casefold() in reviewers


def _step(repo, commit: pygit2.Commit, states: dict[str, State], need: dict[str, int], seq: int,
          verifier: _Verifier) -> State:
    parents = commit.parents
    if parents:
        state = _take(states, need, str(parents[0].id), own=True)
        others = [(p, _take(states, need, str(p.id), own=False)) for p in parents[1:]]
        changes = tree_changes(parents[0].tree, commit.tree, TOPS)
    else:
        state, others, changes = State(), [], tree_changes(None, commit.tree, TOPS)
        state.root = str(commit.id)
    if not changes:
        return state
    message = parse_message(commit.message)
    policy = state.policy
    verdict: dict[str, bool] = {}

    def reviewer() -> bool:
        if "ok" not in verdict:
            verdict["ok"] = is_reviewer(policy, commit.committer.email) and (
                not policy["require_signed"] or verifier.signed(str(commit.id)))
        return verdict["ok"]

    commit_id = str(commit.id)
    if message is not None and message.action in GOVERNED_ACTIONS and not reviewer():
        who = commit.committer.email
        why = "not a reviewer" if not is_reviewer(policy, who) else "signature does not verify"
        state.refused.append([commit_id, message.action, who, why])
    for path, change in sorted(changes.items()):
        adopted = _from_other_parent(state, others, path, change)
        if adopted:
            continue
        if path == POLICY_FILE:
            _policy_step(repo, state, change, commit, reviewer)
        elif path.startswith(("entities/", "episodes/")):
            _lexicon_step(repo, state, path, change, seq)
        elif path.startswith(("claims/", "knowledge/")):
            _item_step(repo, state, others, path, change, commit, message, reviewer, seq, policy)
    return state


def _from_other_parent(state: State, others: list, path: str, change: Change) -> bool:
    """A merge that took another parent's version of a file takes that parent's attestation of it too."""
    for parent, other in others:
        try:
            entry = parent.tree[path]
        except KeyError:
            entry = None
        theirs = Change(str(entry.id), entry.filemode) if entry is not None else Change(None)
        if theirs != change:
            continue
        for table in ("status", "unattested", "published", "broken", "served", "altered"):
            mine, source = getattr(state, table), getattr(other, table)
            if path in source:
                mine[path] = source[path]
            else:
                mine.pop(path, None)
        if path == POLICY_FILE:
            state.policy, state.policy_blob = other.policy, other.policy_blob
            state.policy_unattested = other.policy_unattested
        return True
    return False


def _policy_step(repo, state: State, change: Change, commit: pygit2.Commit, reviewer: Callable[[], bool]) -> None:
    if not change.is_file:
        return  # vmem never reads a symlinked or missing vmem.yaml; the attested policy stays
    if not reviewer():
        state.policy_unattested = [change.oid, str(commit.id), commit.committer.email]
        return
    try:
        text = codec.decode(repo[change.oid].data, POLICY_FILE)
        policy = load_policy(codec.load(text, POLICY_FILE), POLICY_FILE)
    except SchemaError:
        return  # unreadable: every command says so; the attested policy stays
    state.policy, state.policy_blob, state.policy_unattested = policy, change.oid, None


def lexicon_problem(repo, path: str, change: Change) -> str | None:
    """Why an entities/ or episodes/ file cannot feed the lexicon (None: it can, or it is not a lexicon file)."""
    name = path.rsplit("/", 1)[-1]
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix not in ("yaml", "yml"):
        return None if change.is_file or change.oid is None else "a symlink or other non-file; vmem never follows it"
    if not name.endswith(".yaml"):
        return "named .yml or .YAML; vmem reads only .yaml files: rename it"
    if not change.is_file:
        return "a symlink; vmem never follows symlinks: replace it with the file itself"
    kind = "entity" if path.startswith("entities/") else "episode"
    try:
        parse_blob(kind, path, change.oid, repo[change.oid].data)
    except SchemaError as exc:
        return exc.message
    return None


def _lexicon_step(repo, state: State, path: str, change: Change, seq: int) -> None:
    problem = lexicon_problem(repo, path, change) if change.oid is not None else None
    if problem is None:
        state.broken.pop(path, None)
    elif path not in state.broken:
        state.broken[path] = [seq, problem]
    else:
        state.broken[path] = [state.broken[path][0], problem]


def _read_item(repo, path: str, change: Change) -> dict | None:
    if not change.is_file or not path.endswith(".yaml"):
        return None
    kind = "claim" if path.startswith("claims/") else "knowledge"
    try:
        item = parse_blob(kind, path, change.oid, repo[change.oid].data)
    except SchemaError:
        return None
    return item if model.item_path(item["id"]) == path else None


def fingerprint(item: dict) -> str:
    import hashlib

    values = repr(tuple(item.get(key) for key in CONTENT[item["kind"]]))
    return hashlib.sha1(values.encode("utf-8")).hexdigest()[:16]


def _item_step(repo, state: State, others: list, path: str, change: Change, commit: pygit2.Commit, message,
               reviewer: Callable[[], bool], seq: int, policy: dict) -> None:
    if not change.is_file:
        for table in (state.status, state.unattested, state.published, state.served, state.altered):
            table.pop(path, None)  # gone (or a symlink, which is never read): nothing to serve
        return
    item = _read_item(repo, path, change)
    if item is None:
        return  # unreadable: never served; what history attested stays for when it is fixed
    new, prev = item["status"], state.status.get(path)
    if new == prev:
        state.unattested.pop(path, None)
        _content_step(state, path, change, item, message, commit, reviewer)
        return
    if any(other.status.get(path) == new for _, other in others):
        # a merge keeping the other side's status (the merge driver's union, say): attested there
        source = next(o for _, o in others if o.status.get(path) == new)
        state.status[path] = new
        state.unattested.pop(path, None)
        for table in ("published", "served", "altered"):
            mine, theirs = getattr(state, table), getattr(source, table)
            if path in theirs:
                mine[path] = theirs[path]
            else:
                mine.pop(path, None)
        return
    if allowed(item, prev, message, commit, reviewer, policy):  # the policy attested at the parent
        state.status[path] = new
        state.unattested.pop(path, None)
        state.served[path] = [change.oid, fingerprint(item)]  # what the transition was made on
        state.altered.pop(path, None)
        if new == "published":
            state.published[path] = seq
        else:
            state.published.pop(path, None)
    elif (state.unattested.get(path) or [None])[0] != new:
        state.unattested[path] = [new, str(commit.id)]


def _content_step(state: State, path: str, change: Change, item: dict, message, commit: pygit2.Commit,
                  reviewer: Callable[[], bool]) -> None:
    """The status held; did what an agent is served change, and who changed it?"""
    mark = fingerprint(item)
    served = state.served.get(path)
    if item["status"] not in SERVABLE[item["kind"]] or served is None or served[1] == mark:
        state.served[path] = [change.oid, mark]  # not served, or the same content (a verification, evidence)
        state.altered.pop(path, None)
        return
    if (message is not None and message.action in CONTENT_ACTIONS
            and (message.action == "import" or item["id"] in message.items) and reviewer()):
        state.served[path] = [change.oid, mark]
        state.altered.pop(path, None)
        return
    state.altered.setdefault(path, str(commit.id))  # the reviewed version stays the one served


def allowed(item: dict, prev: str | None, message, commit: pygit2.Commit, reviewer: Callable[[], bool],
            policy: dict) -> bool:
    """May this commit move ITEM from PREV (None: a new file) to the status its file now holds?"""
    kind, new = item["kind"], item["status"]
    action = message.action if message is not None else None
    if action is None or (action != "import" and item["id"] not in message.items):
        return prev is None and new in ENTRY[kind]  # anyone may add a proposal, by hand or not
    if prev is None:
        if new in ENTRY[kind]:
            return True
        if action == "import":
            return reviewer()
        return kind == "claim" and action == "supersede" and new in ("approved", "mandatory") and reviewer()
    if new not in model.TRANSITIONS[kind].get(prev, ()) and (kind, prev, new) not in NET_STEPS:
        return False
    if new in GOVERNED:
        if new == "published" and action == "consolidate":
            knowledge = policy["knowledge"]
            return bool(knowledge["auto_publish"] and knowledge["default_audience"])
        return action in GOVERNED[new] and reviewer()
    if action == "import":
        return reviewer()
    if action not in ROUTINE.get(new, ()):
        return False  # a gate result claimed by an approve commit, say: the action must be one that sets it
    if new == "superseded" and prev in ("approved", "mandatory", "published"):
        return action in ("supersede", "approve", "mandate") and reviewer()  # retiring a reviewed belief
    if new == "expired":
        expires = item.get("expires_at")
        return bool(expires) and model.parse_ts(expires).timestamp() <= commit.committer.time
    return True
