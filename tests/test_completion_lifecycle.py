"""Issue 31: completion offers only what the command then accepts: ids in a status the command can move, and
`review --action` values `--yes` takes. Through the committed bash completion and the installed console script."""

from __future__ import annotations

from test_newcomer import _complete_in_bash, twin_ids  # noqa: F401 - twin_ids is a fixture


def test_ids_are_offered_only_in_a_status_the_command_accepts(vmem, store, twin_ids):  # noqa: F811
    vmem("propose", "Refunds lag a day.", store=store)  # c-abcd11111111: proposed
    vmem("propose", "Demos run long.", store=store)  # c-abcd22222222: rejected below
    vmem("reject", "c-abcd22222222", "--reason", "not true", store=store)
    assert _complete_in_bash(["vmem", "approve", "c-abcd"], store.root) == ["c-abcd11111111"]
    assert _complete_in_bash(["vmem", "mandate", "c-abcd"], store.root) == ["c-abcd11111111"]
    assert _complete_in_bash(["vmem", "revoke", "c-abcd"], store.root) == []  # nothing approved yet
    assert _complete_in_bash(["vmem", "show", "c-abcd"], store.root) == ["c-abcd11111111", "c-abcd22222222"]
    vmem("approve", "c-abcd11111111", store=store)
    assert _complete_in_bash(["vmem", "revoke", "c-abcd"], store.root) == ["c-abcd11111111"]
    assert _complete_in_bash(["vmem", "approve", "c-abcd"], store.root) == []  # approved and rejected
    assert _complete_in_bash(["vmem", "supersede", "c-abcd"], store.root) == ["c-abcd11111111"]
    assert _complete_in_bash(["vmem", "reject", "c-abcd"], store.root) == []


def test_review_actions_are_the_ones_yes_takes(store):
    assert _complete_in_bash(["vmem", "review", "--yes", "--action", ""], store.root) == ["approve", "reject"]
