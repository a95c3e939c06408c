"""Claim governance: approve, mandate, revoke, verify, and the TTL sweep; each is one guarded commit."""

from __future__ import annotations

import re
from dataclasses import dataclass

from vmem import model
from vmem.confidence import is_expired
from vmem.errors import NotAllowed, UsageError
from vmem.ops.common import require_attested, require_reviewer, widenings
from vmem.store.repo import Store
from vmem.output import counted


@dataclass
class Governed:
    action: str
    item: dict
    commit: str | None
    superseded: dict | None = None
    contradictions: list[dict] | None = None  # after approve/mandate: the open items it contradicts now

    def data(self, other: str = "previous") -> dict:
        """What `vmem approve|mandate|revoke|verify --json` report, and MCP's verify: OTHER names the second item
        (the claim a revision retired; for verify, the correction proposed)."""
        data = {"action": self.action, "item": self.item, "commit": self.commit}
        if self.superseded is not None:
            data[other] = self.superseded
        if self.contradictions is not None:
            data["contradictions"] = self.contradictions
        return data


def _claim(tx, item_id: str) -> dict:
    item = tx.snapshot.item(model.check_item_id(item_id))
    if item["kind"] != "claim":
        raise UsageError(f"{item_id} is a knowledge item", f"knowledge is published, not approved: vmem publish {item_id}")
    return item


def set_status(store: Store, item_id: str, target: str, *, reason: str | None = None,
               widen_scope: bool = False) -> Governed:
    """approve | mandate | revoke: a reviewer moves a claim along the lifecycle table."""
    action = {"approved": "approve", "mandatory": "mandate", "revoked": "revoke"}[target]
    item_id = store.head().resolve_id(item_id)
    author = store.identity()
    require_reviewer(store, author.email, f"{action} claims")
    superseded = None
    with store.transaction(action, reason=reason) as tx:
        tx.author = author
        item = _claim(tx, item_id)
        require_attested(store, tx.snapshot, item)
        if item["status"] == "proposed" and target in model.SERVABLE["claim"]:
            _require_own_provenance(item)
        now = model.now()
        model.transition(item, target, by=author.email, action=action, reason=reason, at=now)
        tx.message.items = [item_id]
        tx.message.summary = item["statement"]
        if item.get("supersedes") and target in model.SERVABLE["claim"]:
            # approving a revision proposed with --supersedes retires the old belief in this same commit
            old = tx.snapshot.item(item["supersedes"])
            widened = widenings(old, item) if old.get("superseded_by") != item_id else []
            if widened and not widen_scope:
                raise NotAllowed(f"{item_id} reaches further than {old['id']}, the claim it replaces: "
                                 f"{', '.join(widened)}", f"if that is intended: vmem {action} {item_id} "
                                 "--widen-scope; else propose the revision with the old --about/--audience/--personal")
            if widened:
                tx.message.extra["Widens"] = ", ".join(widened)
            if old["status"] != "superseded":
                model.transition(old, "superseded", at=now, superseded_by=item_id)
                tx.message.items.append(old["id"])
                tx.message.supersedes = old["id"]
                tx.write(old)
                superseded = old
        tx.write(item)
    item = model.normalize_item(item)
    found = None
    if target in model.SERVABLE["claim"]:  # checked again now that it is live: never silently lost
        from vmem.ops.card import viewer_of
        from vmem.ops.contradictions import open_with

        found = open_with(store, item, viewer_of(store))
    return Governed(action + ("d" if action.endswith("e") else "ed"), item, tx.commit_id, superseded, found)


# the source types a proposal enters with, as vmem's commands write them (propose, import, harvest, verify
# --corrected); no command proposes with an admin_mandate or definition source
_PROPOSED_SOURCES = ("analyst", "import", "session_transcript", "user_verification")


def _require_own_provenance(item: dict) -> None:
    """A proposal's source and base confidence as the command that proposed it writes them: a hand edit that gives
    a claim more trust than its source does (SPEC 9) is refused before a reviewer's approval would serve it."""
    from vmem.confidence import base_confidence

    source = item.get("source") or {}
    kind = source.get("type") or "analyst"
    hint = f"ask its proposer to propose it again (vmem propose), or reject it: vmem reject {item['id']} --reason …"
    if kind not in _PROPOSED_SOURCES:
        raise NotAllowed(f"{item['id']} says its source is {kind!r}, which no vmem command proposes with "
                         "(the file was edited by hand)", hint)
    allowed = ({base_confidence(kind, "correction"), base_confidence(kind, "confirmation")}
               if kind == "user_verification" else {base_confidence(kind, source.get("kind"))})
    if round(float(item.get("confidence") or 0.5), 4) not in {round(c, 4) for c in allowed}:
        raise NotAllowed(f"{item['id']} says its confidence is {item.get('confidence')}, which its source "
                         f"({kind}) does not give ({', '.join(f'{c:.2f}' for c in sorted(allowed))}): the file was "
                         "edited by hand", hint)


def verify(store: Store, item_id: str, kind: str, corrected: str | None = None) -> Governed:
    """Record an independent confirmation or correction (feeds effective confidence). A correction lowers the
    claim's confidence (SPEC 9); with CORRECTED, the corrected statement is proposed in the same commit as its
    revision, at the 0.90 base a correction earns."""
    if kind not in ("confirmation", "correction"):
        raise UsageError(f"unknown verification kind {kind!r}", "use --kind confirmation or --kind correction")
    if corrected is not None and kind != "correction":
        raise UsageError("--corrected goes with --kind correction", "vmem verify ID --kind correction --corrected TEXT")
    if corrected is not None and not corrected.strip():
        raise UsageError("the corrected statement is empty", "write what is true instead: --corrected TEXT")
    item_id = store.head().resolve_id(item_id)
    author = store.identity()
    with store.transaction("verify") as tx:
        tx.author = author
        item = _claim(tx, item_id)
        if item["status"] not in model.OPEN["claim"]:
            raise UsageError(f"{item_id} is {item['status']}; there is nothing live to verify",
                             "propose the corrected fact instead: vmem propose TEXT --supersedes ID")
        now = model.now()
        item["verifications"].append({"user": author.email, "kind": kind, "at": now})
        tx.message.items = [item_id]
        tx.message.summary = f"{kind}: {item['statement']}"
        revision = None
        if corrected is not None:
            from vmem.confidence import base_confidence
            from vmem.ops.common import expires_at

            revision = model.validate("claim", {
                **{k: item[k] for k in ("title", "scope", "class", "domain", "categories", "paths", "audience",
                                        "personal")},
                "id": model.new_id("claim"), "kind": "claim", "statement": " ".join(corrected.split()),
                "status": "proposed", "source": {"type": "user_verification", "user": author.email, "episode": None},
                "confidence": base_confidence("user_verification", "correction"), "created_at": now,
                "valid_from": now, "expires_at": expires_at(store.policy, item["class"], now), "supersedes": item_id,
            }, "the corrected claim")
            tx.message.items.append(revision["id"])
            tx.message.supersedes = item_id
            tx.message.summary = f"correction: {revision['statement']}"
            tx.write(revision)
        tx.write(item)
    return Governed("verified", model.normalize_item(item), tx.commit_id,
                    None if revision is None else model.normalize_item(revision))


def expire(store: Store, *, tx=None) -> list[str]:
    """Record every claim past expires_at as expired, in one commit (reads never wait for this)."""
    if tx is not None:
        return _expire_in(tx)
    with store.transaction("expire") as own:
        expired = _expire_in(own)
    return expired


_EXPIRES = re.compile(rb"^expires_at: *(null|~|'?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ'?)? *$", re.M)
_STATUS = re.compile(rb"^status: *([a-z_]+) *$", re.M)
_SWEPT = tuple(status.encode() for status in model.OPEN["claim"])  # the claims that may still expire


def _may_expire(now: str):
    """A byte test that skips parsing claims that certainly have not expired (a 100k store has ~70k claims).

    Only a file with exactly one top-level `expires_at:` line (or `status:` line) in vmem's own format is judged
    from its bytes; anything else is parsed. Reads check expiry themselves, so the sweep is bookkeeping.
    """
    stamp = now.encode()

    def may(data: bytes) -> bool:
        status = _STATUS.findall(data)
        if len(status) == 1 and status[0] not in _SWEPT:
            return False
        expires = _EXPIRES.findall(data)
        if len(expires) == 1:
            value = expires[0].strip(b"'")
            return bool(value) and value not in (b"null", b"~") and value <= stamp
        return True
    return may


def _expire_in(tx) -> list[str]:
    expired = []
    for loaded in tx.snapshot.files("claim", may_match=_may_expire(model.now())):
        item = loaded.item
        if item is None or item["status"] not in model.OPEN["claim"] or not is_expired(item):
            continue
        model.transition(item, "expired")
        expired.append(item["id"])
        tx.write(item)
    if expired:
        tx.message.items = sorted(set(tx.message.items) | set(expired))
        tx.message.extra["Expired"] = str(len(expired))
        if tx.message.action == "expire":
            tx.message.summary = f"{counted(len(expired), 'claim')} past expires_at"
    return expired
