"""Whose question: an entity and an audience (Scope), and their codes in the index's columns; recall's visibility
mask and pending's count of items awaiting review both start here (so neither imports the other)."""

from __future__ import annotations

from datetime import datetime

from vmem import model
from vmem.errors import ItemNotFound, UsageError
from vmem.names import check_audience


class Scope:
    """Whose question: an entity (None: org-wide) and an audience ("all" or "group:NAME"). A plain class, not a
    dataclass: a one-shot recall would pay ~10 ms importing dataclasses and inspect."""

    __slots__ = ("entity", "audience")

    def __init__(self, entity: str | None, audience: str) -> None:
        self.entity, self.audience = entity, audience

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scope) and (self.entity, self.audience) == (other.entity, other.audience)

    def __hash__(self) -> int:
        return hash((self.entity, self.audience))

    def __repr__(self) -> str:
        return f"Scope(entity={self.entity!r}, audience={self.audience!r})"

    @classmethod
    def parse(cls, scope: str | None, audience: str | None) -> "Scope":
        entity = None
        if scope not in (None, "", "org"):
            if not scope.startswith("entity:"):
                raise UsageError(f"invalid scope {scope!r}", "use --scope entity:ID (or leave it out for org)")
            entity = model.check_name_id(scope[7:])
        return cls(entity, check_audience(audience or "all"))

    def check_entity(self, snapshot) -> None:
        """An entity scope names an entity of the tree searched: a typo is an error, not an empty answer."""
        if self.entity is not None and snapshot.blob(model.entity_path(self.entity)) is None:
            raise ItemNotFound(f"no entity {self.entity!r} in this store",
                               "list them with: vmem entity list (or leave out --scope for org-wide results)")

    def admits(self, item: dict, include_stale: bool = False, at: datetime | None = None) -> bool:
        """The one rule (SPEC 8), for an item read from any tree; shared with sync in vmem.visibility."""
        from vmem.visibility import admits

        return admits(item, self.entity, self.audience, include_stale, at)


def codes(index, scope: Scope) -> tuple[int, int]:
    """The index's codes for SCOPE's entity and audience group (-2: none has it)."""
    entity_code = index.entity_names.index(scope.entity) + 1 if scope.entity in index.entity_names else -2
    group = scope.audience[6:] if scope.audience.startswith("group:") else None
    return entity_code, index.group_names.index(group) + 1 if group in index.group_names else -2
