"""The project config (`.vmem.yaml`, committed in the agent's project, SPEC 13): which store the project's
agents read (a remote URL and/or a path relative to the project), the targets and the budget. Portable by
construction: no absolute path is ever written, and none is accepted from a teammate's commit."""

from __future__ import annotations

import os
from pathlib import Path

from vmem.errors import StoreNotFound, UsageError

CONFIG = ".vmem.yaml"
HEADER = "# vmem project config (commit it): where this project's agents get the team's reviewed knowledge.\n" \
         "# Written by `vmem hook install`; `vmem hook uninstall` removes it.\n"


def read(project: Path) -> dict | None:
    """PROJECT's config, validated; None when it has none."""
    from vmem.ops.writer import lstat, read_regular

    path = project / CONFIG
    if lstat(path) is None:
        return None
    data = read_regular(path, 64_000)
    if data is None:
        raise UsageError(f"{path} is not a regular file; vmem reads its project config only from one",
                         "replace it with a plain file (vmem hook install --store …)")
    from vmem.store import codec

    raw = codec.load(data, str(path)) or {}
    if not isinstance(raw, dict) or not set(raw) <= {"store", "targets", "budget", "scope", "audience"}:
        raise UsageError(f"{path}: expected the keys store, targets, budget (and optionally scope, audience)",
                         "fix it by hand, or rewrite it with: vmem hook install --store …")
    return check_config(raw, path, project)


def check_config(raw: dict, path, project: Path | None = None) -> dict:
    """RAW as a config, or a one-line usage error naming PATH. A committed config may name only a network URL
    and a relative path that passes through no symlink (checked from PROJECT): a teammate's commit must never
    point a colleague's hook at another store on the colleague's machine (issue 28, attack 7)."""
    from vmem.errors import VmemError
    from vmem.store.remote import check_url
    from vmem.targets import DEFAULT, NAMES

    store = raw.get("store") or {}
    if not isinstance(store, dict) or not set(store) <= {"url", "path"} or not store:
        raise UsageError(f"{path}: store needs a url and/or a path", "e.g. store: {url: https://…/memory.git}")
    if store.get("url") is not None:
        try:
            check_url(store["url"])
        except VmemError as exc:
            raise UsageError(f"{path}: {exc.message}", exc.hint) from None
    if store.get("path") is not None:
        rel = store["path"]
        if not isinstance(rel, str) or Path(rel).is_absolute() or "\0" in rel or rel.startswith("~"):
            raise UsageError(f"{path}: store.path must be relative to the project (a committed config holds no "
                             "absolute path)", "e.g. store: {path: ../memory}")
        if climbs_out(rel):
            raise UsageError(f"{path}: store.path {rel!r} climbs out of the project's parent directory; a committed "
                             "config names a store inside the project or beside it, never further up",
                             "put the store beside the project (store: {path: ../team-memory}) or name it by its "
                             "https or ssh URL")
        link = _symlink_on(project, rel) if project is not None else None
        if link is not None:
            raise UsageError(f"{path}: store.path {rel!r} passes through the symlink {link}; a committed config may "
                             "not lead to another place on this machine",
                             "put the store itself there (e.g. ../memory) or name it by its https or ssh URL")
    targets = raw.get("targets") or [DEFAULT]
    if not isinstance(targets, list) or not targets or any(t not in NAMES for t in targets):
        raise UsageError(f"{path}: targets must be a list of {', '.join(NAMES)}", "e.g. targets: [claude, agents-md]")
    budget = raw.get("budget")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 0):
        raise UsageError(f"{path}: budget must be a whole number of tokens", "e.g. budget: 6000")
    for key in ("scope", "audience"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise UsageError(f"{path}: {key} must be text", "e.g. audience: all")
    return {"store": {"url": store.get("url"), "path": store.get("path")}, "targets": list(dict.fromkeys(targets)),
            "budget": budget, "scope": raw.get("scope"), "audience": raw.get("audience")}


def climbs_out(rel: str) -> bool:
    """REL, normalised as text before anything resolves it (`src/../../x` is `../x`), leaves the project's parent
    directory or is that directory itself: more than one leading '..', or nothing after it. A sibling checkout
    (`../team-memory`) is the common layout; anything further up is another place on a colleague's machine."""
    parts = Path(os.path.normpath(rel)).parts
    return parts[:2] == ("..", "..") or parts == ("..",)


def _symlink_on(project: Path, rel: str) -> str | None:
    """The first symlink REL passes through, walked from PROJECT one component at a time as the kernel resolves
    it (so `link/..` is caught at `link`), shown relative to PROJECT; None when there is none. Components past one
    that does not exist are not looked at: nothing can be reached through them. PROJECT itself is the user's
    own choice (their checkout may sit under a symlinked directory) and is not judged."""
    import stat

    here, shown = project, Path()
    for part in Path(rel).parts:
        here, shown = here / part, shown / part
        if part == "..":
            continue  # the parent of a directory already walked: never a symlink of its own
        try:
            mode = os.lstat(here).st_mode
        except (OSError, ValueError):
            return None
        if stat.S_ISLNK(mode):
            return shown.as_posix()
    return None


def resolve_store(project: Path, config: dict, fetch: bool = True, network: bool = True) -> tuple[Path, list[str]]:
    """The store a project config names: its relative path when that holds a store, else the user's clone of
    its URL, fast-forwarded when FETCH (offline: the last good state, with a warning); without FETCH the clone
    as it is (made now if there is none yet)."""
    warnings: list[str] = []
    store = config["store"]
    if store["path"]:
        candidate = (project / store["path"])
        if (candidate / "vmem.yaml").is_file():
            return candidate.absolute(), warnings
        if not store["url"]:
            raise StoreNotFound(f"no vmem store at {store['path']} (from {CONFIG})",
                                "clone the team's store there, or add its url to " + CONFIG)
    from vmem.store.remote import check_url, mirror, mirror_path

    if not fetch:
        check_url(store["url"])
        kept = mirror_path(store["url"])
        if (kept / "vmem.yaml").is_file() and (kept / ".git").is_dir():
            return kept, warnings
    if not network:
        raise StoreNotFound(f"no clone of {store['url']} on this machine yet", "run: vmem sync")
    path, problem = mirror(store["url"])
    if path is None:
        raise StoreNotFound(problem or f"cannot reach {store['url']}", "check the network and the URL in " + CONFIG)
    if problem:
        warnings.append(problem)
    return path, warnings


def render(config: dict) -> str:
    import json

    lines = [HEADER, "store:\n"]
    for key in ("url", "path"):
        if config["store"].get(key):
            lines.append(f"  {key}: {json.dumps(config['store'][key])}\n")
    lines.append(f"targets: [{', '.join(config['targets'])}]\n")
    if config.get("budget") is not None:
        lines.append(f"budget: {int(config['budget'])}\n")
    for key in ("scope", "audience"):
        if config.get(key):
            lines.append(f"{key}: {json.dumps(config[key])}\n")
    return "".join(lines)
