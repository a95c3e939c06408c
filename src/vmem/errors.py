"""The one error hierarchy: domain code raises these, only the CLI converts them."""

from __future__ import annotations


class VmemError(Exception):
    """A failure the user can act on: a one-line message plus the next thing to try."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def described(self) -> str:
        """The message and its hint on one line (a face without separate streams: an MCP tool error)."""
        return self.message + (f" ({self.hint})" if self.hint else "")


class UsageError(VmemError):
    """Invalid input: a malformed id, an unknown option value, a bad file."""

    exit_code = 2


class InvalidId(UsageError):
    """An id that does not match its grammar; never becomes a path."""


class StoreNotFound(VmemError):
    """No store at the given or discovered location."""


class StoreExists(VmemError):
    """`init` on a directory that already holds a store or other files."""


class ItemNotFound(VmemError):
    """An id that is well-formed but not in the store."""


class BeforeHistory(ItemNotFound):
    """A moment before the store's first commit: nothing was known then (FIRST: that commit's time, ISO)."""

    def __init__(self, message: str, hint: str, first: str) -> None:
        super().__init__(message, hint)
        self.first = first


class IllegalTransition(VmemError):
    """A status change that the lifecycle table does not allow."""


class SchemaError(VmemError):
    """An item or policy file that does not match its schema."""

    def __init__(self, path: str, message: str, hint: str | None = None, line: int | None = None) -> None:
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}", hint)
        self.path = path
        self.line = line
        self.detail = message


class LockTimeout(VmemError):
    """Another vmem process held the store lock for too long."""


class DirtyWorkTree(VmemError):
    """An item file vmem must rewrite has uncommitted hand edits."""


class GateFailed(VmemError):
    """A deterministic gate refused an action."""


class NotAllowed(VmemError):
    """The identity is not allowed to perform a governance action."""
