"""Team use over git remotes: the field-wise merge driver for item files, and setting up clones.

Git falls back to a line merge, silently, when a driver named in .gitattributes is not configured, so
`vmem init`, `vmem clone` and `vmem setup` register it (vmem.store.mergedriver) and `vmem check` warns when it is
missing.
"""

from __future__ import annotations

from pathlib import Path

from vmem import model
from vmem.errors import SchemaError
from vmem.store import codec, mergedriver

TYPE_CHECKING = False  # typing's flag, without importing typing (~3 ms of every command)
if TYPE_CHECKING:
    from vmem.store.repo import Store

CONFLICT_NOTE = "# vmem merge conflict: "  # heads each conflict the driver leaves for a human; vmem check looks for it
UNIONS = {"evidence": ("entity", "writer", "episode"), "verifications": ("user", "kind", "at"), "merges": ("from",),
          "suggestions": ("id",), "related": ("id",), "distinct": ("id",)}
ORDERED_SETS = ("categories", "paths")
LATEST = ("review", "gate", "published")


def clone(url: str, target: Path) -> str:
    """`vmem clone`: the store at URL cloned into TARGET, the merge driver registered there and the store's
    identity pinned; the clone's work tree, as git names it."""
    from vmem.store import gitrepo

    existed = target.exists()  # git clones only into a missing or empty folder: whatever is there after is ours
    repo = gitrepo.clone(url, target)
    if not (Path(repo.workdir) / "vmem.yaml").is_file():
        import shutil

        from vmem.errors import StoreNotFound

        repo.free()
        if existed:  # the empty folder the user made stays, empty again, so a retry into it works
            for entry in target.iterdir():
                shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        else:
            shutil.rmtree(target)
        raise StoreNotFound(f"cloned {url} into {target}, but its checked-out branch holds no vmem.yaml",
                            "the remote's default branch (HEAD) may name a branch that does not exist or is not the "
                            "store's: push the store's branch there (git push -u origin main), or set the remote's "
                            "default branch")
    mergedriver.register(repo)
    pin_root(repo)
    return repo.workdir


def set_up(store: Store) -> bool:
    """`vmem setup`: the merge driver registered in this clone and the store's identity pinned; True when the
    driver was not registered yet."""
    repo = store.full().repo
    changed = mergedriver.register(repo)
    pin_root(repo)
    return changed


def pin_root(repo) -> None:
    """Remember the store's identity as this clone first saw it (SPEC 12); see store.attest.pin_identity."""
    from vmem.store.attest import pin_identity

    pin_identity(repo)


def _key(entry: dict, fields: tuple[str, ...]) -> tuple:
    return tuple(entry.get(f) for f in fields)


def merge_items(base: dict | None, ours: dict, theirs: dict) -> tuple[dict, list[str]]:
    """Field by field: unions for evidence/verifications/merges/categories, the latest review and gate, the
    later last_reinforced; any other field changed differently on both sides is a conflict (ours kept)."""
    if ours == theirs:
        return ours, []
    if ours["id"] != theirs["id"] or ours["kind"] != theirs["kind"]:
        return ours, [f"id/kind differ: ours {ours['id']}, theirs {theirs['id']}"]
    base = base or {}
    merged: dict = {}
    conflicts: list[str] = []
    for field in ours:
        a, b, o = ours[field], theirs.get(field), base.get(field)
        if a == b:
            merged[field] = a
        elif field in UNIONS:
            seen = {_key(e, UNIONS[field]) for e in a or []}
            merged[field] = list(a or []) + [e for e in b or [] if _key(e, UNIONS[field]) not in seen]
        elif field in ORDERED_SETS:
            merged[field] = list(a or []) + [x for x in b or [] if x not in (a or [])]
        elif field in LATEST:
            merged[field] = max((x for x in (a, b) if x), key=lambda x: x.get("at") or "", default=None)
        elif field == "last_reinforced":
            merged[field] = max(a, b)
        elif field == "first_seen":
            merged[field] = min(a, b)
        elif a == o:
            merged[field] = b
        elif b == o:
            merged[field] = a
        else:
            merged[field] = a
            conflicts.append(f"{field}: ours {a!r}, theirs {b!r} (base {o!r})")
    return merged, conflicts


def merge_files(base_path: Path, ours_path: Path, theirs_path: Path, name: str) -> list[str]:
    """The driver: merge three versions of one item file into OURS; returns the conflicts (empty: clean)."""
    def read(path: Path) -> tuple[dict | None, str]:
        data = path.read_bytes()
        if not data.strip():
            return None, ""
        text = codec.decode(data, name)
        parsed = codec.load(text, name)
        kind = parsed.get("kind") if isinstance(parsed, dict) else None
        if kind not in ("claim", "knowledge"):
            raise SchemaError(name, "not a vmem item", "resolve this file by hand")
        return model.validate(kind, parsed, name), text

    base, _ = read(base_path)
    ours, ours_text = read(ours_path)
    theirs, _ = read(theirs_path)
    if ours is None or theirs is None:
        return ["deleted on one side"]
    merged, conflicts = merge_items(base, ours, theirs)
    text = codec.dump(merged, ours_text)
    if conflicts:
        report = "".join(f"{CONFLICT_NOTE}{line}\n" for line in conflicts)
        text = report + "# resolve: edit the fields above, delete these lines, then git add and commit\n" + text
    ours_path.write_text(text, encoding="utf-8")
    return conflicts
