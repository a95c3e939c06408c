"""The vmem merge driver's entry in a clone's git config. Git falls back to a line merge, silently, when a driver
that .gitattributes names is not configured, so `vmem init`, `vmem clone` and `vmem setup` register it and
`vmem check` warns when it is missing (the driver itself: vmem.ops.merge)."""

from __future__ import annotations

DRIVER = "vmem merge-driver %O %A %B %P"


def register(repo) -> bool:
    """Configure the driver in the clone REPO (idempotent); True when something changed."""
    config = repo.config
    try:
        if config["merge.vmem.driver"] == DRIVER:
            return False
    except KeyError:
        pass
    config["merge.vmem.name"] = "vmem field-wise item merge"
    config["merge.vmem.driver"] = DRIVER
    return True


def is_registered(repo) -> bool:
    """The clone REPO runs vmem's driver for item files."""
    try:
        return repo.config["merge.vmem.driver"] == DRIVER
    except KeyError:
        return False
