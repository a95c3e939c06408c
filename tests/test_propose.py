"""vmem propose: facts become proposed claims, learnings become knowledge evidence."""

from __future__ import annotations

import pytest
from conftest import commit_count, commit_file, git

from vmem import model


def test_fact_is_a_proposed_claim_in_one_commit(store, vmem):
    before = commit_count(store)
    data = vmem.json("propose", "orders.completed_at lags placement by 3 days", "--domain", "finance",
                     "--title", "orders lag", "-c", "table:orders", store=store)["data"]
    item = data["item"]
    assert data["action"] == "created"
    assert item["status"] == "proposed" and item["kind"] == "claim" and item["scope"] == "org"
    assert item["source"] == {"type": "analyst", "user": "alice@example.com", "episode": None, "kind": None,
                              "session": None, "quote": None}
    assert item["categories"] == ["table:orders"]
    assert model.parse_ts(item["expires_at"]) > model.parse_ts(item["created_at"])  # factual TTL: 90 days
    assert (store.root / model.item_path(item["id"])).is_file()
    assert commit_count(store) == before + 1
    log = git(store, "log", "-1", "--format=%s%n%(trailers:key=Vmem-Action,valueonly)%(trailers:key=Vmem-Item,valueonly)")
    assert log.split() [:5] == ["vmem:", "propose", f"{item['id']}:", "orders.completed_at", "lags"]
    assert log.splitlines()[1:3] == ["propose", item["id"]]
    assert log.splitlines()[0].endswith("…")  # subjects are shortened to 72 characters


def test_claim_about_an_entity_is_scoped_and_needs_the_entity(seeded, vmem):
    item = vmem.json("propose", "Renewal is owned by procurement", "--about", "meridale", store=seeded)["data"]["item"]
    assert item["scope"] == "entity:meridale"
    before = commit_count(seeded)
    result = vmem("propose", "x is y", "--about", "nobody", code=1, store=seeded)
    assert "no entity 'nobody'" in result.stderr
    assert commit_count(seeded) == before


def test_learning_creates_a_candidate_with_one_evidence_entry(seeded, vmem):
    data = vmem.json("propose", "Healthcare buyers ask for audit logs before security review.",
                     "--from", "tidewell", "-c", "industry:healthcare", "--episode", "ep-tidewell-01",
                     store=seeded)["data"]
    item = data["item"]
    assert data["action"] == "created"
    assert item["status"] == "candidate"
    assert item["canonical"] == "healthcare buyers ask for audit logs before security review"
    assert [(e["entity"], e["writer"], e["episode"]) for e in item["evidence"]] == [
        ("tidewell", "alice@example.com", "ep-tidewell-01")]


def test_same_canonical_statement_adds_evidence_instead_of_a_file(seeded, vmem):
    first = vmem.json("propose", "Healthcare buyers ask for audit logs before security review.",
                      "--from", "tidewell", "-c", "industry:healthcare", store=seeded)["data"]["item"]
    files = git(seeded, "ls-files", "knowledge").split()
    second = vmem.json("propose", "healthcare  buyers ask for AUDIT logs, before security review",
                       "--from", "corvane", "-c", "industry:healthcare", "-c", "stage:security_review",
                       who="Bob <bob@example.com>", store=seeded)["data"]
    assert second["action"] == "reinforced"
    assert second["item"]["id"] == first["id"]
    assert [e["entity"] for e in second["item"]["evidence"]] == ["tidewell", "corvane"]
    assert second["item"]["categories"] == ["industry:healthcare", "stage:security_review"]
    assert git(seeded, "ls-files", "knowledge").split() == files
    assert "Vmem-Action: reinforce" in git(seeded, "log", "-1", "--format=%B")
    # the very same evidence again changes nothing and makes no commit
    before = commit_count(seeded)
    again = vmem.json("propose", "Healthcare buyers ask for audit logs before security review",
                      "--from", "corvane", "-c", "industry:healthcare", who="Bob <bob@example.com>",
                      store=seeded)["data"]
    assert again["action"] == "unchanged" and commit_count(seeded) == before


def test_reinforcement_finds_a_hand_edited_file_whatever_its_quoting(seeded, vmem):
    """The lookup skips files by their bytes first; escapes, quotes and folding must not hide a match."""
    first = vmem.json("propose", "Healthcare buyers ask for audit logs before security review.",
                      "--from", "tidewell", "-c", "industry:healthcare", store=seeded)["data"]["item"]
    path = seeded.root / model.item_path(first["id"])
    text = path.read_text().replace(
        "canonical: healthcare buyers ask for audit logs before security review\n",
        'canonical: "healthcare buyers ask for au\\x64it logs\n  before security review"\n')
    assert "au\\x64it" in text
    commit_file(seeded, str(path.relative_to(seeded.root)), text.encode())
    second = vmem.json("propose", "Healthcare buyers ask for audit logs before security review",
                       "--from", "corvane", "-c", "industry:healthcare", store=seeded)["data"]
    assert second["action"] == "reinforced" and second["item"]["id"] == first["id"]


@pytest.mark.parametrize("text, expected", [
    (b"id: k-1\ncanonical: plain words\ncategories: []\n", "plain words"),
    (b"id: k-1\ncanonical: 'a: quoted #1 it''s'\ncategories: []\n", "a: quoted #1 it's"),
    (b"id: k-1\ncanonical: folded\n  onto two lines\ncategories: []\n", None),
    (b"id: k-1\ncanonical: words  # a comment\n", None),
    (b"id: k-1\ncanonical: \"escaped \\x41\"\n", None),
    (b"{id: k-1, canonical: flow}\ncanonical: decoy\n", None),
    (b"id: k-1\ncanonical: one\ncanonical: two\n", None),
    (b"id: k-1\ncanonical: |\n  block\n", None),
    (b"id: k-1\ncanonical: \xff\n", None),
])
def test_the_canonical_line_is_read_from_bytes_only_when_unambiguous(text, expected):
    from vmem.knowledge.canon import canonical_in

    assert canonical_in(text) == expected


def test_reinforcement_survives_a_stale_or_missing_canonical_cache(seeded, vmem):
    """The per-commit cache is brought forward by tree diffs; deleting or corrupting it costs time, not answers."""
    from vmem.ops.sync import cache_file

    texts = [f"Retail buyers ask for store-level exports before pilot number {n}." for n in range(3)]
    ids = [vmem.json("propose", t, "--from", "tidewell", "-c", "industry:healthcare", store=seeded)["data"]["item"]["id"]
           for t in texts]
    git(seeded, "rm", "-q", model.item_path(ids[0]))
    git(seeded, "commit", "-q", "-m", "hand delete")
    again = vmem.json("propose", texts[0], "--from", "corvane", "-c", "industry:healthcare", store=seeded)["data"]
    assert again["action"] == "created" and again["item"]["id"] != ids[0]  # the deleted file is gone from the cache
    late = vmem.json("propose", texts[2], "--from", "corvane", "-c", "industry:healthcare", store=seeded)["data"]
    assert late["action"] == "reinforced" and late["item"]["id"] == ids[2]  # files added since the cache was made
    import shutil

    from vmem.knowledge.canon import _shard
    from vmem.text import canonicalize

    folder = cache_file(seeded.root).with_suffix(".canon.d")
    damages = [("head", b"\x00garbage"), (_shard(canonicalize(texts[1])), b"\x00garbage"), ("unsure", None),
               (_shard(canonicalize(texts[1])), None), ("head", None), (None, None)]
    for name, damage in damages:
        if name is None:
            shutil.rmtree(folder)
        elif damage is None:
            (folder / name).unlink()
        else:
            (folder / name).write_bytes(damage)
        hit = vmem.json("propose", texts[1], "--from", "corvane", "-c", "industry:healthcare", store=seeded)["data"]
        assert hit["action"] in ("reinforced", "unchanged") and hit["item"]["id"] == ids[1], name


def test_a_knowledge_file_edited_to_another_statement_is_found_under_its_new_one(seeded, vmem):
    """A shard keeps a path under the canonical statement it used to have (a superset): every candidate is parsed
    and compared, so the old statement no longer matches it and the new one does."""
    from vmem.text import canonicalize

    first = "Logistics buyers want a sandbox before the security review."
    item = vmem.json("propose", first, "--from", "tidewell", "-c", "industry:healthcare", store=seeded)["data"]["item"]
    path = model.item_path(item["id"])
    second = "Logistics buyers want a pilot before the security review."
    text = (seeded.root / path).read_text().replace(first, second).replace(canonicalize(first), canonicalize(second))
    commit_file(seeded, path, text.encode())
    old = vmem.json("propose", first, "--from", "corvane", "-c", "industry:healthcare", store=seeded)["data"]
    assert old["action"] == "created" and old["item"]["id"] != item["id"]
    new = vmem.json("propose", second, "--from", "corvane", "-c", "industry:healthcare", store=seeded)["data"]
    assert new["action"] == "reinforced" and new["item"]["id"] == item["id"]


def test_rejected_statement_comes_back_rejected_and_unchanged(seeded, vmem):
    item = vmem.json("propose", "Retail buyers never read onboarding emails.", "--from", "quintara",
                     "-c", "industry:retail", store=seeded)["data"]["item"]
    with seeded.transaction("reject", items=[item["id"]], reason="not true") as tx:
        current = tx.snapshot.item(item["id"])
        model.check_transition(current, "rejected")
        current["status"] = "rejected"
        current["review"] = {"by": "rita@example.com", "at": model.now(), "action": "reject", "reason": "not true"}
        tx.write(current)
    before = commit_count(seeded)
    payload = vmem.json("propose", "retail buyers never read onboarding e-mails", "--from", "pellucid-home",
                        "-c", "industry:retail", code=0, store=seeded)
    assert payload["data"]["action"] == "created"  # e-mails != emails: a different canonical statement
    before = commit_count(seeded)
    result = vmem("propose", "Retail buyers NEVER read onboarding emails", "--from", "pellucid-home",
                  "-c", "industry:retail", "--json", code=1, store=seeded)
    assert '"previously_rejected"' in result.stdout and '"status": "rejected"' in result.stdout
    assert commit_count(seeded) == before
    assert vmem.json("show", item["id"])["data"]["evidence"] == item["evidence"]


def test_usage_mistakes_exit_2(seeded, vmem):
    assert "needs --from" in vmem("propose", "x", "--episode", "ep-1", code=2).stderr
    assert "applies to facts" in vmem("propose", "x", "--from", "tidewell", "-c", "a:b", "--about", "tidewell",
                                      code=2).stderr
    assert "at least one category" in vmem("propose", "x", "--from", "tidewell", code=2).stderr
    assert "invalid entity id" in vmem("propose", "x", "--from", "../etc", "-c", "a:b", code=2).stderr
    assert "statement is empty" in vmem("propose", "   ", code=2).stderr
    assert "unknown class" in vmem("propose", "x", "--class", "gossip", code=2).stderr
    assert "not an e-mail" in vmem("propose", "x", "--as", "bob", code=2).stderr


def test_a_rejected_claim_comes_back_rejected_and_unchanged(seeded, vmem):
    # regression: rejected claims had no memory; the same fact proposed again became a new proposed claim
    import json

    item = vmem.json("propose", "Refunds settle in 3 business days.", store=seeded)["data"]["item"]
    vmem("reject", item["id"], "--reason", "they settle in 5", store=seeded, who="Rita <rita@example.com>")
    before = commit_count(seeded)
    again = vmem("propose", "refunds settle in 3 business days", "--json", code=1, store=seeded)
    data = json.loads(again.stdout)["data"]
    assert data["action"] == "previously_rejected" and data["item"]["id"] == item["id"]
    assert data["item"]["status"] == "rejected" and data["commit"] is None
    assert f"{item['id']} was rejected: they settle in 5" in again.stderr
    assert commit_count(seeded) == before
    human = vmem("propose", "REFUNDS settle in 3 business days!", code=1, store=seeded)  # same canonical statement
    assert "previously rejected (nothing written)" in human.stdout
    # another scope, or another statement, is a new proposal
    scoped = vmem.json("propose", "Refunds settle in 3 business days.", "--about", "tidewell", store=seeded)["data"]
    assert scoped["action"] == "created" and scoped["item"]["id"] != item["id"]
    assert vmem.json("propose", "Refunds settle in 4 business days.", store=seeded)["data"]["action"] == "created"


def test_a_rejected_personal_claim_is_its_owners_memory_only(seeded, vmem):
    """Another person's rejected personal claim neither blocks a proposal nor reveals itself or its reason."""
    alice = "Alice Analyst <alice@example.com>"
    mine = vmem.json("propose", "My dashboards lag a day.", "--personal", store=seeded, who=alice)["data"]["item"]
    vmem("reject", mine["id"], "--reason", "private note: wrong", store=seeded, who="Rita <rita@example.com>")
    bob = vmem("propose", "My dashboards lag a day.", "--json", store=seeded, who="Bob <bob@example.com>")
    assert mine["id"] not in bob.stdout + bob.stderr and "private note" not in bob.stdout + bob.stderr
    import json

    assert json.loads(bob.stdout)["data"]["action"] == "created"
    again = vmem("propose", "My dashboards lag a day.", "--personal", "--json", code=1, store=seeded, who=alice)
    assert json.loads(again.stdout)["data"]["action"] == "previously_rejected"


def test_rejected_claims_are_found_through_hand_edits_and_a_lost_cache(seeded, vmem):
    """Claims are judged from their bytes through a per-commit cache; anything not plainly vmem's layout is parsed."""
    from vmem.ops.sync import cache_file

    ids = [vmem.json("propose", f"Invoices close on day {n} of the month.", store=seeded)["data"]["item"]["id"]
           for n in range(3)]
    vmem("propose", "warm the cache", store=seeded)
    vmem("reject", ids[0], "--reason", "no", store=seeded, who="Rita <rita@example.com>")
    path = model.item_path(ids[1])  # rejected by a hand edit, in a layout the byte test cannot vouch for
    text = (seeded.root / path).read_text().replace("status: proposed\n", "# closed by hand\nstatus: 'rejected'\n")
    commit_file(seeded, path, text.encode())
    for damage in (None, b"\x00garbage", b"missing"):
        canon = cache_file(seeded.root).with_suffix(".rejected")
        if damage == b"missing":
            canon.unlink()
        elif damage:
            canon.write_bytes(damage)
        for n, expected in ((0, "previously_rejected"), (1, "previously_rejected")):
            result = vmem.json("propose", f"invoices close on day {n} of the month", code=1, store=seeded)["data"]
            assert (result["action"], result["item"]["id"]) == (expected, ids[n])
    again = vmem.json("propose", "Invoices close on day 2 of the month", store=seeded)["data"]
    assert (again["action"], again["item"]["id"]) == ("unchanged", ids[2])  # not rejected: the open claim it repeats


@pytest.mark.parametrize("text, skipped", [
    (b"id: c-1\nkind: claim\nstatement: s\nstatus: approved\nscope: org\n", True),
    (b"id: c-1\ncategories:\n- table:orders\nstatus: approved\nsource:\n  type: analyst\nreview: null\n", True),
    (b"id: c-1\nkind: claim\nstatement: s\nstatus: rejected\nscope: org\n", False),
    (b"id: c-1\nstatement: \"a\nstatus: approved\"\nstatus : rejected\n", False),
    (b"id: c-1\nstatement: \"a\nstatus: approved\"\n\tstatus: rejected\n", False),
    (b"id: c-1\nstatement: \"a\nstatus: approved\"\n? status\n: rejected\n", False),
    (b"id: c-1\nkind: claim\nstatus: approved # was rejected\n", False),
    (b"id: c-1\nkind: claim\nstatement: \"a\nstatus: approved\"\nstatus: rejected\n", False),
    (b"id: c-1\nkind: claim\nstatement: \"a\nstatus: approved\"\n\"status\": rejected\n", False),
    (b"id: c-1\nkind: claim\nstatement: \"a\nstatus: approved\"\nstatus: 'rejected'\n", False),
    (b"id: c-1\nkind: claim\n# a comment\nstatus: approved\n", False),
    (b"id: c-1\nkind: claim\nstatus: approved\n  rejected\n", False),
    (b"{id: c-1, status: rejected}\nstatus: approved\n", False),
    (b"id: c-1\nkind: claim\nstatus: 'approved'\n", False),
])
def test_a_claim_is_skipped_by_its_bytes_only_when_plainly_not_rejected(text, skipped):
    from vmem.knowledge.canon import plainly_not_rejected

    assert plainly_not_rejected(text) is skipped
