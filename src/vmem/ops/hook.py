"""vmem hook install / uninstall: a portable project config (.vmem.yaml), a committed Claude Code SessionStart
hook that works on every teammate's machine, and an optional git post-merge hook in the store.

The committed hook command holds no path: it finds vmem on PATH (pipx, uv tool) and, where vmem is missing,
prints a one-line notice and exits 0 so the session still starts. Uninstall removes exactly what install and
sync added: the hook entry, the config it wrote, and every target's owned files (AGENTS.md keeps its user text).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from vmem.errors import UsageError

from vmem import INSTALL

NOTICE = f"vmem is not installed, so this session has no team rules from vmem; install it where hooks find it: {INSTALL}"
HOOK_COMMAND = ("if command -v vmem >/dev/null 2>&1; then vmem sync --hook; "
                "else echo '" + json.dumps({"systemMessage": NOTICE}) + "'; fi")
# written by earlier versions: replaced on install, removed on uninstall (the second named the registry's other
# project "vmem" in its notice)
LEGACY_COMMANDS = ("vmem sync --hook",
                   "if command -v vmem >/dev/null 2>&1; then vmem sync --hook; else echo '{\"systemMessage\": \"vmem "
                   "is not installed, so this session has no team rules from vmem; install it where hooks find it: "
                   "pipx install vmem (or: uv tool install vmem)\"}'; fi")
_POST_MERGE = """#!/bin/sh
# vmem: re-sync the agent's rules after a pull ({marker})
command -v vmem >/dev/null 2>&1 && vmem sync --store "$(git rev-parse --show-toplevel)" --dir {target} >/dev/null 2>&1
exit 0
"""


def _settings_path(project: Path) -> Path:
    from vmem.ops.writer import check_dir

    check_dir(project / ".claude", project)
    return project / ".claude" / "settings.json"


def read_settings(path: Path) -> dict:
    from vmem.ops.writer import lstat, read_regular

    if lstat(path) is None:
        return {}
    data = read_regular(path)
    if data is None:
        raise UsageError(f"{path} is not a regular file; vmem will not write through it", "replace it by hand")
    try:
        settings = json.loads(data.decode("utf-8") or "{}")
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc})", "fix it by hand; vmem will not overwrite it") from None
    if not isinstance(settings, dict):
        raise UsageError(f"{path} does not hold a JSON object", "fix it by hand; vmem will not overwrite it")
    return settings


def write_file(path: Path, text: str) -> None:
    from vmem.ops.writer import commit

    path.parent.mkdir(parents=True, exist_ok=True)
    commit(path.parent, None, {path: text.encode("utf-8")}, [], [])


# Claude Code's SessionEnd hook: the ended session's candidates are queued for `vmem harvest` (never committed; a
# missing vmem is silent: the session is over, nobody reads a notice)
HARVEST_COMMAND = "if command -v vmem >/dev/null 2>&1; then vmem harvest --hook; fi"
# each event vmem hooks, its command and how long Claude Code may wait for it (seconds)
EVENTS = (("SessionStart", HOOK_COMMAND, 30), ("SessionEnd", HARVEST_COMMAND, 5))


def _ours(hook: object, command: str) -> bool:
    return isinstance(hook, dict) and hook.get("command") in (command, *LEGACY_COMMANDS)


def install_claude(project: Path, command: str = HOOK_COMMAND) -> tuple[Path, bool]:
    """Add the SessionStart hook (COMMAND) and the SessionEnd harvest hook to PROJECT/.claude/settings.json,
    keeping every other setting; idempotent. An older vmem's bare `vmem sync --hook` entry is replaced, not
    doubled."""
    path = _settings_path(project)
    settings = read_settings(path)
    hooks = settings.setdefault("hooks", {})
    changed = False
    for event, wanted, timeout in EVENTS:
        wanted = command if event == "SessionStart" else wanted
        if not isinstance(hooks, dict) or not isinstance(hooks.setdefault(event, []), list):
            raise UsageError(f"{path}: hooks.{event} is not a list", "fix it by hand; vmem will not overwrite it")
        groups = hooks[event]
        mine = [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or [] if _ours(h, wanted)]
        if [h.get("command") for h in mine] == [wanted]:
            continue
        _drop(groups, wanted)
        groups.append({"hooks": [{"type": "command", "command": wanted, "timeout": timeout}]})
        changed = True
    if changed:
        write_file(path, json.dumps(settings, indent=2) + "\n")
    return path, changed


def _drop(groups: list, command: str) -> bool:
    """Remove vmem's hook entries (and the groups left empty by that) from an event's list, in place."""
    found = False
    for group in list(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        kept = [h for h in group["hooks"] if not _ours(h, command)]
        if len(kept) != len(group["hooks"]):
            found = True
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)
    return found


def uninstall_claude(project: Path, command: str = HOOK_COMMAND) -> tuple[Path, bool]:
    path = _settings_path(project)
    settings = read_settings(path)
    hooks = settings.get("hooks")
    found = False
    for event, wanted, _ in EVENTS:
        wanted = command if event == "SessionStart" else wanted
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        if not isinstance(groups, list) or not _drop(groups, wanted):
            continue
        found = True
        if not groups:
            del hooks[event]
    if not found:
        return path, False
    if not hooks:
        del settings["hooks"]
    if settings:
        write_file(path, json.dumps(settings, indent=2) + "\n")
    else:
        path.unlink()
    return path, True


def install(project: Path, store: str | None, targets: list[str] | None, budget: int | None, git: bool,
            store_path: str | None) -> dict:
    """`vmem hook install`: the committed config (with STORE), the SessionStart hook and vmem's .gitignore block,
    every refusal raised before the first write. The data says what was written, what to commit now, what to
    commit after the first sync writes it (AGENTS.md's and Copilot's sections), and what is ignored."""
    from vmem.errors import VmemError
    from vmem.ops.project import read as read_config

    data: dict = {"warnings": []}
    config = None
    if store is not None or targets or budget is not None:
        if store is None:
            raise UsageError("--target and --budget go into the project config, which needs the store too",
                             "add --store PATH|URL")
        try:
            existing = read_config(project)
        except VmemError:
            existing = None  # unreadable: write_config refuses it below unless vmem wrote it
        config = project_config(project, store, targets, budget, existing)
        if config["store"]["url"] and not config["store"]["path"]:
            from vmem.ops.project import resolve_store

            resolve_store(project, config)  # cloned now: a wrong URL fails here, not in every session
        files = ignore_plan(project, config["targets"], config)  # refused here: nothing written yet
        path, written = write_config(project, config)
        data.update({"config": str(path), "config_written": written, "store": config["store"],
                     "targets": config["targets"]})
        gone = [t for t in (existing or {}).get("targets") or [] if t not in config["targets"]]
        if gone:  # narrowed with --target: what those targets wrote would never be synced again
            from vmem.ops.project import resolve_store

            try:
                data["removed"] = prune_targets(resolve_store(project, config)[0], project, gone)
            except VmemError as exc:
                data["warnings"].append(f"files of {', '.join(gone)} left in place: {exc.message}")
    else:
        try:
            config = read_config(project)
        except VmemError:
            config = None
        files = ignore_plan(project, (config or {}).get("targets") or [_default_target()], config)
    path, added = install_claude(project)
    data.update({"settings": str(path), "added": added, "command": HOOK_COMMAND})
    data.update({"commit": files["commit"], "after_sync": files["after_sync"], "sections": files["sections"],
                 "ignore": files["ignore"], "gitignore": str(files["path"]),
                 "gitignore_written": apply_gitignore(files["path"], files["text"])})
    if git:
        from vmem.store.discover import find_store_root
        from vmem.store.remote import is_url
        from vmem.store.served import load_candidates

        root = find_store_root(store if store and not is_url(store) else store_path).absolute()
        directory = (project / load_candidates(root).policy["sync"]["dir"]).absolute()
        hook_path, hook_added = install_git(root, directory)
        data.update({"post_merge": str(hook_path), "post_merge_added": hook_added})
    return data


def _default_target() -> str:
    from vmem.targets import DEFAULT

    return DEFAULT


def ignore_plan(project: Path, targets: list[str], config: dict | None, rules: str | None = None) -> dict:
    """What PROJECT with TARGETS commits and ignores, and its .gitignore as it will be (a damaged block refused
    now, before any write). RULES: the claude target's directory when the caller knows it (sync does)."""
    files = generated(targets, rules if rules is not None else rules_dir(project, config))
    present = [f for f in files["sections"] if (project / f).is_file()]
    path, text = plan_gitignore(project, files["ignore"])
    return {**files, "commit": [f for f in files["commit"] if f not in files["sections"] or f in present],
            "after_sync": [f for f in files["sections"] if f not in present], "path": path, "text": text}


def project_config(project: Path, store: str, targets: list[str] | None, budget: int | None,
                   existing: dict | None = None) -> dict:
    """The config to commit for STORE (a URL, or a path made relative to PROJECT), checked before any write by
    the rules every reader applies (a network URL; a relative path through no symlink), so vmem never writes a
    config that it would then refuse.
    What EXISTING (the project's config, when vmem wrote it) holds and no option names is kept: a rerun of
    `hook install --store` must not silently drop targets (whose files would then go stale), scope or budget."""
    from vmem.ops.project import check_config, climbs_out
    from vmem.store.remote import check_url, has_credentials, is_url, origin_url, without_credentials

    entry: dict = {}
    if is_url(store):
        if has_credentials(store):  # .vmem.yaml is committed: a token in it is a token published
            raise UsageError("the store URL holds a user name, password or token; .vmem.yaml is committed, so vmem "
                             "will not write it", "pass the URL without credentials (git's credential helper "
                             "or ssh keys supply them)")
        entry["url"] = check_url(store)
    else:
        path = Path(store).expanduser().absolute()
        if not (path / "vmem.yaml").is_file():
            raise UsageError(f"no vmem store at {store}", "pass the store's path or its remote URL to --store")
        rel = Path(os.path.relpath(path, project.absolute())).as_posix()
        origin = origin_url(path)  # None for a local origin (a bare repository beside it): not a teammate's
        if origin:
            entry["url"] = without_credentials(origin)  # a clone's origin often carries a CI token
        if not (origin and climbs_out(rel)):  # a store further up than beside the project: its URL alone
            entry["path"] = rel
    keep = existing or {}
    from vmem.targets import DEFAULT

    return check_config({"store": entry, "targets": targets or keep.get("targets") or [DEFAULT],
                   "budget": budget if budget is not None else keep.get("budget"), "scope": keep.get("scope"),
                   "audience": keep.get("audience")}, ".vmem.yaml", project.absolute())


def write_config(project: Path, config: dict) -> tuple[Path, bool]:
    from vmem.ops.project import CONFIG, HEADER, render
    from vmem.ops.writer import lstat, read_regular

    path = project / CONFIG
    text = render(config)
    if lstat(path) is not None:
        old = read_regular(path, 64_000)
        if old is None or not old.decode("utf-8", "replace").startswith(HEADER):
            raise UsageError(f"{path} exists and was not written by vmem; refusing to overwrite it",
                             "move it away, or edit it by hand")
        if old == text.encode():
            return path, False
    write_file(path, text)
    return path, True


def remove_config(project: Path) -> bool:
    from vmem.ops.project import CONFIG, HEADER
    from vmem.ops.writer import read_regular

    path = project / CONFIG
    old = read_regular(path, 64_000, whole=False)  # its header is enough to know it is vmem's
    if old is None or not old.decode("utf-8", "replace").startswith(HEADER):
        return False
    path.unlink()
    return True


def prune_targets(root: Path, project: Path, names: list[str], configured_dir: Path | None = None) -> list[str]:
    """Remove every file (and AGENTS.md section) this store's sync wrote into PROJECT for NAMES; CONFIGURED_DIR
    (--dir) places the target that vmem.yaml's sync.dir places otherwise."""
    from vmem import targets as registry
    from vmem.ops import writer
    from vmem.store.served import load_candidates

    _, policy, _, about, _ = load_candidates(root)
    owner = writer.Owner(root.name, about["id"])
    plans = []
    for name in names:
        t = registry.get(name)
        directory = project / (policy["sync"]["dir"] if t.configured_dir else t.default_dir)
        if t.configured_dir and configured_dir is not None:
            directory = configured_dir
        plans += [(where, writer.plan_dir(where, files, owner, project, part.prunable,
                                          part.merge if part.section else None))
                  for where, part, files in registry.placed(t, t.nothing(), directory)]
    deleted = []
    for directory, planned in plans:
        written, _, gone = writer.commit(directory, project, *planned)
        deleted += written + gone
    return deleted


def install_git(store_root: Path, target: Path) -> tuple[Path, bool]:
    """A post-merge hook in the store so a `git pull` re-syncs TARGET; an existing foreign hook is not replaced."""
    hooks = store_root / ".git" / "hooks"
    path = hooks / "post-merge"
    marker = "vmem post-merge hook"
    import shlex

    # single-quoted for sh: a directory named `$(cmd)`, with a backquote or a trailing backslash runs nothing
    script = _POST_MERGE.format(marker=marker, target=shlex.quote(str(target)))
    if path.exists():
        current = path.read_text(errors="replace")
        if marker not in current:
            raise UsageError(f"{path} already exists and is not vmem's", "add this line to it yourself: "
                             f"vmem sync --dir {target}")
        if current == script:
            return path, False
    hooks.mkdir(parents=True, exist_ok=True)
    path.write_text(script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path, True


def uninstall_git(store_root: Path) -> bool:
    path = store_root / ".git" / "hooks" / "post-merge"
    if path.is_file() and "vmem post-merge hook" in path.read_text(errors="replace"):
        path.unlink()
        return True
    return False


def uninstall(project: Path, store_path: str | None, git: bool) -> dict:
    """Undo install (and what sync wrote): every target's owned files of this store, the hook, the config."""
    from vmem import targets as registry
    from vmem.errors import VmemError
    from vmem.ops.project import read

    warnings: list[str] = []
    config = read(project)
    root = None
    try:
        root = _installed_store(project, store_path, config)
    except VmemError as exc:
        warnings.append(f"rules files left in place: {exc.message}")
    removed = prune_targets(root, project, list(registry.NAMES)) if root is not None else []
    path, hook_removed = uninstall_claude(project)
    config_removed = remove_config(project)
    _, ignore_removed = write_gitignore(project, [])
    post_merge = uninstall_git(root) if git and root is not None else False
    return {"removed": removed, "settings": str(path), "hook_removed": hook_removed,
            "config_removed": config_removed, "gitignore_removed": ignore_removed, "post_merge_removed": post_merge,
            "warnings": warnings}


def _installed_store(project: Path, store_path: str | None, config: dict | None) -> Path:
    """The store the project was synced from, without touching the network."""
    from vmem.errors import StoreNotFound
    from vmem.store.discover import find_store_root
    from vmem.store.remote import mirror_path

    if store_path or os.environ.get("VMEM_STORE") or config is None:
        root = find_store_root(store_path).absolute()
    else:
        candidates = []
        if config["store"]["path"]:
            candidates.append(project / config["store"]["path"])
        if config["store"]["url"]:
            candidates.append(mirror_path(config["store"]["url"]))
        root = next((c for c in candidates if (c / "vmem.yaml").is_file()), None)
        if root is None:
            raise StoreNotFound("the store in .vmem.yaml is not on this machine", "run vmem sync once, then retry")
    if not (root / "vmem.yaml").is_file():
        raise StoreNotFound(f"no vmem store at {root}", "pass --store PATH")
    return root.absolute()


def change_targets(project: Path, add: list[str], remove: list[str]) -> dict:
    """`vmem targets add|remove`: edit the committed config's targets; a removed target's files (its owned
    files, or its AGENTS.md section) are pruned now, since a later sync no longer renders that target."""
    from vmem import targets as registry
    from vmem.errors import VmemError
    from vmem.ops.project import CONFIG, read

    for name in add + remove:
        registry.get(name)  # a usage error for an unknown name, before any write
    config = read(project)
    if config is None:
        raise UsageError(f"no {CONFIG} in {project}", "create it with: vmem hook install --store PATH|URL")
    targets = [t for t in config["targets"] if t not in remove] + [t for t in add if t not in config["targets"]]
    if not targets:
        raise UsageError("a project needs at least one target", "add another first, or run vmem hook uninstall")
    files = ignore_plan(project, targets, config)  # a damaged .gitignore block refused before any write
    removed: list[str] = []
    warnings: list[str] = []
    gone = [t for t in config["targets"] if t not in targets]
    if gone:
        try:
            removed = prune_targets(_installed_store(project, None, config), project, gone)
        except VmemError as exc:
            warnings.append(f"files of {', '.join(gone)} left in place: {exc.message}")
    path, written = write_config(project, {**config, "targets": targets})
    ignored = apply_gitignore(files["path"], files["text"])  # in step with the targets: one rule for every writer
    commit = [CONFIG] * written + [".gitignore"] * ignored
    return {"config": str(path), "targets": targets, "written": written, "removed": removed, "warnings": warnings,
            "gitignore": str(files["path"]), "gitignore_written": ignored, "ignore": files["ignore"],
            "commit": commit, "after_sync": files["after_sync"]}


# -- which generated files a project commits, and which it ignores (issue 31) -----------------------------------
IGNORE_START = "# vmem: written in each clone by `vmem sync` (the session hook); `vmem hook install` keeps this block"
IGNORE_END = "# vmem: end"
IGNORE_BREAK = " (after a line break it added)"  # the user's last line had none: removing the block removes it
SHARED = [".vmem.yaml", ".claude/settings.json", ".gitignore"]  # config every clone needs: committed


def generated(targets: list[str], rules_dir: str) -> dict:
    """What a project with TARGETS commits and what it ignores. Whole files vmem writes are per-clone output: the
    session hook regenerates them from the store in every clone, so committing them would only record a copy that
    goes stale with each approval (`M` in every teammate's clone). A section inside a file the user writes
    (AGENTS.md, .github/copilot-instructions.md) cannot be ignored apart from the user's text: the file is
    committed, section and all."""
    from vmem import targets as registry

    ignore, sections = [], []
    for name in targets:
        t = registry.get(name)
        for sub, part in t.parts():
            base = rules_dir if t.configured_dir else t.default_dir
            where = base if sub == "." else f"{base}/{sub}"
            if part.section:
                sections += [f"{where}/{f}".removeprefix("./") for f in part.render_empty()]
            else:  # a whole directory of vmem's, or only its files among the team's own
                ignore.append(f"/{where.strip('/')}/{part.owned_glob}")
    return {"commit": SHARED + sections, "ignore": list(dict.fromkeys(ignore)), "sections": sections}


def rules_dir(project: Path, config: dict | None) -> str:
    """Where the claude target writes in PROJECT: the sync.dir of CONFIG's store when that is on this machine
    (no network), else the default."""
    from vmem import targets as registry
    from vmem.errors import VmemError
    from vmem.ops.project import resolve_store

    try:
        if config is not None:
            root, _ = resolve_store(project, config, fetch=False, network=False)
            from vmem.store.served import load_candidates

            return load_candidates(root).policy["sync"]["dir"]
    except VmemError:
        pass
    return registry.get("claude").default_dir


def write_gitignore(project: Path, lines: list[str]) -> tuple[Path, bool]:
    """Keep vmem's marked block in PROJECT/.gitignore holding LINES, minus any the user's own text already has;
    the user's lines are never changed or reordered; idempotent. No LINES left: the block goes."""
    path, new = plan_gitignore(project, lines)
    return path, apply_gitignore(path, new)


def apply_gitignore(path: Path, new: str | None) -> bool:
    """Write what plan_gitignore decided (None: nothing to change; "": the file goes)."""
    if new is None:
        return False
    if new:
        write_file(path, new)
    else:
        path.unlink()
    return True


def plan_gitignore(project: Path, lines: list[str]) -> tuple[Path, str | None]:
    """The .gitignore text with vmem's block holding LINES (None: as it is), every refusal raised before any
    write of the install."""
    from vmem.ops.writer import lstat, read_regular

    path = project / ".gitignore"
    old = b""
    if lstat(path) is not None:
        data = read_regular(path, 1_000_000)
        if data is None:
            raise UsageError(f"{path} is not a regular file; vmem will not write through it", "replace it by hand")
        old = data
    try:
        text = old.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text; vmem will not edit it", "fix its encoding") from None
    rows = text.splitlines(keepends=True)
    starts = [n for n, row in enumerate(rows) if row.rstrip("\r\n") in (IGNORE_START, IGNORE_START + IGNORE_BREAK)]
    ends = [n for n, row in enumerate(rows) if row.rstrip("\r\n") == IGNORE_END]
    if len(starts) > 1 or len(ends) != len(starts) or (starts and ends[0] < starts[0]):
        raise UsageError(f"{path} has a damaged vmem block (its marker lines missing or repeated)",
                         f"remove the lines from {IGNORE_START!r} to {IGNORE_END!r} by hand, then rerun the command")
    before, after = (rows[:starts[0]], rows[ends[0] + 1:]) if starts else (rows, [])
    users = {row.strip() for row in before + after}
    mine = [line for line in lines if line not in users]
    head = "".join(before)
    broke = rows[starts[0]].rstrip("\r\n").endswith(IGNORE_BREAK) if starts else bool(head) and \
        not head.endswith("\n")
    if broke and not mine and starts:
        head = head[:-1]  # the line break it added goes with the block
    elif broke and not starts:
        head += "\n"
    start = IGNORE_START + (IGNORE_BREAK if broke else "")
    block = "".join(f"{row}\n" for row in [start, *mine, IGNORE_END]) if mine else ""
    new = head + block + "".join(after)
    return path, None if new == text else new
