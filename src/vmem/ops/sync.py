"""vmem sync: pack the trusted set once and render it through each target (SPEC 9, 13).

Selection and packing live in ops/bundle.py (the visibility rule is recall's, from vmem.visibility), the
formats in vmem/targets/, the owned-file writer in ops/writer.py and the git reading in store/served.py; this
module wires them and keeps a commit-keyed cache of packed bundles and rendered files (keyed by target and
format), so a pre-session hook on an unchanged store neither ranks nor imports pygit2.
"""

from __future__ import annotations

from pathlib import Path

from vmem.errors import UsageError
from vmem.names import check_audience, scope as valid_scope
from vmem.ops.bundle import CHARS_PER_TOKEN, Bundle, pack
from vmem.store.cache import cache_file, read_cache, write_cache
from vmem.store.served import head_commit, load_candidates  # noqa: F401 - re-exported for callers and tests
from vmem.targets.text import marker
from vmem.output import counted

BUNDLE_TTL_S = 3600  # ranking decays with age: recompute at least hourly even if nothing changed
HOOK_LIMIT = 10_000  # Claude Code's limit on a hook's additionalContext
# A file changed this long before the hook started may still be newer than the session running it (Claude Code
# starts the hook after the session, and two sessions opened together run their hooks at once): its rules are
# given in the hook's context too. A rule repeated once costs less than a mandatory rule a session never sees.
SESSION_LAG_S = 10.0


class SyncResult:
    def __init__(self, dir: str, commit: str | None, budget: int, items: list[str]) -> None:
        self.dir, self.commit, self.budget, self.items = dir, commit, budget, items
        self.written: list[str] = []
        self.unchanged: list[str] = []
        self.deleted: list[str] = []
        self.tokens = 0
        self.targets: dict[str, dict] = {}
        self.summary = ""
        self.context = ""
        self.rules_dir = ""  # the store's sync.dir, where the claude target writes in a project

    def as_dict(self) -> dict:
        return {"dir": self.dir, "commit": self.commit, "written": self.written, "unchanged": self.unchanged,
                "deleted": self.deleted, "tokens": self.tokens, "budget": self.budget, "items": self.items,
                "targets": self.targets}


def _bundle_file(root: Path) -> Path:
    return cache_file(root).with_suffix(".bundles")


_ENDS_AND_START = ("expires_at", "valid_to", "valid_from")
_START = ("valid_from",)


def _valid_until(items: list[dict], served: set[str], now: float) -> float:
    """How long a packed bundle may be served again: until the next moment one of the rules it SERVED expires or
    leaves its validity window (it must never be served after that), or a candidate it does not serve starts
    being valid (it may belong in the bundle from then on); at most BUNDLE_TTL_S, which also bounds how stale
    the ranking and the count of what did not fit may get. The end of a candidate that is not served changes
    nothing served: at 1M items (~500k candidates) such a moment came every few seconds, each one costing the
    next pre-session sync a full reload of the candidates (~10 s)."""
    from datetime import datetime, timezone

    from vmem.model import parse_ts

    def canonical(moment: float) -> str:
        return datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    horizon = now + BUNDLE_TTL_S
    # vmem's own stamps (whole seconds, "Z") compare as text: only the nearest is read as a time. The bounds are
    # widened to whole seconds, so the text test keeps every stamp the exact one would; that one decides.
    low, high = canonical(now - 1), canonical(horizon + 1)
    for item in items:
        for key in _ENDS_AND_START if item["id"] in served else _START:
            stamp = item.get(key)
            if not stamp or (len(stamp) == 20 and stamp[19] == "Z" and not low <= stamp <= high):
                continue
            moment = parse_ts(stamp).timestamp()
            if now < moment < horizon:
                horizon = moment
                high = canonical(horizon + 1)
    return horizon


def sync(root: Path, *, target: Path | None = None, targets: list[str] | None = None, scope: str | None = None,
         audience: str | None = None, budget: int | None = None, do_pull: bool = False,
         project: Path | None = None) -> tuple[SyncResult, list[str]]:
    """TARGET: --dir, the directory of the target that vmem.yaml's sync.dir places (claude); TARGETS: target
    names (default: the registry's DEFAULT)."""
    import time

    from vmem import targets as registry

    started = time.time()
    warnings = []
    if do_pull:  # session start: deliver what waits, then catch up with the remote (SPEC 15: never frozen)
        from vmem.store.deliver import catch_up

        warnings += catch_up(root, root / ".git")
    chosen = [registry.get(name) for name in dict.fromkeys(targets or [registry.DEFAULT])]
    commit = head_commit(root)
    cache = read_cache(_bundle_file(root))
    usable = cache is not None and "store" in cache and "entries" in cache
    fresh = usable and commit is not None and cache.get("commit") == commit
    served_at = cache.get("served_at", cache.get("commit")) if usable else None  # what its bundles were packed from
    policy, about = (cache["policy"], cache["store"]) if fresh else (None, None)
    items = None
    if policy is None:
        packed_from = served_at
        commit, policy, items, about, served_at = load_candidates(root, items=False)
        # a commit that changed nothing served (a teammate's proposal) leaves the bundles and their renders as
        # they were: the same items, policy and store give the same bundle (their time limits still apply)
        fresh = usable and served_at == packed_from
    settings = policy["sync"]
    scope = _scope(scope or settings["scope"], about["entities"])
    audience = check_audience(audience or settings["audience"])
    budget = settings["budget"] if budget is None else budget
    if budget < 0:
        raise UsageError("--budget must be zero or more tokens", "e.g. --budget 6000")
    project = Path(project) if project is not None else Path.cwd()
    key = f"{scope}|{audience}|{budget}|{root.name}"
    entries = dict(cache["entries"]) if fresh else {}
    now = time.time()
    packed = entries.get("bundle|" + key)
    if packed is None or now >= packed["valid_until"]:
        if items is None:
            commit, policy, items, about, served_at = load_candidates(root)
        bundle = pack(items, policy, entity=scope[7:] if scope else None, audience=audience, budget=budget,
                      store_name=root.name, commit=commit, store_id=about["id"])
        packed = {"bundle": bundle.as_dict(), "valid_until": _valid_until(items, set(bundle.items), now)}
        entries = {k: v for k, v in entries.items() if not k.endswith("|" + key)}  # renders of the old bundle
        entries["bundle|" + key] = packed
    bundle = Bundle.from_dict(packed["bundle"])
    bundle.commit = commit  # (a bundle kept from an earlier commit that served the same is this commit's too)
    rendered = {}
    skipped = registry.served_elsewhere([t.name for t in chosen], project)  # one agent, one copy of each rule
    for t in chosen:
        name = f"{t.name}@{t.version}|{key}"
        if t.name in skipped:
            rendered[t.name] = t.nothing()
            continue
        if name not in entries:
            entries[name] = t.render(bundle, marker(root.name, bundle.commit, bundle.store_id))
        rendered[t.name] = entries[name]
    if entries != (cache or {}).get("entries") or not fresh or commit != cache.get("commit"):
        write_cache(_bundle_file(root), {"commit": commit, "served_at": served_at, "policy": policy, "store": about,
                                         "entries": entries})
    reader = registry.read_by_claude_code([t.name for t in chosen], project, skipped)
    result, before = _write(chosen, rendered, bundle, root, about, project, target, settings["dir"], budget,
                            skipped, reader, started - SESSION_LAG_S)
    result.context = hook_context(bundle, reader and registry.get(reader), before)
    result.rules_dir = settings["dir"]
    if bundle.dropped:
        warnings.append(f"{len(bundle.dropped)} items did not fit the {budget}-token budget")
    if about.get("lexicon"):
        warnings.append(f"the lexicon is incomplete ({about['lexicon']}): knowledge published since then is "
                        "held back until it is fixed; see: vmem check")
    return result, warnings


def sync_project(store: str | None, start: Path, *, directory: str | None = None, targets: list[str] | None = None,
                 scope: str | None = None, audience: str | None = None, budget: int | None = None,
                 do_pull: bool = False) -> tuple[SyncResult, list[str]]:
    """`vmem sync` and the session hook: the store START's project names (or --store), the options over its
    committed config (targets, budget, scope, audience), the sync, and vmem's .gitignore block kept in step with
    the config's targets (a hand-edited target list included): the one rule every writer of a project keeps."""
    from vmem.ops.session import resolve

    found = resolve(store, start, fetch=True)
    root, config, project = found.root, found.config, found.project or start
    warnings = list(found.warnings)
    if config:
        targets = targets or config["targets"]
        budget = config["budget"] if budget is None else budget
        scope, audience = scope or config["scope"], audience or config["audience"]
    result, more = sync(root, target=Path(directory) if directory else None, targets=targets, scope=scope,
                        audience=audience, budget=budget, do_pull=do_pull, project=project)
    warnings += more
    if config and found.project is not None and directory is None:
        from vmem.errors import VmemError
        from vmem.ops.hook import apply_gitignore, ignore_plan

        try:
            files = ignore_plan(project, config["targets"], config, rules=result.rules_dir)
            if apply_gitignore(files["path"], files["text"]):
                warnings.append(f"vmem's block in {files['path']} now ignores what the targets in .vmem.yaml "
                                "write (commit it)")
        except VmemError as exc:
            warnings.append(exc.described())
    return result, warnings


def _write(chosen, rendered: dict, bundle: Bundle, root: Path, about: dict, project: Path, override,
           configured_dir: str, budget: int, skipped: dict, reader: str | None = None,
           session: float = 0.0) -> tuple[SyncResult, dict[str, bytes | None]]:
    """Plan every target's files first (a refusal anywhere changes nothing anywhere), then write them. Also
    returns what READER's files (the target Claude Code reads) held when the session started (SESSION, at the
    earliest): name -> bytes, None for a file that is new, or changed since then; files this sync leaves as
    they were and that are older than SESSION are not in it."""
    from vmem.ops import writer
    from vmem.targets import placed

    owner = writer.Owner(root.name, about["id"])
    plans = []
    for t in chosen:
        if t.configured_dir:
            directory = Path(override) if override is not None else _policy_dir(configured_dir, project)
            if override is not None and directory.suffix.lower() in (".md", ".mdc") and not directory.is_dir():
                # issue 12: `--dir AGENTS.md` used to create a directory by that name
                raise UsageError(f"--dir {override} looks like a file; --dir names the {t.name} target's rules "
                                 "directory", "for AGENTS.md use --target agents-md; else pass a directory")
        else:
            directory = project / t.default_dir
        plans.append((t, directory, [(where, writer.plan_dir(where, files, owner, project, part.prunable,
                                                             part.merge if part.section else None))
                                     for where, part, files in placed(t, rendered[t.name], directory)]))
    before: dict[str, bytes | None] = {}
    for t, directory, planned in plans:
        for _, (writes, unchanged, _) in planned if t.name == reader else ():
            for path in [*writes, *map(Path, unchanged)]:
                found = writer.lstat(path)
                if found is None or found.st_mtime >= session:
                    before[str(path.relative_to(directory))] = None  # the session may not have read it
                elif path in writes:
                    before[str(path.relative_to(directory))] = writer.read_regular(path, whole=False)
    result = SyncResult(str(plans[0][1]), bundle.commit, budget, bundle.items)
    parts = []
    for t, directory, planned in plans:
        written, unchanged, deleted = [], [], []
        for where, one in planned:
            for done, more in zip((written, unchanged, deleted), writer.commit(where, project, *one)):
                done += more
        files = rendered[t.name]
        shown = {n: c for n, c in files.items() if c is not None}
        tokens = sum(len(c) for c in shown.values()) // CHARS_PER_TOKEN
        result.written += written
        result.unchanged += unchanged
        result.deleted += deleted
        result.tokens += tokens
        result.targets[t.name] = {"dir": str(directory), "files": sorted(shown), "tokens": tokens,
                                  "written": written, "unchanged": unchanged, "deleted": deleted}
        if t.name in skipped:
            result.targets[t.name]["skipped"] = skipped[t.name]
            parts.append(f"{directory}: none, as {skipped[t.name]} and AGENTS.md carries every rule")
            continue
        where = directory / next(iter(files)) if t.section else directory
        parts.append(f"{where} ({counted(len(shown), 'file')}, ~{tokens} tokens)")
    count = len(bundle.items)
    result.summary = f"vmem: {counted(count, 'trusted item')} synced into " + "; ".join(parts)
    return result, before


def hook_context(bundle: Bundle, reader, before: dict[str, bytes | None]) -> str:
    """What the rules files cannot give the session that is starting (SPEC 13), within Claude Code's
    10,000-character limit. Claude Code may read its rules before this hook finishes, so the mandatory rules that
    apply everywhere and that this sync added to or changed in the files it reads (READER, a target; BEFORE: what
    those files held) are given here, each once; the ones those files already held are named, never repeated.
    Where Claude Code reads none of the files (READER None), every such rule is given. Never path-scoped items."""
    from vmem.targets.text import entry, one_line

    rules = [r for r in bundle.mandatory if not r["paths"]]
    had = {r["id"] for r in rules if reader is not None and reader.held(r, before)}
    held, new = [r for r in rules if r["id"] in had], [r for r in rules if r["id"] not in had]
    where = ("vmem's section of AGENTS.md" if reader is not None and reader.name == "agents-md" else
             "this project's rules files" if reader is not None else
             "this project's rules files for other agents (this session reads none of them)")
    head = f"vmem: {len(bundle.items)} reviewed items are in {where}"
    if held:
        names, room = [], 1500
        for n, rule in enumerate(held):
            name = rule["id"] + (f" ({one_line(rule['title'])[:60]})" if rule.get("title") else "")
            if len(name) > room:
                names.append(f"and {len(held) - n} more (vmem list --status mandatory)")
                break
            names.append(name)
            room -= len(name) + 2
        head += f"; {_rules(len(held))} there, which this session already has: " + ", ".join(names)
    if not new:
        return head + "."
    if reader is not None:
        head += f"; {_rules(len(new))} added or changed there by this sync, after this session started:\n\n"
    else:
        head += f"; {_rules(len(new))} for this session:\n\n"
    out, room = [head], HOOK_LIMIT - len(head) - 120
    for n, rule in enumerate(new):
        text = entry(rule)
        if len(text) > room:
            out.append(f"\n… {len(new) - n} more mandatory rules in the rules files (vmem list --status mandatory)")
            break
        out.append(text)
        room -= len(text)
    return "".join(out)


def _rules(count: int) -> str:
    return counted(count, "mandatory team rule")


def _scope(value: str | None, entities: list[str]) -> str | None:
    try:
        scope = None if value is None else valid_scope(value)
    except ValueError:
        raise UsageError(f"invalid scope {value!r}", "use --scope entity:ID") from None
    if scope is None or scope == "org":
        return None
    if scope[7:] not in entities:
        from vmem.errors import ItemNotFound

        raise ItemNotFound(f"no entity {scope[7:]!r} in this store", "list customers under entities/; "
                           "scope names look like entity:acme")
    return scope


def _policy_dir(value: str, project: Path) -> Path:
    """sync.dir comes from the shared vmem.yaml: it may only name a place inside the project synced for."""
    relative = Path(value)
    if relative.is_absolute() or ".." in relative.parts or "\0" in value:
        raise UsageError(f"sync.dir {value!r} in vmem.yaml points outside this project ({project}); refusing it",
                         "set sync.dir to a relative path inside the project (e.g. .claude/rules/vmem), or pass --dir")
    return project / relative
