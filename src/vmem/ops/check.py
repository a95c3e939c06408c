"""Validate the whole store: schemas, ids vs paths, supersession links, policy, stray files."""

from __future__ import annotations

from dataclasses import dataclass, field

from vmem import model
from vmem.errors import SchemaError
from vmem.policy import POLICY_FILE
from vmem.store.repo import Store
from vmem.output import counted


@dataclass
class Report:
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)

    def error(self, path: str, message: str) -> None:
        self.errors.append({"path": path, "message": message})

    def warn(self, path: str, message: str) -> None:
        self.warnings.append({"path": path, "message": message})


def check(store: Store) -> Report:
    report = Report()
    snapshot = store.head()
    try:
        policy = store.policy
    except SchemaError as exc:
        report.error(POLICY_FILE, exc.detail if not exc.line else f"line {exc.line}: {exc.detail}")
        policy = None
    if policy is not None and not policy["reviewers"]:
        report.warn(POLICY_FILE, "reviewers: is empty, so anyone may approve and publish; list your reviewers")

    items: dict[str, tuple[str, dict]] = {}
    for kind in ("claim", "knowledge"):
        top = model.ITEM_DIRS[kind]
        for loaded in snapshot.files(kind):
            _check_conflict_notes(snapshot, loaded.path, loaded.oid, report)
            if loaded.error is not None:
                report.error(loaded.path, _where(loaded.error))
                continue
            item = loaded.item
            expected = model.item_path(item["id"]) if model.ITEM_ID.match(item["id"]) else None
            if model.kind_of(item["id"]) != kind:
                report.error(loaded.path, f"a {model.kind_of(item['id'])} id under {top}/")
            elif loaded.path != expected:
                report.error(loaded.path, f"id {item['id']} belongs at {expected}")
            elif item["id"] in items:
                report.error(loaded.path, f"duplicate id {item['id']}")
            items[item["id"]] = (loaded.path, item)

    for item_id, (path, item) in items.items():
        for link, back in (("supersedes", "superseded_by"), ("superseded_by", "supersedes")):
            target = item.get(link)
            if not target:
                continue
            if target not in items:
                report.error(path, f"{link}: {target} does not exist (dangling link)")
            elif items[target][1].get(back) != item_id and not (link == "supersedes" and _never_took_effect(item)):
                report.error(path, f"{link}: {target}, but {target} has {back}: {items[target][1].get(back)} "
                                   "(one-sided link)")
        if item["status"] == "superseded" and not item.get("superseded_by"):
            report.error(path, "status superseded without superseded_by")
        if item["kind"] == "knowledge" and item["status"] == "merged" and item.get("merged_into") not in items:
            report.error(path, f"merged_into: {item.get('merged_into')} does not exist")

    entities = {}
    for loaded in snapshot.files("entity"):
        if loaded.error is not None:
            report.error(loaded.path, _where(loaded.error))
        elif loaded.path != model.entity_path(loaded.item["id"]) if model.NAME_ID.match(loaded.item["id"]) else True:
            report.error(loaded.path, f"entity id {loaded.item['id']} does not match its file name")
        else:
            entities[loaded.item["id"]] = loaded.item
    for loaded in snapshot.files("episode"):
        if loaded.error is not None:
            report.error(loaded.path, _where(loaded.error))
            continue
        episode = loaded.item
        if loaded.path != f"episodes/{episode['entity']}/{episode['id']}.yaml":
            report.error(loaded.path, f"episode {episode['id']} of {episode['entity']} is in the wrong place")
        elif episode["entity"] not in entities:
            report.error(loaded.path, f"entity {episode['entity']} does not exist")
    for item_id, (path, item) in items.items():
        scope = item.get("scope") or ""
        if scope.startswith("entity:") and scope[7:] not in entities:
            report.error(path, f"scope {scope}: no such entity")
        for evidence in item.get("evidence") or []:
            if evidence["entity"] not in entities:
                report.warn(path, f"evidence from unknown entity {evidence['entity']}")
    known = {e["path"] for e in report.errors}
    for path, problem in store.attestation().lexicon_problems():
        if path not in known:
            report.error(path, f"lexicon incomplete: {problem}; until it is fixed every learning is quarantined, "
                               "publish is refused and knowledge published since is not served")
    _check_knowledge(snapshot, items, report)
    from vmem.store import mergedriver

    if not mergedriver.is_registered(store.repo):
        report.warn(".git/config", "the vmem merge driver is not configured, so git would line-merge item files; "
                                   "run: vmem setup")
    _check_work_tree(store, report)
    return report


def _check_conflict_notes(snapshot, path: str, oid: str, report: Report) -> None:
    """The merge driver heads an unresolved conflict with comment lines; parsing drops comments, so look at the
    committed bytes: a file that still has them was committed as is, our side kept and theirs lost."""
    from vmem.ops.merge import CONFLICT_NOTE
    from vmem.store import blobs

    data = blobs.read(snapshot, oid)
    note = CONFLICT_NOTE.encode()
    if not data.startswith(note) and b"\n" + note not in data:
        return
    lines = data.decode("utf-8", "replace").splitlines()
    conflicts = [line[len(CONFLICT_NOTE):] for line in lines if line.startswith(CONFLICT_NOTE)]
    report.error(path, f"unresolved merge conflict committed as is ({'; '.join(conflicts)}): our side was kept; "
                       f"resolve it: set the fields, delete the '{CONFLICT_NOTE.strip()}' lines and commit")


def _never_took_effect(item: dict) -> bool:
    """A revision proposed with --supersedes that was never approved: pending, rejected, or expired or revised
    before approval. Only approval retires the old claim, so its link points one way by design."""
    if item["kind"] != "claim":
        return False
    if item["status"] in ("proposed", "rejected"):
        return True
    return item["status"] in ("expired", "superseded") and (item.get("review") or {}).get("action") not in (
        "approve", "mandate", "supersede")


def _check_knowledge(snapshot, items: dict[str, tuple[str, dict]], report: Report) -> None:
    """Gate records must agree with statuses, and published knowledge must still pass today's lexicon."""
    from vmem.gates.publish import deid, load_inputs

    inputs = None
    for path, item in items.values():
        if item["kind"] != "knowledge":
            continue
        gate = item.get("gate")
        if item["status"] in ("eligible", "published") and not (gate and gate["passed"]):
            report.error(path, f"status {item['status']} but its gate record did not pass; run vmem consolidate")
        if item["status"] == "quarantined" and gate and gate["passed"]:
            report.error(path, "status quarantined but its gate record passed")
        if item["status"] == "published":
            inputs = inputs or load_inputs(snapshot)
            if inputs.problems:
                continue  # reported once as "lexicon incomplete"; nothing can be re-checked until it is fixed
            result = deid(item, inputs)
            if not result.passed:
                report.error(path, f"published, but under today's lexicon it {result.reason}; "
                                   "retract it (vmem forget) or supersede it")


def _where(error: SchemaError) -> str:
    detail = error.detail if not error.line else f"line {error.line}: {error.detail}"
    return f"{detail} ({error.hint})" if error.hint else detail


def _check_work_tree(store: Store, report: Report) -> None:
    """vmem reads the committed state: say so when hand edits are not committed yet."""
    from vmem.store import stage, worktree

    if stage.waiting(store.git_dir) and not stage.flush(store.git_dir, store.root):
        report.warn("index", "files vmem committed are not staged in git's index yet (git holds index.lock, or "
                             "git failed); rerun vmem check when git is done")
    for path in worktree.uncommitted(store):
        report.warn(path, "not committed: vmem reads the committed state; commit it (then run vmem check)")


def audit(store: Store, governance: bool = False) -> Report:
    """`vmem check`: every file, and trust derived from history — in full with GOVERNANCE, else one line that
    counts the problems (a store whose history serves other than its files say is never "valid")."""
    report = check(store)
    found = Report()
    check_governance(store, found)
    if governance:
        report.errors += found.errors
    elif found.errors:
        first = found.errors[0]
        count = len(found.errors)
        report.error("governance", f"{counted(count, 'governance problem')} (first: {first['path']}: "
                                   f"{first['message']}); the full report: vmem check --governance")
    return report


MACHINERY = (".gitattributes", ".gitlab-ci.yml", ".github/workflows/vmem.yml", ".vmem.yaml")


def _machinery(store: Store, state, report: Report) -> None:
    """The store's own machinery — its CI, the merge settings in .gitattributes, a committed .vmem.yaml — is
    policy (SPEC 12): its last change must be a reviewer's commit, so a pull request that turns the check off, or
    makes git merge items line by line, fails the check of main."""
    from vmem.store.attest import is_reviewer

    snapshot = store.head()
    paths = list(MACHINERY) + [p for p, _ in snapshot.walk(".github/workflows") if p not in MACHINERY]
    seen: set[str] = set()
    for commit, path, _ in store.history(paths):
        if path in seen:
            continue
        seen.add(path)
        if commit.parents and not is_reviewer(state.policy, commit.committer.email):
            report.error(path, f"changed by commit {str(commit.id)[:10]} ({commit.committer.email}), not a "
                               "reviewer: the store's CI and merge settings change only through a reviewer's "
                               f"commit; revert it (git revert {str(commit.id)[:10]}) or have a reviewer commit it")
        if len(seen) == len(paths):
            break


def check_governance(store: Store, report: Report) -> int:
    """Trust derived from history (SPEC 12): every governance commit by a reviewer of the policy in force at its
    parent (signed, with require_signed); every item's status in its file attested by history; vmem.yaml as a
    reviewer last set it. Returns how many problems it found. Local refusal is a courtesy; this audit is what a
    store's CI enforces, and what sync, recall and show already apply."""
    state = store.attestation()
    before = len(report.errors)
    for commit, action, who, why in state.refused:
        report.error(f"commit {commit[:10]}", f"{action} committed by {who}, {why} (reviewers: of vmem.yaml as it "
                                              "was); it grants nothing")
    findings = state.findings()
    for path, row in findings:
        if not row["unattested"]:
            continue
        (status, commit, *why), attested = row["unattested"], row["status"]
        if why == ["edited"]:
            report.error(path, f"statement changed by commit {commit[:10]} after its support was counted: a "
                               "candidate again, not publishable; count its support anew: vmem consolidate")
            continue
        report.error(path, f"status {status} is not attested by history (set by commit {commit[:10]} without a "
                           f"reviewer's vmem commit); served as {attested or 'nothing'}. Restore it: git revert "
                           f"{commit[:10]}, or set status: {attested or 'proposed'} and commit")
    for path, commit in [(path, row["forged"]) for path, row in findings if row["forged"]]:
        report.error(path, f"evidence added by commit {commit[:10]} is not vouched for by history (not a proposal "
                           "by its writer, nor a consolidation); it counts toward no gate. Remove it, or have "
                           "that analyst propose it: vmem propose TEXT --from ENTITY")
    for path, commit in [(path, row["altered"]) for path, row in findings if row["altered"]]:
        report.error(path, f"edited by commit {commit[:10]} after it was reviewed, without a reviewer: agents are "
                           "still served the reviewed version. Revert the edit, then propose it as a revision "
                           "(vmem propose TEXT --supersedes ID)")
    tree = store.head().tree
    for path, entries in sorted(state.kept.items()):
        if tree is not None and path in tree:
            continue  # replaced, not removed: the lexicon reads both versions, nothing is lost
        blob, commit, who = entries[-1]
        report.error(path, f"removed by commit {commit[:10]} ({who}, not a reviewer): the de-id gate still screens "
                           "for its names; restore it (git revert), or have a reviewer remove it: vmem forget "
                           "--entity ID")
    for path, (commit, who) in sorted(state.dropped.items()):
        report.error(path, f"removed by commit {commit[:10]} ({who}) after a reviewer approved it, without a reviewer: "
                           f"agents are still served the reviewed version. Restore the file (git revert "
                           f"{commit[:10]}); to retire it, a reviewer revokes or supersedes it (vmem revoke ID)")
    _machinery(store, state, report)
    if state.policy_unattested:
        blob, commit, who = state.policy_unattested
        if (store.head().blob(POLICY_FILE) or (None,))[0] == blob:
            report.error(POLICY_FILE, f"changed by commit {commit[:10]} ({who}) without a reviewer's own commit (not "
                                      "a reviewer, or a merge, which never vouches for a vmem.yaml of its own): "
                                      "the reviewers and rules in force are still those a reviewer last committed; "
                                      "a reviewer must commit the change")
    return len(report.errors) - before
