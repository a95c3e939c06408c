"""The CLI surface: JSON contract, help, completions, start-up cost, python -m, the demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import app_commands, assert_clean


ROOT = Path(__file__).resolve().parents[1]


def test_every_command_has_help(vmem):
    """Every command the app has (read from it, not from a list here), subcommands too: its parent's help lists
    it, and its own help says how to call it and what it does."""
    commands = app_commands()
    assert {"propose", "sync", "entity add"} <= {" ".join(path) for path in commands}  # the walk sees them
    helps = {"": vmem("--help").stdout}
    for path in commands:  # a group before its subcommands: its help is at hand for them
        command = " ".join(path)
        assert path[-1] in helps[" ".join(path[:-1])], f"vmem {' '.join(path[:-1])} --help does not list {command}"
        text = helps[command] = vmem(*path, "--help").stdout
        assert "Usage: vmem " + command in " ".join(text.split())
        assert len(text.split("\n\n")[1].strip()) > 20, f"{command} has no help text"


def test_json_contract_for_read_and_write_commands(store, vmem):
    created = vmem.json("propose", "a fact", store=store)["data"]
    assert set(created) == {"action", "item", "commit", "contradictions", "prior_rejections"} and len(created["commit"]) == 40
    assert created["contradictions"] == []
    assert vmem.json("list")["data"][0]["id"] == created["item"]["id"]
    assert vmem.json("list", "--status", "approved")["data"] == []
    shown = vmem.json("show", created["item"]["id"])["data"]
    assert set(shown["computed"]) == {"effective_confidence", "live", "support_tier", "age_days", "attested_status"}
    assert shown["computed"]["live"] is False and shown["computed"]["effective_confidence"] == 0.5
    superseded = vmem.json("supersede", created["item"]["id"], "a better fact", store=store)["data"]
    assert set(superseded) == {"action", "item", "previous", "commit"}
    blamed = vmem.json("blame", superseded["item"]["id"])["data"]
    assert set(blamed) == {"chain", "events"}
    assert set(blamed["events"][0]) == {"commit", "at", "author", "action", "item", "statement", "reason"}
    assert set(vmem.json("check")["data"]) == {"errors", "warnings"}
    # the global --json works before the command too
    listed = json.loads(vmem("--json", "list").stdout)["data"]
    assert sorted(i["status"] for i in listed) == ["proposed", "superseded"]
    error = vmem.json("show", "c-ffffffffffff", code=1)
    assert set(error) == {"schema_version", "error", "hint"}


def test_list_filters_and_rejects_unknown_values(store, vmem):
    vmem("propose", "a fact", store=store)
    assert "unknown status" in vmem("list", "--status", "alive", code=2).stderr
    assert "unknown kind" in vmem("list", "--kind", "rumour", code=2).stderr
    assert vmem.json("list", "--kind", "knowledge")["data"] == []


def test_terminal_escapes_in_statements_do_not_reach_the_terminal(store, vmem):
    item = vmem.json("propose", "evil \x1b]0;pwned\x07 \x1b[31mred\x1b[0m [bold]markup[/bold]",
                     store=store)["data"]["item"]
    for output in (vmem("show", item["id"]).stdout, vmem("list").stdout):
        assert "\x1b" not in output and "\x07" not in output
        assert "[bold]markup[/bold]" in output or "markup" in output


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_match_the_app(shell):
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    vmem_script = Path(sys.executable).parent / "vmem"
    generated = subprocess.run([str(vmem_script), "--show-completion", shell], env=env,
                               capture_output=True, text=True, check=True).stdout
    committed = (ROOT / "completions" / f"vmem.{shell}").read_text()
    assert generated == committed, f"completions/vmem.{shell} drifted: run scripts/gen_completions.sh"


def test_help_and_start_up_import_no_heavy_modules():
    code = ("import sys, vmem.cli.app; "
            "print(','.join(m for m in ('numpy', 'tantivy', 'model2vec', 'pygit2', 'ruamel.yaml') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""


def test_python_dash_m_is_the_same_cli(store):
    env = {**os.environ, "VMEM_STORE": str(store.root)}
    result = subprocess.run([sys.executable, "-m", "vmem", "list", "--json"], env=env, capture_output=True,
                            text=True)
    assert result.returncode == 0 and json.loads(result.stdout) == {"schema_version": 1, "data": []}
    result = subprocess.run([sys.executable, "-m", "vmem", "show", "nope"], env=env, capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: invalid item id 'nope'")


@pytest.mark.slow
def test_demo_runs_the_lifecycle_on_the_examples(tmp_path, vmem):
    report = vmem.json("demo", str(tmp_path / "demo"))["data"]
    from vmem.store.repo import Store

    store = Store.open(report["store"])
    assert_clean(store)
    assert report["claims"] == 61 and report["commits"] > 90
    assert report["learnings"]["reinforced"] >= 3
    assert report["statuses"]["claim superseded"] == 6
    assert len(report["chain"]) == 2
    assert report["review"]["mandated"] == 6 and report["review"]["verified"] == 8
    assert report["review"]["synced_items"] > 10
    rules = tmp_path / "demo" / "project" / ".claude" / "rules" / "vmem"
    assert sorted(p.name for p in rules.iterdir()) == sorted(report["review"]["synced_files"])
    assert report["knowledge"]["judged_merges"] >= 3 and report["knowledge"]["invalidated"]
    coverage = [(r["coverage"], r["top_scope"]) for r in report["recalls"]]
    assert coverage[0] == ("covered", "org")  # published knowledge, served in every scope
    assert coverage[1][0] == "uncovered" and coverage[2] == ("covered", "entity:larkspur-health")
    assert coverage[3][0] == "uncovered"
    assert vmem.json("check", "--store", str(store.root))["data"]["errors"] == []


def test_piped_output_is_one_unwrapped_record_per_line_and_counts_agree_in_number(tmp_path):
    """`vmem list | grep` sees whole statements (no 80-column wrap, one tab-separated record a line); a count of
    one is singular ("1 alias", "1 trusted item")."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k not in ("VMEM_WIDTH", "COLUMNS")}
    env["VMEM_STORE"] = str(tmp_path / "s")
    vmem_bin = str(Path(sys.executable).with_name("vmem"))

    def run(*args):
        return subprocess.run([vmem_bin, *args], capture_output=True, text=True, env=env, check=True)

    run("init", str(tmp_path / "s"))
    long = ("Refunds issued after the monthly close are booked in the following period and never restated, so "
            "a refund on the 3rd reduces next month's net revenue, not the month of the original order.")
    item = json.loads(run("propose", long, "--json").stdout)["data"]["item"]["id"]
    lines = run("list").stdout.splitlines()
    assert f"{item}\tproposed\torg\t{long}" in lines
    added = run("entity", "add", "acme", "--name", "Acme Health", "--alias", "Acme").stdout
    assert "1 alias, 0 domains, 0 people, 0 restricted values" in added


def test_every_count_is_said_through_one_helper():
    """Plurals right everywhere ("1 alias", "2 aliases", "0 entries") because there is one way to say a count:
    vmem.output.counted. A hand-made plural in the source is refused by this test."""
    import re
    from pathlib import Path

    from vmem.output import counted

    assert [counted(1, "alias"), counted(2, "alias"), counted(0, "entry"), counted(2, "day"), counted(3, "match"),
            counted(1, "trusted item"), counted(2, "person", "people")] == [
        "1 alias", "2 aliases", "0 entries", "2 days", "3 matches", "1 trusted item", "2 people"]
    hand_made = re.compile(r"""\{'s' \* \(|\{'(?:s|y|ies|es)' if [^}]*[!=]= 1| (?:item|file|commit|claim)\(s\)""")
    src = Path(__file__).resolve().parents[1] / "src" / "vmem"
    found = [f"{path.relative_to(src)}:{n}" for path in src.rglob("*.py")
             for n, line in enumerate(path.read_text().splitlines(), 1) if hand_made.search(line)]
    assert found == [], found
