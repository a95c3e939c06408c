"""Finding the store: --store, then $VMEM_STORE, then the nearest parent with vmem.yaml, then the user config."""

from __future__ import annotations

import os
from pathlib import Path

from vmem.errors import StoreNotFound
from vmem.policy import POLICY_FILE


def user_config_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("vmem")) / "config.yaml"


PROJECT_FILE = ".vmem.yaml"  # a code project's committed config, naming the team's store (ops/project.py)


def nearest(start: Path) -> tuple[str, Path] | None:
    """The nearest directory from START upward that is a project ("project": it holds .vmem.yaml) or a store
    ("store": vmem.yaml in a git work tree); at one level a project config comes first. None when neither."""
    for directory in (start, *start.parents):
        if os.path.lexists(directory / PROJECT_FILE):
            return "project", directory
        if (directory / POLICY_FILE).is_file() and (directory / ".git").exists():
            return "store", directory
    return None


def find_store_root(explicit: str | os.PathLike | None = None) -> Path:
    """--store, $VMEM_STORE, the nearest store, the user config: the rule without project configs (the full rule,
    which reads a project's .vmem.yaml, is vmem.ops.session.resolve)."""
    if explicit:
        return Path(explicit).expanduser()
    if os.environ.get("VMEM_STORE"):
        return Path(os.environ["VMEM_STORE"]).expanduser()
    here = Path.cwd()
    for directory in (here, *here.parents):
        if (directory / POLICY_FILE).is_file() and (directory / ".git").exists():
            return directory
    return user_store()


def user_store() -> Path:
    """The store named in the user's config file, or StoreNotFound."""
    config = user_config_file()
    if config.is_file():
        from vmem.store import codec

        data = codec.load(config.read_bytes(), str(config))
        if isinstance(data, dict) and isinstance(data.get("store"), str):
            return Path(data["store"]).expanduser()
    raise StoreNotFound("no vmem store here or in any parent directory",
                        "create one with: vmem init, or point at one with --store PATH or VMEM_STORE")


def open_store(explicit: str | os.PathLike | None = None, lite: bool = False):
    from vmem.store.repo import Store  # pygit2: only for commands that read git objects (or lite: none)

    return Store.open(find_store_root(explicit), lite=lite)
