"""A newcomer's first hour: short ids, customers without hand-written YAML, hints that copy-paste."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import app_commands

from vmem import model

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def twin_ids(monkeypatch):
    """Claims proposed from here on get ids that share their first four hex digits."""
    ids = iter(["c-abcd11111111", "c-abcd22222222", "c-0123456789ab"] + [model.new_id("claim") for _ in range(20)])
    real = model.new_id
    monkeypatch.setattr(model, "new_id", lambda kind: next(ids) if kind == "claim" else real(kind))


def test_a_unique_prefix_stands_for_the_whole_id(vmem, store, twin_ids):
    for text in ("Refunds lag a day.", "Demos run long.", "Exports spike before churn."):
        vmem("propose", text, store=store)
    shown = vmem.json("show", "c-abcd1")["data"]
    assert shown["id"] == "c-abcd11111111"
    assert vmem.json("show", "c-0123")["data"]["statement"] == "Exports spike before churn."
    assert vmem.json("blame", "c-abcd2")["data"]["chain"] == ["c-abcd22222222"]
    revised = vmem.json("propose", "Refunds lag two days.", "--supersedes", "c-abcd1", store=store)["data"]
    assert revised["item"]["supersedes"] == "c-abcd11111111"


def test_an_ambiguous_prefix_lists_the_candidates_and_exits_2(vmem, store, twin_ids):
    vmem("propose", "Refunds lag a day.", store=store)
    vmem("propose", "Demos run long.", store=store)
    result = vmem("show", "c-abcd", code=2)
    assert "c-abcd is ambiguous: c-abcd11111111, c-abcd22222222" in result.stderr
    assert "type more of the id" in result.stderr


@pytest.mark.parametrize(("text", "code", "message"), [
    ("c-ffff", 1, "no item id starts with c-ffff"),
    ("k-abcd", 1, "no item id starts with k-abcd"),
    ("c-abc", 2, "invalid item id 'c-abc'"),   # fewer than 4 hex digits, as git
    ("c-ABCD", 2, "invalid item id"),
    ("../c-abcd", 2, "invalid item id"),
])
def test_a_prefix_that_matches_nothing_or_is_too_short_says_so(vmem, store, twin_ids, text, code, message):
    vmem("propose", "Refunds lag a day.", store=store)
    result = vmem("show", text, code=code)
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2


def test_a_customer_and_an_episode_without_writing_yaml(vmem, store):
    added = vmem.json("entity", "add", "acme-health", "--name", "Acme Health", "--alias", "Acme", "--domain",
                      "Acme-Health.com", "--person", "Jane Doe <jane@acme-health.com>", "-c", "industry:healthcare",
                      "--restricted", "$1.2M", store=store)["data"]
    assert added["path"] == "entities/acme-health.yaml"
    assert added["entity"]["people"] == ["Jane Doe"] and added["entity"]["domains"] == ["acme-health.com"]
    episode = vmem.json("episode", "add", "acme-health", "--kind", "call", "--id", "ep-kickoff", "--quote",
                        "We cannot sign until legal redlines the DPA.", store=store)["data"]
    assert episode["path"] == "episodes/acme-health/ep-kickoff.yaml"
    listed = vmem.json("entity", "list")["data"]
    assert listed == [{"id": "acme-health", "name": "Acme Health", "categories": ["industry:healthcare"],
                       "aliases": 1, "people": 1, "episodes": 1, "counted": True}]  # added by a reviewer
    shown = vmem.json("entity", "show", "acme-health")["data"]
    assert shown["episodes"][0]["quotes"] == ["We cannot sign until legal redlines the DPA."]
    # the lexicon holds the new customer at once: the next learning that names it is quarantined
    leak = vmem.json("propose", "Acme wants the DPA redlined first.", "--from", "acme-health", "-c",
                     "industry:healthcare", "--episode", "ep-kickoff", store=store)["data"]
    assert leak["item"]["status"] == "quarantined"
    quote = vmem.json("propose", "Buyers cannot sign until legal redlines the DPA.", "--from", "acme-health", "-c",
                      "industry:healthcare", store=store)["data"]
    assert quote["item"]["status"] == "quarantined"


@pytest.mark.parametrize(("args", "code", "message"), [
    (["entity", "add", "Acme Health", "--name", "Acme"], 2, "invalid entity id 'Acme Health'"),
    (["entity", "add", "acme", "--name", " "], 2, "a customer needs a name"),
    (["entity", "add", "acme", "--name", "Acme", "-c", "healthcare"], 2, "invalid category 'healthcare'"),
    (["entity", "add", "acme", "--name", "Acme", "--domain", "https://acme.com/x"], 2, "is not a domain name"),
    (["entity", "add", "acme", "--name", "Acme", "--person", "<x@y.z>"], 2, "needs a name"),
    (["episode", "add", "nobody", "--quote", "hi"], 1, "no entity 'nobody'"),
    (["episode", "add", "acme", "--kind", "meeting"], 2, "unknown episode kind 'meeting'"),
    (["entity", "show", "../etc"], 2, "invalid entity id"),
])
def test_bad_customer_input_is_refused_and_writes_nothing(vmem, store, args, code, message):
    before = store.repo.head.target
    result = vmem(*args, code=code, store=store)
    assert message in result.stderr
    assert store.repo.head.target == before


def test_an_existing_customer_is_not_overwritten(vmem, store):
    vmem("entity", "add", "acme", "--name", "Acme Health", "--alias", "Acme", store=store)
    result = vmem("entity", "add", "acme", "--name", "Someone Else", code=2, store=store)
    assert "customer acme already exists (entities/acme.yaml)" in result.stderr
    assert vmem.json("entity", "show", "acme")["data"]["aliases"] == ["Acme"]


def test_an_uncommitted_entity_file_is_named_as_such(vmem, store):
    (store.root / "entities").mkdir(exist_ok=True)
    (store.root / "entities" / "zed.yaml").write_text("id: zed\nname: Zed Corp\n")
    result = vmem("propose", "Hospitals want a DPA first.", "--from", "zed", "-c", "industry:healthcare", code=1)
    assert "entities/zed.yaml is in the work tree but not committed" in result.stderr
    assert f"git -C {store.root} add entities/zed.yaml && git -C {store.root} commit" in result.stderr
    result = vmem("entity", "add", "zed", "--name", "Zed Corp", code=2)
    assert "exists in the work tree but is not committed" in result.stderr


def test_init_without_a_git_identity_leaves_nothing_and_says_how(vmem, tmp_path, monkeypatch):
    (tmp_path / "home" / ".gitconfig").unlink()
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    result = vmem("init", str(tmp_path / "new" / "store"), code=1)
    assert not (tmp_path / "new").exists()
    assert "git config --global user.email you@example.com, then run vmem init again" in result.stderr
    (tmp_path / "empty").mkdir()
    vmem("init", str(tmp_path / "empty"), code=1)
    assert list((tmp_path / "empty").iterdir()) == []


def test_hints_and_commands_are_never_wrapped(vmem, store, monkeypatch):
    """At 60 columns every command a user may copy stays on one line (the terminal wraps it, not vmem)."""
    monkeypatch.setenv("VMEM_WIDTH", "60")
    result = vmem("show", "c-0123456789ab", code=1)
    lines = result.stderr.splitlines()
    assert any(line.strip() == "list items with: vmem list" for line in lines)
    result = vmem("propose", "Hospitals want a DPA first.", "--from", "nobody", "-c", "industry:healthcare", code=1)
    hint = next(line for line in result.stderr.splitlines() if "vmem entity add nobody" in line)
    assert "--name 'Full Name'" in hint and "see: vmem entity list" in hint  # one line, longer than 60 columns
    assert len(hint) > 60  # the demo's own hints: test_after_the_demo_a_proposal_in_its_store_is_yours


def _complete_in_bash(words: list[str], store_root) -> list[str]:
    """What bash offers after WORDS, through the committed completions/vmem.bash and the installed vmem."""
    vmem_script = Path(sys.executable).parent / "vmem"
    script = ROOT / "completions" / "vmem.bash"
    line = " ".join(shlex.quote(w) for w in words)
    program = (f"source {shlex.quote(str(script))}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
               f"_vmem_completion {shlex.quote(str(vmem_script))}; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    env = {**os.environ, "VMEM_STORE": str(store_root)}
    done = subprocess.run(["bash", "-c", program], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return [line for line in done.stdout.splitlines() if line]


def test_bash_completes_values_from_the_store(vmem, store, twin_ids):
    vmem("entity", "add", "acme-health", "--name", "Acme Health", "-c", "industry:healthcare", store=store)
    vmem("episode", "add", "acme-health", "--id", "ep-kickoff", "--quote", "Hello.", store=store)
    vmem("propose", "Refunds lag a day.", store=store)
    vmem("propose", "Demos run long.", store=store)
    assert _complete_in_bash(["vmem", "show", "c-abcd"], store.root) == ["c-abcd11111111", "c-abcd22222222"]
    assert _complete_in_bash(["vmem", "approve", "c-abcd2"], store.root) == ["c-abcd22222222"]
    assert _complete_in_bash(["vmem", "publish", "c-"], store.root) == []  # publish takes knowledge only
    assert _complete_in_bash(["vmem", "list", "--status", "pro"], store.root) == ["proposed"]
    assert _complete_in_bash(["vmem", "list", "--kind", "knowledge", "--status", "p"], store.root) == ["published"]
    assert _complete_in_bash(["vmem", "propose", "x", "--class", "pr"], store.root) == ["procedural", "preference"]
    assert _complete_in_bash(["vmem", "recall", "q", "--scope", ""], store.root) == ["org", "entity:acme-health"]
    assert _complete_in_bash(["vmem", "propose", "x", "--from", "ac"], store.root) == ["acme-health"]
    assert _complete_in_bash(["vmem", "propose", "x", "--from", "acme-health", "--episode", ""],
                             store.root) == ["ep-kickoff"]
    assert _complete_in_bash(["vmem", "propose", "x", "-c", "ind"], store.root) == ["industry:healthcare"]
    assert _complete_in_bash(["vmem", "verify", "c-abcd1", "--kind", ""], store.root) == ["confirmation",
                                                                                        "correction"]


def test_completion_outside_a_store_offers_static_values_and_prints_no_error(tmp_path):
    assert _complete_in_bash(["vmem", "show", "c-"], tmp_path / "nowhere") == []
    assert _complete_in_bash(["vmem", "episode", "add", "x", "--kind", "c"], tmp_path / "nowhere") == ["call"]


# -- the README's tour, run as written --------------------------------------------------------------------------

_TOUR = re.compile(r"<!-- tour:start -->\s*```console\n(.*?)```\s*<!-- tour:end -->", re.DOTALL)
_ID = re.compile(r"\b[ck]-[0-9a-f]{12}\b")
_ID_OR_PREFIX = re.compile(r"\b[ck]-[0-9a-f]{4,12}\b")


def tour_steps(readme: str) -> list[tuple[str, str]]:
    """(command, output shown) for each `$ ` line of the README's tour; `\\` continues a command."""
    found = _TOUR.search(readme)
    assert found, "README.md has no <!-- tour:start --> console block"
    steps: list[list] = []
    continued = False
    for line in found.group(1).splitlines():
        if line.startswith("$ "):
            steps.append([line[2:], []])
            continued = line.endswith("\\")
        elif continued:
            steps[-1][0] += "\n" + line
            continued = line.endswith("\\")
        elif steps:
            steps[-1][1].append(line)
    return [(command, "\n".join(out)) for command, out in steps]


def run_tour(readme: str, workdir: Path, env: dict) -> list[tuple[str, str]]:
    """Run every step in WORKDIR; ids the README shows stand for the ids this run makes (matched in order of
    appearance in each step's output), and a prefix of a shown id for the same prefix of the real one."""
    mapping: dict[str, str] = {}
    cwd, ran = workdir, []
    for command, shown in tour_steps(readme):
        def real(match: re.Match) -> str:
            text = match.group()
            keys = [k for k in mapping if k.startswith(text)]
            assert len(keys) == 1, f"the tour uses {text}, which no earlier output shows"
            return mapping[keys[0]][:len(text)]

        actual = _ID_OR_PREFIX.sub(real, command)
        go = None
        if " && cd " in actual:
            actual, go = actual.split(" && cd ")
        done = subprocess.run(["bash", "-c", actual], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        output = done.stdout + done.stderr
        assert done.returncode == 0, (command, output)
        if go:
            cwd = cwd / go.strip()
        shown_ids = list(dict.fromkeys(_ID.findall(shown)))
        real_ids = list(dict.fromkeys(_ID.findall(output)))
        assert len(real_ids) >= len(shown_ids), (command, output)
        for old, new in zip(shown_ids, real_ids):
            mapping.setdefault(old, new)
        ran.append((actual, output))
    return ran


def test_the_readme_tour_runs_as_written(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("VMEM_STORE", None)
    ran = run_tour(readme, tmp_path, env)
    commands = [command for command, _ in ran]
    assert any(c.startswith("vmem entity add") for c in commands)
    assert "quarantined" in ran[-1][1]  # the learning that names the customer just added
    assert "supersedes" in ran[3][1] and "chain:" in ran[4][1]


def test_the_cli_reference_matches_the_app():
    generated = subprocess.run([sys.executable, "-m", "vmem.cli.reference"], capture_output=True, text=True,
                               check=True).stdout
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert generated == committed, "docs/cli.md drifted from the app: python -m vmem.cli.reference > docs/cli.md"
    for path in app_commands():  # every command of the app has its section (its commands read from the app)
        assert f"## `vmem {' '.join(path)}`" in committed


def test_the_store_readme_documents_a_valid_entity_and_episode():
    from vmem.store import codec

    text = (ROOT / "store_template" / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# entities/acme.yaml\n.*?)```", text, re.DOTALL).group(1)
    entity_text, episode_text = block.split("# episodes/acme/ep-8f1c.yaml\n")
    entity = model.validate("entity", codec.load(entity_text.encode(), "entities/acme.yaml"), "entities/acme.yaml")
    assert entity["restricted"] == ["$1.2M", "2026-03-14"]
    episode = model.validate("episode", codec.load(episode_text.encode(), "x.yaml"), "x.yaml")
    assert episode["entity"] == "acme" and episode["kind"] == "call"


def test_the_fast_completion_tables_match_the_commands():
    """complete_fast answers bash without typer from its own tables: they must say what the app says."""
    import typer.main

    from vmem.cli import complete_fast, complete_values
    from vmem.cli.app import app
    from vmem.targets import NAMES

    def walk(command, path):
        for name, sub in (getattr(command, "commands", None) or {}).items():
            yield from walk(sub, f"{path} {name}".strip())
        yield path, command

    seen_positional = set()
    for path, command in walk(typer.main.get_command(app), ""):
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        if path in complete_fast.POSITIONAL:
            assert arguments and arguments[0].name == complete_fast.POSITIONAL[path], path
            seen_positional.add(path)
        elif arguments and complete_values.lookup(path, arguments[0].name) and path:
            raise AssertionError(f"vmem {path} completes its {arguments[0].name}: add it to POSITIONAL")
        for param in command.params:
            for opt in param.opts:
                if opt in complete_fast.OPTIONS:
                    assert complete_fast.OPTIONS[opt] == param.name, (path, opt)
                    assert complete_values.lookup(path, param.name), (path, opt)
    assert seen_positional == set(complete_fast.POSITIONAL)
    assert complete_values.TARGETS == tuple(NAMES)


# -- the typer-free propose path (issue 16: the interpreter and import cost out of the write path) ---------------

@pytest.mark.parametrize("name", ["propose", "supersede"])
def test_the_fast_parsers_take_exactly_the_commands_options_and_arguments(name):
    import typer.main

    from vmem.cli.app import app
    from vmem.cli.fast import spec_of

    spec = spec_of(name, name)  # derived from the typer command: this holds the derivation, not a hand copy
    command = typer.main.get_command(app).commands[name]
    typer_opts = {opt for param in command.params if param.name != "help" for opt in param.opts
                  if opt.startswith("-")}
    assert set(spec.options) == typer_opts
    positional = [param.name for param in command.params if not any(o.startswith("-") for o in param.opts)]
    assert positional == spec.positionals


_VARIABLE = re.compile(r"\b[ck]-[0-9a-f]{12}\b|\b[0-9a-f]{10,40}\b|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.mark.parametrize("args", [
    ["Refunds settle in 3 business days."],
    ["Refunds settle in 3 business days.", "--json"],
    ["Tidewell asks for audit logs.", "--from", "tidewell", "-c", "industry:healthcare"],
    ["Buyers ask for audit logs early.", "--from", "tidewell", "-c", "industry:healthcare", "--json"],
    ["x y z", "--class", "nope"],
    ["x y z", "--episode", "ep-1"],
    ["Learnings take categories.", "--from", "nobody", "-c", "industry:x"],
])
def test_fast_and_typer_propose_print_the_same(tmp_path, monkeypatch, args):
    from typer.testing import CliRunner

    from conftest import ALICE, REVIEWER
    from vmem.cli.app import app
    from vmem.cli.fast import read, spec_of
    from vmem.ops.demo import seed_store

    assert read(args, spec_of("propose", "propose")) is not None  # the fast face reads it (else typer answered both)
    stores = [seed_store(tmp_path / name, ALICE, [REVIEWER[1]]) for name in ("fast", "typer")]
    vmem_script = Path(sys.executable).parent / "vmem"
    fast = subprocess.run([str(vmem_script), "--store", str(stores[0].root), "propose", *args], capture_output=True,
                          text=True, env={**os.environ, "VMEM_WIDTH": "200"})
    monkeypatch.setenv("VMEM_WIDTH", "200")
    slow = CliRunner().invoke(app, ["--store", str(stores[1].root), "propose", *args], catch_exceptions=False)
    assert fast.returncode == slow.exit_code
    assert _VARIABLE.sub("X", fast.stdout) == _VARIABLE.sub("X", slow.stdout)
    assert _VARIABLE.sub("X", fast.stderr) == _VARIABLE.sub("X", slow.stderr)



@pytest.mark.parametrize("args", [
    ["c-100000000001", "Refunds settle in 5 business days.", "-r", "the PSP changed"],
    ["c-100000000001", "Refunds settle in 5 business days.", "--json"],
    ["c-1000", "Refunds settle in 4 business days.", "--title", "Refund timing"],
    ["c-ffffffffffff", "no such item"],
    ["c-100000000001", "as someone else", "--as", "Bob <bob@example.com>"],
    ["k-100000000001", "not a claim"],
])
def test_fast_and_typer_supersede_print_the_same(tmp_path, monkeypatch, args):
    from typer.testing import CliRunner

    from conftest import ALICE, REVIEWER
    from vmem.cli.app import app
    from vmem import model
    from vmem.cli.fast import read, spec_of
    from vmem.ops.demo import seed_store

    assert read(args, spec_of("supersede", "supersede")) is not None  # the fast face reads it (else typer answered both)
    stores = [seed_store(tmp_path / name, ALICE, [REVIEWER[1]]) for name in ("fast", "typer")]
    for store in stores:
        with store.transaction("propose", summary="fixture") as tx:
            item = model.validate("claim", {
                "id": "c-100000000001", "kind": "claim", "statement": "Refunds settle in 3 business days.",
                "scope": "org", "class": "factual", "status": "proposed", "audience": "all", "personal": False,
                "source": {"type": "analyst", "user": ALICE[1], "episode": None}, "confidence": 0.5,
                "created_at": "2026-11-01T00:00:00Z", "valid_from": "2026-11-01T00:00:00Z"}, "fixture")
            tx.message.items = [item["id"]]
            tx.write(item)
    vmem_script = Path(sys.executable).parent / "vmem"
    fast = subprocess.run([str(vmem_script), "--store", str(stores[0].root), "supersede", *args],
                          capture_output=True, text=True, env={**os.environ, "VMEM_WIDTH": "200"})
    monkeypatch.setenv("VMEM_WIDTH", "200")
    slow = CliRunner().invoke(app, ["--store", str(stores[1].root), "supersede", *args], catch_exceptions=False)
    assert fast.returncode == slow.exit_code
    assert _VARIABLE.sub("X", fast.stdout) == _VARIABLE.sub("X", slow.stdout)
    assert _VARIABLE.sub("X", fast.stderr) == _VARIABLE.sub("X", slow.stderr)


def test_after_the_demo_a_proposal_in_its_store_is_yours(tmp_path):
    """The demo acts as its fictional team command by command and leaves no identity in the store's config: the
    next proposal there carries the identity of whoever runs it. At 60 columns, the commands it suggests trying
    stay on one line each (the terminal wraps them, not vmem)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "VMEM_WIDTH": "60"}
    env.pop("VMEM_STORE", None)
    out = subprocess.run(["vmem", "demo", str(tmp_path / "demo")], env=env, capture_output=True, check=True,
                         text=True, timeout=300).stdout
    tries = [line for line in out.splitlines() if line.startswith("try: ")]
    assert len(tries) == 2 and all(len(line) > 60 for line in tries)
    assert tries[1].split()[-1].startswith("c-")  # the blame id is on the same line as its command
    store = tmp_path / "demo" / "store"
    assert subprocess.run(["git", "-C", str(store), "config", "--local", "user.email"], capture_output=True,
                          text=True).stdout == ""
    done = subprocess.run(["vmem", "--store", str(store), "propose", "Dashboards refresh at 06:00 UTC.", "--json"],
                          env=env, capture_output=True, text=True, check=True)
    item = json.loads(done.stdout)["data"]["item"]
    author = subprocess.run(["git", "-C", str(store), "log", "-1", "--format=%ae"], capture_output=True,
                            text=True).stdout.strip()
    assert item["source"]["user"] == author == "alice@example.com"  # the test's own global identity
