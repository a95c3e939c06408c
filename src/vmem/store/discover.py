"""Finding the store: --store, then $VMEM_STORE, then the nearest parent with vmem.yaml, then the user config."""

from __future__ import annotations

import os
from pathlib import Path

from vmem.errors import StoreNotFound
from vmem.policy import POLICY_FILE


def user_config_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("vmem")) / "config.yaml"


def find_store_root(explicit: str | os.PathLike | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    if os.environ.get("VMEM_STORE"):
        return Path(os.environ["VMEM_STORE"]).expanduser()
    here = Path.cwd()
    for directory in (here, *here.parents):
        if (directory / POLICY_FILE).is_file() and (directory / ".git").exists():
            return directory
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
