"""Create a store from store_template/: git init, template files, one initial commit."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from vmem.errors import StoreExists, VmemError
from vmem.policy import POLICY_FILE
from vmem.store import gitrepo, mergedriver
from vmem.store.message import Message
from vmem.store.repo import Store


def template_dir() -> Path:
    return Path(str(resources.files("vmem") / "store_template"))


def init_store(path: Path, branch: str = "main", remote: str | None = None, reviewers: list[str] = (),
               solo: bool = False) -> Store:
    """A new store at PATH. REVIEWERS (default: its creator) go into the first commit's vmem.yaml: a store that has
    reviewers from its root has no history where anyone may review, so no fork of it can vouch for itself (SPEC 12).
    SOLO keeps `reviewers: []`: anyone who can push may review, and every face says so."""
    if solo and reviewers:
        from vmem.errors import UsageError

        raise UsageError("--solo means no reviewers; it cannot be given with --reviewer", "drop one of them")
    root = Path(path).absolute()
    if (root / POLICY_FILE).exists():
        raise StoreExists(f"{root} is already a vmem store", f"use it: vmem --store {root} list")
    if root.exists() and not root.is_dir():
        raise StoreExists(f"{root} is a file, not a directory", "pick another path: vmem init PATH")
    if root.exists() and any(p.name != ".git" for p in root.iterdir()):
        raise StoreExists(f"{root} is not empty", "pick an empty or new directory: vmem init PATH")
    made = next((p for p in reversed((root, *root.parents)) if not p.exists()), None)  # the top folder we create
    had = set(root.iterdir()) if made is None else set()
    try:
        return _create(root, branch, remote, list(reviewers), solo)
    except BaseException:
        # a refusal (no git identity) or a failure leaves nothing behind: what existed before stays as it was
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
        else:
            for path in set(root.iterdir()) - had:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        raise


def _create(root: Path, branch: str, remote: str | None, reviewers: list[str], solo: bool) -> Store:
    root.mkdir(parents=True, exist_ok=True)
    repo = gitrepo.open_for_new_store(root, branch)
    store = Store(root, repo)
    try:
        identity = store.identity()  # fail before writing anything if there is no git identity
    except VmemError as exc:  # the store's own folder is about to be removed: point at the global setting
        raise VmemError(exc.message, "set it once for every repository: git config --global user.name 'Your Name' "
                        "&& git config --global user.email you@example.com, then run vmem init again") from None
    shutil.copytree(template_dir(), root, dirs_exist_ok=True)
    if not reviewers and not solo:
        reviewers = [identity.email]  # the store's trust anchor from its first commit
    if reviewers:
        from vmem.policy import load_policy
        from vmem.store import codec

        text = (root / POLICY_FILE).read_text(encoding="utf-8")
        raw = codec.load(text, POLICY_FILE)
        raw["reviewers"] = list(dict.fromkeys(reviewers))
        load_policy(raw)  # a malformed address is refused before anything is committed
        (root / POLICY_FILE).write_text(codec.dump(raw, text), encoding="utf-8")
    message = Message("init", summary="new vmem store", body=["Created from store_template by vmem init."])
    gitrepo.commit_everything(repo, identity, message.render())
    mergedriver.register(repo)
    if remote:
        gitrepo.add_remote(repo, "origin", remote)  # push with: git push -u origin main
    return store
