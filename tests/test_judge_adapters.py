"""Ready judge adapters for LLM command-line tools (llm, ollama, claude, gemini, openai), each against a fake of
the tool: a small Python script that takes the real tool's arguments, refuses others as the tool would, and
answers in the tool's own output format. Fail closed on every failure, the reason recorded; the program comes
only from the attested policy; `vmem eval merge --judge` measures the configured judge behind the floor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REVIEWER, commit_file, git

from vmem.errors import SchemaError
from vmem.knowledge.adapters import ADAPTER_MARK, PROMPT, answer_in, resolve
from vmem.knowledge.judge import judge_command
from vmem.policy import load_policy

VMEM = str(Path(sys.executable).parent / "vmem")  # the console script under test

# The fakes share one "model": two statements are the same when their words are, after a few synonyms; the tool
# name decides how it is called and how it answers. FAKE_MODE makes it misbehave; FAKE_LOG records each call.
FAKE = r'''#!{python}
import json, os, re, sys, time
TOOL = {tool!r}
args = sys.argv[1:]
mode = os.environ.get("FAKE_MODE", "ok")

def usage(why):
    sys.stderr.write(f"Error: {{why}}\n")
    sys.exit(2)

prompt = None
if TOOL == "llm":
    expected = {{"--no-stream", "--no-log"}}
    if not expected <= set(args):
        usage("expected --no-stream --no-log")
    rest = [a for a in args if a not in expected]
    if rest and (rest[0] != "-m" or len(rest) != 2):
        usage(f"unexpected arguments {{rest}}")
elif TOOL == "ollama":
    if len(args) != 5 or args[0] != "run" or args[2:] != ["--format", "json", "--nowordwrap"]:
        usage(f"usage: ollama run MODEL [PROMPT] [flags], got {{args}}")
elif TOOL == "claude":
    if args[:5] != ["-p", "--output-format", "json", "--max-turns", "1"] or args[5:] not in ([], ["--model", args[-1]]):
        usage(f"unexpected arguments {{args}}")
elif TOOL == "gemini":
    if args[:2] != ["--output-format", "json"] or "-p" not in args or args.index("-p") != len(args) - 2:
        usage(f"unexpected arguments {{args}}")
elif TOOL == "openai":
    if args[:2] != ["api", "chat.completions.create"] or "-m" not in args or args[-3] != "-g" or args[-2] != "user":
        usage(f"unexpected arguments {{args}}")
    prompt = args[-1]
if prompt is None:
    prompt = sys.stdin.read()
log = os.environ.get("FAKE_LOG")
if log:
    with open(log, "a") as f:
        f.write(json.dumps({{"tool": TOOL, "args": args, "prompt": prompt}}) + "\n")
if mode == "exit":
    sys.stderr.write("pulling manifest\nError: model 'nope' not found, try pulling it first\n")
    sys.exit(1)
if mode == "sleep":
    time.sleep(60)
a, b = re.findall(r"<<<(.*?)>>>", prompt, re.S)
SYN = {{"buyers": "customers", "sign": "commit", "concludes": "ends", "procurement": "purchasing",
       "teams": "groups", "stall": "delay", "wording": "language"}}
def meaning(text):
    return sorted(SYN.get(w, w) for w in re.findall(r"[a-z0-9]+", text.lower()))
same = meaning(a) == meaning(b)
answer = {{"same": same, "reason": "same words after synonyms" if same else "the words differ"}}
if mode == "garbage":
    text = "I think they are probably the same."
elif mode == "no_reason":
    text = json.dumps({{"same": True}})
elif mode == "string_same":
    text = json.dumps({{"same": "true", "reason": "yes"}})
elif mode == "disagree":
    text = (json.dumps({{"same": True, "reason": "x"}}) + " on second thought "
            + json.dumps({{"same": False, "reason": "y"}}))
else:
    text = json.dumps(answer)
if TOOL == "llm":
    out = "Here is my verdict:\n```json\n" + text + "\n```\n"
elif TOOL == "claude":
    out = json.dumps({{"type": "result", "subtype": "success", "is_error": mode == "error_envelope",
                      "result": "API Error: overloaded" if mode == "error_envelope" else text, "session_id": "s"}})
elif TOOL == "gemini":
    out = json.dumps({{"response": "<think>compare</think>" + text, "stats": {{}}}} if mode != "error_envelope"
                     else {{"error": {{"type": "ApiError", "message": "quota"}}}})
else:
    out = text
print(out)
'''

ADAPTERS = ["llm", "ollama", "claude", "gemini", "openai"]
MODEL = {"llm": "", "ollama": "llama3.1:8b", "claude": "sonnet", "gemini": "", "openai": "gpt-4o-mini"}
# pairs the deterministic floor leaves open (words it cannot align, no decisive difference): the judge decides
SAME = ({"statement": "Buyers sign once the pilot concludes.", "categories": ["stage:trial"]},
        {"statement": "Customers commit once the pilot ends.", "categories": ["stage:trial"]})
OTHER = ({"statement": "Buyers sign once the pilot concludes.", "categories": ["stage:trial"]},
         {"statement": "Customers churn once the pilot ends.", "categories": ["stage:trial"]})


def fake_tools(tmp_path: Path) -> Path:
    """A bin/ directory with a fake of each tool under its real name."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ADAPTERS:
        path = bin_dir / tool
        path.write_text(FAKE.format(python=sys.executable, tool=tool))
        path.chmod(0o755)
    return bin_dir


@pytest.fixture
def tools(tmp_path, monkeypatch) -> Path:
    bin_dir = fake_tools(tmp_path)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.jsonl"))
    return bin_dir


def calls(tmp_path: Path) -> list[dict]:
    log = tmp_path / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


# --------------------------------------------------------------------- each tool, its own conventions

@pytest.mark.parametrize("adapter", ADAPTERS)
def test_each_adapter_calls_its_tool_as_documented_and_reads_its_answer(tools, tmp_path, adapter):
    command = resolve(adapter, MODEL[adapter] or None, None)  # the program found on PATH by its usual name
    assert command[:2] == [ADAPTER_MARK, adapter]
    same = judge_command(command, *SAME, timeout_s=30)
    other = judge_command(command, *OTHER, timeout_s=30)
    label = f"{adapter} {MODEL[adapter]}".strip()
    assert same == (True, f"merged: same words after synonyms ({label})", "command", False)
    assert other == (False, f"not merged: the words differ ({label})", "command", False)
    first = calls(tmp_path)[0]
    assert first["tool"] == adapter
    # the fixed prompt, with both statements and their categories as data
    assert first["prompt"].startswith(PROMPT.split("\n")[0])
    assert "<<<Buyers sign once the pilot concludes.>>>" in first["prompt"]
    assert "(categories: stage:trial)" in first["prompt"] and '{"same": true or false' in first["prompt"]
    if MODEL[adapter]:
        assert MODEL[adapter] in first["args"]


def test_the_program_can_be_named_and_nothing_runs_through_a_shell(tools, tmp_path):
    marker = tmp_path / "marker"
    command = resolve("ollama", "llama3.1:8b", [str(tools / "ollama")])
    hostile = ({"statement": f"x $(touch {marker}) `touch {marker}`; touch {marker}", "categories": []}, SAME[1])
    verdict = judge_command(command, *hostile, timeout_s=30)
    assert verdict.same is False and not verdict.failed and not marker.exists()


# --------------------------------------------------------------------- fail closed, the failure as the reason

@pytest.mark.parametrize(("adapter", "mode", "why"), [
    ("ollama", "exit", "exited with status 1: Error: model 'nope' not found, try pulling it first"),
    ("llm", "garbage", 'answered without a JSON object {"same": ..., "reason": ...}'),
    ("openai", "no_reason", 'answered without {"same": bool, "reason": str}'),
    ("ollama", "string_same", 'answered without {"same": bool, "reason": str}'),
    ("llm", "disagree", "gave answers that disagree"),
    ("claude", "error_envelope", "reported an error: API Error: overloaded"),
    ("gemini", "error_envelope", 'reported an error: {"type": "ApiError", "message": "quota"}'),
])
def test_every_failure_is_not_the_same_with_the_failure_as_reason(tools, tmp_path, monkeypatch, adapter, mode, why):
    monkeypatch.setenv("FAKE_MODE", mode)
    verdict = judge_command(resolve(adapter, MODEL[adapter] or None, None), *SAME, timeout_s=30)
    label = f"{adapter} {MODEL[adapter]}".strip()
    assert verdict == (False, f"not merged: judge {label} {why}", "command", True)


def test_a_hung_tool_times_out_and_a_missing_one_is_named(tools, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "sleep")
    started = time.monotonic()
    verdict = judge_command(resolve("claude", None, None), *SAME, timeout_s=1)
    assert time.monotonic() - started < 10
    assert verdict == (False, "not merged: judge claude timed out after 1s", "command", True)
    missing = judge_command(resolve("llm", None, [str(tmp_path / "no-llm-here")]), *SAME, timeout_s=5)
    assert missing.same is False and missing.failed
    assert missing.reason.startswith(f"not merged: judge llm could not run '{tmp_path / 'no-llm-here'}'")


@pytest.mark.parametrize(("text", "expected"), [
    ('{"same": true, "reason": "r"}', (True, "r")),
    ('Sure.\n```json\n{"same": false, "reason": "numbers differ"}\n```', (False, "numbers differ")),
    ('<think>{"same": true, "reason": "draft"}</think>{"same": false, "reason": "final"}', (False, "final")),
    ('{"same": true, "reason": "a"} {"same": true, "reason": "b"}', (True, "b")),  # agreeing twice is one answer
    ('{"same": true, "reason": "a"} and {"same": false, "reason": "b"}', "gave answers that disagree"),
    ('{"verdict": "same"}', 'answered without a JSON object {"same": ..., "reason": ...}'),
    ("[" * 100 + "]" * 100, 'answered without a JSON object {"same": ..., "reason": ...}'),
    ("x" * 70_000 + '{"same": true, "reason": "buried"}', "printed 70,034 characters without one plain JSON answer"),
])
def test_the_answer_is_read_out_of_free_text_strictly(text, expected):
    assert answer_in(text) == expected


# --------------------------------------------------------------------- configuration and trust

def test_policy_resolves_an_adapter_and_refuses_what_cannot_work():
    judge = load_policy({"knowledge": {"judge": {"adapter": "ollama", "model": "qwen2.5:7b",
                                                 "command": "/opt/ollama/bin/ollama"}}})["knowledge"]["judge"]
    assert judge["command"] == [ADAPTER_MARK, "ollama", "qwen2.5:7b", "/opt/ollama/bin/ollama"]
    assert load_policy({"knowledge": {"judge": judge}})["knowledge"]["judge"] == judge  # read back: unchanged
    for bad, why in [({"adapter": "ollama"}, "the ollama adapter needs knowledge.judge.model"),
                     ({"adapter": "gpt"}, "knowledge.judge.adapter must be one of: llm, ollama, claude, gemini"),
                     ({"model": "llama3"}, "knowledge.judge.model is set without knowledge.judge.adapter"),
                     ({"adapter": 3}, "knowledge.judge.adapter must be str or null")]:
        with pytest.raises(SchemaError, match=why):
            load_policy({"knowledge": {"judge": bad}})


def set_policy_judge(store, judge: dict, who=REVIEWER) -> None:
    from vmem.store import codec

    with store.acting_as(f"{who[0]} <{who[1]}>"), store.transaction("policy", summary="judge adapter") as tx:
        raw = codec.load((store.root / "vmem.yaml").read_text(), "vmem.yaml")
        raw["knowledge"]["judge"] = judge
        tx.write_file("vmem.yaml", raw)
    store._policy = None


PARAPHRASES = [("larkspur-health", "Procurement teams stall renewals over indemnity wording."),
               ("tidewell", "Purchasing groups delay renewals over indemnity language.")]
CATS = ["-c", "industry:healthcare", "-c", "stage:security_review"]


def vmem_cli(*args: str, cwd: Path, code: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run([VMEM, *args], cwd=cwd, capture_output=True, text=True, env=dict(os.environ))
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    return done


def test_consolidate_runs_the_adapter_only_from_the_attested_policy(seeded, tools, tmp_path):
    """Alice (not a reviewer) commits an adapter by hand: ignored, nothing runs. Rita commits it: consolidate asks
    the tool, and the merge records the tool's reason."""
    from vmem.store import codec

    def learn(pair):
        return [json.loads(vmem_cli("propose", text, "--from", entity, *CATS, "--json", cwd=tmp_path).stdout)
                ["data"]["item"]["id"] for entity, text in pair]

    raw = codec.load((seeded.root / "vmem.yaml").read_text(), "vmem.yaml")
    raw["knowledge"]["judge"] = {"adapter": "llm", "timeout_s": 30}
    commit_file(seeded, "vmem.yaml", codec.dump(raw).encode())  # by hand, by Alice: no reviewer's commit
    learn(PARAPHRASES)
    result = json.loads(vmem_cli("consolidate", "--json", cwd=tmp_path).stdout)["data"]
    assert calls(tmp_path) == [] and result["merged"] == []  # the floor leaves the pair open; no judge trusted
    set_policy_judge(seeded, {"adapter": "llm", "timeout_s": 20})  # her own change (the same bytes vouch for nothing)
    ids = learn([("larkspur-health", SAME[0]["statement"]), ("tidewell", SAME[1]["statement"])])
    result = json.loads(vmem_cli("consolidate", "--json", cwd=tmp_path).stdout)["data"]
    [merge] = [m for m in result["merged"] if m["from"] in ids]
    assert {merge["from"], merge["into"]} == set(ids) and merge["judge"] == "command"
    assert merge["reason"] == "merged: same words after synonyms (llm)"
    assert calls(tmp_path) and {c["tool"] for c in calls(tmp_path)} == {"llm"}
    shown = json.loads(vmem_cli("show", merge["into"], "--json", cwd=tmp_path).stdout)["data"]
    assert shown["card"]["merges"][0]["reason"] == "merged: same words after synonyms (llm)"


# --------------------------------------------------------------------- vmem eval merge --judge

def test_eval_merge_judge_measures_the_configured_judge_behind_the_floor(seeded, tools, tmp_path):
    rows = [  # the floor decides the first three; the judge only the open fourth and fifth
        {"id": "canon", "a": "Pilots last 14 days.", "b": "pilots last 14 days", "label": 1, "kind": "positive"},
        {"id": "number", "a": "Pilots last 14 days.", "b": "Pilots last 30 days.", "label": 0,
         "kind": "hard_negative"},
        {"id": "negation", "a": "Clients begin pilots in May.", "b": "Clients never begin pilots in May.",
         "label": 0, "kind": "hard_negative"},
        {"id": "open-same", "a": SAME[0]["statement"], "b": SAME[1]["statement"], "label": 1, "kind": "positive"},
        {"id": "open-other", "a": OTHER[0]["statement"], "b": OTHER[1]["statement"], "label": 0,
         "kind": "hard_negative"},
    ]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({**r, "categories_a": ["stage:trial"], "categories_b": ["stage:trial"]})
                             + "\n" for r in rows))
    work = tmp_path / "elsewhere"
    work.mkdir()
    done = vmem_cli("eval", "merge", str(pairs), "--judge", "--json", cwd=work, code=2)  # none configured yet
    assert "no merge judge is configured" in done.stdout + done.stderr
    set_policy_judge(seeded, {"adapter": "ollama", "model": "llama3.1:8b", "timeout_s": 30})
    report = json.loads(vmem_cli("eval", "merge", str(pairs), "--judge", "--json", cwd=work).stdout)["data"]
    asked = [c["prompt"] for c in calls(tmp_path)]
    assert len(asked) == report["judge"]["asked"] == report["by_rule"]["judge"]["pairs"]
    assert not any("30 days" in p or "never" in p for p in asked)  # the floor's refusals never reach the judge
    assert report["judge"]["name"] == "ollama llama3.1:8b" and "vmem.yaml (attested)" in report["judge"]["source"]
    assert report["judge"]["failed"] == 0 and report["judge"]["same"] >= 1
    assert "open-same" not in report["misses"] and report["errors"] == []
    assert report["by_rule"]["number"]["pairs"] == 1 and report["by_rule"]["negation"]["pairs"] == 1
    plain = json.loads(vmem_cli("eval", "merge", str(pairs), "--json", cwd=work).stdout)["data"]
    assert "judge" not in plain and report["recall"] > plain["recall"]  # what the judge adds, same metrics

    human = vmem_cli("eval", "merge", str(pairs), "--judge", cwd=work).stdout
    assert "judge ollama llama3.1:8b" in human and "0 no answer (fail-closed)" in " ".join(human.split())


def test_eval_merge_judge_reads_the_users_own_config_without_a_store(tools, tmp_path, monkeypatch):
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "vmem" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("judge: {adapter: claude, timeout_s: 20}\n")
    monkeypatch.setenv("FAKE_MODE", "exit")  # and every answer fails: all fail-closed, counted and named
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "p", "a": SAME[0]["statement"], "b": SAME[1]["statement"],
                                 "categories_a": ["stage:trial"], "categories_b": ["stage:trial"], "label": 1,
                                 "kind": "positive"}) + "\n")
    report = json.loads(vmem_cli("eval", "merge", str(pairs), "--judge", "--json", cwd=tmp_path).stdout)["data"]
    assert report["judge"]["source"] == str(config) and report["judge"]["failed"] == report["judge"]["asked"] == 1
    assert report["judge"]["failures"] == [{"id": "p", "reason": "not merged: judge claude exited with status 1: "
                                                                 "Error: model 'nope' not found, try pulling it "
                                                                 "first"}]
    assert report["tp"] == 0 and report["fp"] == 0
    config.write_text("judge: {adapter: ollama}\n")
    done = vmem_cli("eval", "merge", str(pairs), "--judge", cwd=tmp_path, code=1)
    assert "the ollama adapter needs knowledge.judge.model" in done.stderr
