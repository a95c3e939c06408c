"""`vmem harvest`: candidates from the project's agent sessions and personal notes, proposed only when the analyst
accepts them (SPEC 16). One body for the CLI, the SessionEnd hook and MCP.

The queue lives in the user's data directory, one file per project (never in the store, never committed): each
candidate found, its decision (pending, accepted as a claim, dismissed) and the transcripts already read (path,
size, modification time: an unchanged file is not read again). A candidate's id is derived from the session and
the turn it was read from, and a statement already in the queue (in its canonical form) is not queued again, so
nothing is offered twice. Credentials are redacted before a candidate is queued, shown or proposed.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from vmem.errors import LockTimeout, UsageError, VmemError
from vmem.output import counted

STATE_VERSION = 1
HOOK_BUDGET_S = 0.8  # the SessionEnd hook stops reading past this (SPEC 16: bounded, never blocking)
PENDING, ACCEPTED, DISMISSED = "pending", "accepted", "dismissed"


def project_root(start: Path | None = None) -> Path:
    """The project whose sessions are harvested: the nearest directory with a .vmem.yaml, else the git work tree,
    else START (default: here)."""
    start = (start or Path.cwd()).absolute()
    for directory in (start, *start.parents):
        if (directory / ".vmem.yaml").exists():
            return directory
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return start


def state_file(project: Path) -> Path:
    import hashlib

    from vmem.store.remote import data_home

    key = hashlib.sha256(str(project.resolve()).encode()).hexdigest()[:16]
    return data_home() / "harvest" / f"{key}.json"


class Queue:
    """The project's harvest state, read and written under a lock (the hook and the analyst may run at once)."""

    def __init__(self, project: Path, timeout: float = 10.0) -> None:
        self.project = project
        self.path = state_file(project)
        self.timeout = timeout
        self.data: dict = {}
        self._lock = None

    def __enter__(self) -> "Queue":
        from vmem.store.lock import StoreLock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = StoreLock(self.path.with_suffix(".lock"), self.timeout)
        try:
            self._lock.__enter__()
        except LockTimeout:
            raise LockTimeout(f"the harvest queue {self.path} is locked by another vmem process",
                              "retry in a moment (a session-end hook may be reading a transcript)") from None
        self.data = read_state(self.path)
        return self

    def save(self) -> None:
        self.data["version"] = STATE_VERSION
        self.data["project"] = str(self.project)
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        temp.write_text(json.dumps(self.data, ensure_ascii=True, indent=1, sort_keys=True), encoding="ascii")
        os.replace(temp, self.path)

    def __exit__(self, *exc) -> None:
        if self._lock is not None:
            self._lock.__exit__(*exc)

    @property
    def candidates(self) -> dict[str, dict]:
        return self.data.setdefault("candidates", {})

    @property
    def files(self) -> dict[str, list]:
        return self.data.setdefault("files", {})


def read_state(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"version": STATE_VERSION, "candidates": {}, "files": {}}
    except (OSError, ValueError) as exc:
        raise VmemError(f"the harvest queue {path} cannot be read ({exc})",
                        f"move it aside (nothing in the store depends on it): mv {path} {path}.bad") from None
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION or not isinstance(
            data.get("candidates", {}), dict) or not isinstance(data.get("files", {}), dict):
        raise VmemError(f"the harvest queue {path} is not one this vmem wrote",
                        f"move it aside (nothing in the store depends on it): mv {path} {path}.bad")
    # an entry edited into another shape is not one: it is dropped, never a crash later
    data["candidates"] = {k: c for k, c in data.get("candidates", {}).items() if _well_formed(c)}
    return data


def _well_formed(c: object) -> bool:
    return isinstance(c, dict) and all(isinstance(c.get(k), str) for k in ("id", "kind", "statement", "quote",
                                                                           "session", "state")) and \
        isinstance(c.get("canonical", ""), str) and isinstance(c.get("at") or "", str)


def pending_count(project: Path | None = None) -> int:
    """How many candidates wait for the analyst (read without the lock: a count for a notice)."""
    try:
        data = read_state(state_file(project or project_root()))
    except VmemError:
        return 0
    return sum(1 for c in data.get("candidates", {}).values() if isinstance(c, dict) and c.get("state") == PENDING)


def waiting_notice(start: Path | None = None) -> str | None:
    """"N candidates from your sessions: vmem harvest", or None when none wait (session start, `vmem status`)."""
    count = pending_count(project_root(start) if start is not None else None)
    return f"{counted(count, 'candidate')} from your sessions: vmem harvest" if count else None


def candidate_id(agent: str, session: str, ref: str) -> str:
    import hashlib

    return "h-" + hashlib.sha256(f"{agent}\0{session}\0{ref}".encode()).hexdigest()[:10]


# -- reading ---------------------------------------------------------------------------------------------------


class Collected:
    __slots__ = ("new", "problems", "read", "unchanged", "stopped")

    def __init__(self) -> None:
        self.new: list[dict] = []
        self.problems: list[str] = []
        self.read = 0
        self.unchanged = 0
        self.stopped = False  # the time budget ran out before every file was read


def _signature(path: Path) -> list | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def collect(queue: Queue, sources: list[tuple[str, Path]], since=None, named: bool = False,
            budget_s: float | None = None) -> Collected:
    """Read SOURCES ((agent, path)) into QUEUE: new candidates are queued as pending (the caller saves). A file read
    before and unchanged since is skipped unless NAMED (given on the command line). SINCE (an aware datetime)
    leaves out turns before it. BUDGET_S stops reading new files past that many seconds (the hook)."""
    from vmem.harvest.detect import find
    from vmem.harvest.secrets import clean_statement
    from vmem.harvest.transcripts import READERS
    from vmem.text import canonicalize

    started = time.monotonic()
    out = Collected()
    known = {c.get("canonical") for c in queue.candidates.values()} | {
        c.get("drafted_canonical") for c in queue.candidates.values() if c.get("drafted_canonical")}
    since_text = since.strftime("%Y-%m-%dT%H:%M:%S") if since is not None else None
    for agent, path in sources:
        if budget_s is not None and time.monotonic() - started > budget_s:
            out.stopped = True
            break
        key = str(path.resolve())
        signature = _signature(path)
        if signature is None:
            out.problems.append(f"{path}: cannot be read, skipped")
            continue
        if not named and since is None and queue.files.get(key) == signature:
            out.unchanged += 1
            continue
        try:
            session = READERS[agent](path)
        except (OSError, UnicodeError) as exc:
            out.problems.append(f"{path}: cannot be read ({exc.__class__.__name__}), skipped")
            continue
        out.read += 1
        out.problems += session.problems
        for found in find(session, clean=lambda text: _redacted(text)[0]):
            if since_text is not None and (found.at or "") < since_text:
                continue
            ident = candidate_id(agent, session.id, found.ref)
            if ident in queue.candidates:
                continue
            statement, kinds = clean_statement(found.statement)
            if statement is None:
                continue
            quote, more = _redacted(found.quote)
            canonical = canonicalize(statement)
            if canonical in known:
                continue
            known.add(canonical)
            candidate = {"id": ident, "kind": found.kind, "statement": statement, "quote": quote,
                         "session": session.id, "agent": agent, "source": str(path), "at": found.at,
                         "ref": found.ref, "why": found.why, "canonical": canonical, "state": PENDING,
                         "redacted": sorted(set(kinds) | set(more))}
            queue.candidates[ident] = candidate
            out.new.append(candidate)
        if since is None:
            queue.files[key] = signature
    return out


def _redacted(text: str) -> tuple[str, list[str]]:
    from vmem.harvest.secrets import redact

    return redact(text)


def sources_for(project: Path, files: list[str] | None, since_ts: float | None) -> list[tuple[str, Path]]:
    from vmem.harvest.transcripts import discover, sniff

    if not files:
        return discover(project, since_ts)
    out = []
    for name in files:
        path = Path(name).expanduser()
        if not path.is_file():
            raise UsageError(f"{name}: no such file", "name a session transcript (.jsonl) or a notes file (.md)")
        out.append((sniff(path), path))
    return out


# -- what the analyst sees -------------------------------------------------------------------------------------


def annotate(store, candidates: list[dict]) -> list[dict]:
    """Each candidate as the analyst sees it: `known` (an open claim it repeats or contradicts, and which),
    `about` (the one customer it names: it is offered scoped to that customer) and `customers` (every customer
    it names). Without a store (None), known and about stay empty."""
    if store is None:
        return [_view(c, None, None, []) for c in candidates]
    from vmem.ops.card import viewer_of
    from vmem.ops.contradictions import against
    from vmem.ops.propose import repeated_claim

    viewer = viewer_of(store)
    screen = _customers(store)
    out = []
    for c in candidates:
        try:
            named = screen(c["statement"] + " " + c["quote"])
        except VmemError:
            named = None  # unknown (a customer file cannot be read): shown, never accepted until it is fixed
        about = named[0] if named and len(named) == 1 else None
        scope = f"entity:{about}" if about else "org"
        same, close = repeated_claim(store, c["statement"], scope, [], viewer, ask_judge=False)
        known = {"id": same["id"], "relation": "repeats", "status": same["status"]} if same is not None else None
        if known is None:
            from vmem.ops.contradictions import near_open

            probe = {"id": "h", "kind": "claim", "statement": c["statement"], "scope": scope, "categories": [],
                     "status": "proposed", "audience": "all", "personal": False}
            clashes = against(probe, near_open(store.head(), probe), viewer)
            if clashes:
                other = clashes[0]["b"] if clashes[0]["a"] == "h" else clashes[0]["a"]
                known = {"id": other, "relation": "contradicts", "status": None}
        out.append(_view(c, known, about, named))
    return out


def _view(c: dict, known: dict | None, about: str | None, named: list[str] | None) -> dict:
    return {"id": c["id"], "kind": c["kind"], "statement": c["statement"], "quote": c["quote"],
            "session": c["session"], "agent": c.get("agent"), "at": c.get("at"),
            "known": known["id"] if known else None, "known_relation": known["relation"] if known else None,
            "about": about, "customers": named, "state": c.get("state"), "claim": c.get("claim"),
            "redacted": c.get("redacted") or [], "drafted_by": c.get("drafted")}


def _customers(store):
    """STATEMENT -> the ids of the customers it names (the de-identification gate's lexicon and reading)."""
    from vmem.gates.deid import scan
    from vmem.gates.publish import LexiconIncomplete, screening_lexicon

    lexicon = screening_lexicon(store.head())
    if isinstance(lexicon, LexiconIncomplete):  # which customers a statement names cannot be known: fail closed
        def unknown(text: str) -> list[str]:
            raise VmemError(f"a customer file cannot be read ({lexicon.path}: {lexicon.problem}), so vmem cannot "
                            "tell which customers a candidate names", "fix it first: vmem check")

        return unknown

    def named(text: str) -> list[str]:
        seen: list[str] = []
        for hit in scan(text, lexicon):
            if hit.entity and hit.entity not in seen:
                seen.append(hit.entity)
        return seen

    return named


# -- deciding --------------------------------------------------------------------------------------------------


def _take(queue: Queue, ident: str) -> dict:
    ident = ident.strip()
    matches = [c for key, c in queue.candidates.items() if key == ident or (len(ident) >= 4 and key.startswith(ident))]
    if not matches:
        raise UsageError(f"no harvest candidate {ident!r}", "vmem harvest --list shows the waiting ones and their ids")
    if len(matches) > 1:
        raise UsageError(f"{ident!r} names {len(matches)} candidates", "give more of the id (vmem harvest --list shows them)")
    return matches[0]


def accept(store, project: Path, ids: list[str], about: str | None = None,
           statement: str | None = None) -> list[dict]:
    """Propose each candidate as a claim (status proposed, source session_transcript): {id, claim, action,
    commit, notes}. A candidate naming one customer is scoped to it; naming several, it needs ABOUT. STATEMENT
    replaces the drafted words (one id only: the analyst's edit)."""
    from vmem.ops.propose import propose

    if statement is not None and len(ids) != 1:
        raise UsageError("an edited statement applies to one candidate", "accept one id with --statement")
    results = []
    with Queue(project) as queue:
        taken = [_take(queue, i) for i in ids]
    for candidate in taken:
        if candidate["state"] != PENDING:
            results.append({"id": candidate["id"], "action": candidate["state"], "claim": candidate.get("claim"),
                            "commit": None, "notes": [f"{candidate['id']} was {candidate['state']} before"]})
            continue
        words, _ = _redacted(statement) if statement is not None else (candidate["statement"], [])
        view = annotate(store, [{**candidate, "statement": words}])[0]  # the words proposed are the ones screened
        if view["customers"] is None:
            _customers(store)("")  # raises: which customers it names cannot be known (fail closed)
        scope_to = about or view["about"]
        if len(view["customers"]) > 1 and about is None:
            raise UsageError(f"{candidate['id']} names {len(view['customers'])} customers "
                             f"({', '.join(view['customers'])})",
                             f"accept it for one of them: vmem harvest --accept {candidate['id']} --about ENTITY")
        result = propose(store, words, about=scope_to,
                         harvest={"kind": candidate["kind"], "session": f"{candidate['agent']}:{candidate['session']}",
                                  "quote": candidate["quote"]})
        with Queue(project) as queue:
            kept = queue.candidates.get(candidate["id"], candidate)
            kept.update(state=ACCEPTED, claim=result.item["id"], decided_at=_now())
            queue.save()
        results.append({"id": candidate["id"], "action": result.action, "claim": result.item["id"],
                        "commit": result.commit, "scope": result.item["scope"], "statement": result.item["statement"],
                        "contradictions": result.contradictions, "notes": result.notes})
    return results


def dismiss(project: Path, ids: list[str]) -> list[dict]:
    """Remember each candidate as "not a fact": it is never offered again."""
    out = []
    with Queue(project) as queue:
        for ident in ids:
            candidate = _take(queue, ident)
            if candidate["state"] == PENDING:
                candidate.update(state=DISMISSED, decided_at=_now())
            out.append({"id": candidate["id"], "action": candidate["state"], "claim": candidate.get("claim")})
        queue.save()
    return out


def offer(project: Path, statement: str, kind: str, quote: str | None = None, session: str | None = None,
          agent: str = "mcp") -> dict:
    """An agent offers a correction explicitly (the MCP tool): queued for the analyst, never proposed."""
    from vmem.text import canonicalize

    if kind not in ("correction", "definition", "confirmation"):
        raise UsageError(f"unknown kind {kind!r}", "use correction, definition or confirmation")
    text = " ".join(str(statement or "").split())
    if len(text.split()) < 3:
        raise UsageError("a statement needs at least three words", "say the fact so it stands alone")
    text, kinds = _redacted(text)
    said, more = _redacted(" ".join(str(quote or statement).split()))
    canonical = canonicalize(text)
    with Queue(project) as queue:
        for c in queue.candidates.values():
            if c.get("canonical") == canonical:
                return {**_view(c, None, None, []), "queued": False}
        ident = candidate_id(agent, session or "offered", canonical)
        candidate = {"id": ident, "kind": kind, "statement": text, "quote": said, "session": session or "offered",
                     "agent": agent, "source": None, "at": _now(), "ref": "offered", "why": "offered by an agent",
                     "canonical": canonical, "state": PENDING, "redacted": sorted(set(kinds) | set(more))}
        queue.candidates[ident] = candidate
        queue.save()
    return {**_view(candidate, None, None, []), "queued": True}


def _now() -> str:
    from vmem.model import now

    return now()


# -- the commands' bodies --------------------------------------------------------------------------------------


class Harvested:
    __slots__ = ("candidates", "new", "problems", "read", "unchanged", "dry_run", "stopped")

    def data(self) -> dict:
        return {"candidates": self.candidates, "new": self.new, "read": self.read, "unchanged": self.unchanged,
                "problems": self.problems, "dry_run": self.dry_run}


def harvest(store, project: Path, files: list[str] | None = None, since: str | None = None,
            dry_run: bool = False, budget_s: float | None = None) -> Harvested:
    """Read the project's sessions (or FILES) and return every pending candidate (annotated when STORE is given).
    DRY_RUN reads and shows but keeps nothing."""
    moment = None
    if since:
        from vmem.ops.when import moment as parse_moment

        moment = parse_moment(since)
        if moment is None:
            raise UsageError(f"--since {since!r} is not a date", "e.g. --since 2026-11-01, --since yesterday, "
                             "--since '2 weeks ago'")
    sources = sources_for(project, files, moment.timestamp() if moment is not None else None)
    with Queue(project) as queue:
        got = collect(queue, sources, since=moment, named=bool(files), budget_s=budget_s)
        if not dry_run:
            queue.save()
        pending = [c for c in queue.candidates.values() if c.get("state") == PENDING]
    pending.sort(key=lambda c: (c.get("at") or "", c["id"]))
    if not dry_run and store is not None and store.policy.get("harvest", {}).get("adapter"):
        pending = _drafted(store, project, pending)
    out = Harvested()
    out.candidates = annotate(store, pending)
    out.new, out.problems, out.read, out.unchanged = len(got.new), got.problems, got.read, got.unchanged
    out.dry_run, out.stopped = dry_run, got.stopped
    return out


def _drafted(store, project: Path, pending: list[dict]) -> list[dict]:
    """Each pending candidate not drafted yet, its statement drafted by the policy's harvest adapter (an LLM tool,
    the judge adapters') from the exchange; any failure keeps the deterministic draft (fail closed), and a draft is
    redacted like everything else. Asked once per candidate; run without the queue's lock (a model is slow)."""
    from vmem.harvest.secrets import clean_statement
    from vmem.knowledge.adapters import draft
    from vmem.policy import adapter_command

    settings = store.policy["harvest"]
    try:
        command = adapter_command(settings["adapter"], settings["model"], settings["command"])
    except ValueError as exc:
        raise UsageError(f"vmem.yaml harvest: {exc}", "harvest: {adapter: claude} (llm | ollama | claude | gemini | "
                         "openai; model: required by ollama and openai)") from None
    drafted: dict[str, dict] = {}
    for c in pending:
        if c.get("drafted") is not None:
            continue
        statement, why = draft(command[1:], c["kind"], _reply_before(c), c["quote"], float(settings["timeout_s"]))
        cleaned = clean_statement(statement)[0] if statement else None
        drafted[c["id"]] = ({"statement": cleaned, "drafted": settings["adapter"]} if cleaned
                            else {"drafted": f"kept ours: {settings['adapter']} {why or 'drafted a credential'}"})
    if not drafted:
        return pending
    from vmem.text import canonicalize

    with Queue(project) as queue:
        for ident, change in drafted.items():
            if ident in queue.candidates:
                if "statement" in change:  # the found words' canonical form stays: a dismissal still holds
                    change = {**change, "drafted_canonical": canonicalize(change["statement"])}
                queue.candidates[ident].update(change)
        queue.save()
        return [queue.candidates.get(c["id"], c) for c in pending]


def _reply_before(candidate: dict) -> str:
    """The assistant's reply CANDIDATE's turn answered, redacted, read again from its transcript (the queue keeps
    none of the assistant's words); "" when the file or the turn is gone."""
    from vmem.harvest.detect import find
    from vmem.harvest.transcripts import READERS

    source = candidate.get("source")
    if not source or candidate.get("agent") not in READERS:
        return ""
    try:
        session = READERS[candidate["agent"]](Path(source))
    except (OSError, UnicodeError):
        return ""
    for found in find(session, clean=lambda text: _redacted(text)[0]):
        if found.ref == candidate.get("ref"):
            return found.context
    return ""


def session_end(payload: bytes, budget_s: float = HOOK_BUDGET_S) -> str | None:
    """The Claude Code SessionEnd hook: queue the ended session's candidates (its transcript_path, its cwd's
    project). Never commits, never raises, stops reading past BUDGET_S; returns a one-line notice or None."""
    try:
        event = json.loads(payload or b"{}")
        path = Path(event["transcript_path"]).expanduser()
        start = Path(event.get("cwd") or os.getcwd())
    except (ValueError, KeyError, TypeError):
        return "vmem harvest: the SessionEnd hook got no transcript_path; nothing queued"
    try:
        project = project_root(start)
        with Queue(project, timeout=budget_s) as queue:
            got = collect(queue, [("claude", path)], named=True, budget_s=budget_s)
            queue.save()
            waiting = sum(1 for c in queue.candidates.values() if c.get("state") == PENDING)
    except Exception as exc:  # noqa: BLE001 - a session-end hook never fails (SPEC 16): one line, exit 0
        return f"vmem harvest: nothing queued ({getattr(exc, 'message', None) or type(exc).__name__})"
    if not waiting:
        return None
    return f"vmem: {counted(waiting, 'candidate')} from your sessions wait: vmem harvest" + (
        f" ({len(got.new)} new)" if got.new else "")
