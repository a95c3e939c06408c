"""The external judge under attack: bounded runs (time, output, nesting), no leftover processes, no lock held."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REVIEWER, assert_clean, git

from vmem.knowledge.judge import judge_command
from vmem.process import run_bounded

PAIR = ({"statement": "DPA before security review", "categories": ["stage:security_review"]},
        {"statement": "DPA ahead of the security review", "categories": ["stage:security_review"]})

CATS = ["-c", "industry:healthcare", "-c", "stage:security_review"]
PARAPHRASES = [  # the deterministic floor leaves every pair of these open ("unaligned"): the command decides
    ("larkspur-health", "Healthcare customers always ask to see audit logs during security review."),
    ("tidewell", "Clinics routinely request access to audit logs in the security review stage."),
    ("corvane", "Healthcare buyers want to look at audit logs while security review is underway."),
]

# A judge that never answers and forks a grandchild that holds its stdout open: the grandchild outlives a kill of
# the judge alone, and keeps the pipe open, so a reader waiting for EOF would wait as long as it sleeps.
HANGING = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
with open({pids!r}, "a") as f:
    f.write(f"{{os.getpid()}} {{child.pid}}\\n")
time.sleep(60)
"""


def script(tmp_path: Path, body: str, name: str = "judge.py") -> list[str]:
    path = tmp_path / name
    path.write_text(body)
    return [sys.executable, str(path)]


def running(pid: int) -> bool:
    """Whether PID still runs anything (a zombie waiting for its reaper does not)."""
    if not Path("/proc/self/stat").exists():  # no procfs: a signal-0 probe (counts a zombie as running)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def assert_all_ended(pids_file: Path) -> list[int]:
    pids = [int(p) for line in pids_file.read_text().splitlines() for p in line.split()]
    assert pids
    deadline = time.monotonic() + 5  # SIGKILL is immediate; allow the kernel a moment to tear down
    while any(running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in pids if running(p)] == []
    return pids


def set_judge(store, command: list[str], timeout_s: float) -> None:
    from vmem.store import codec

    # a policy change takes effect through a reviewer's commit (SPEC 12)
    with store.acting_as(f"Rita <{REVIEWER[1]}>"), store.transaction("policy", summary="external judge") as tx:
        raw = codec.load((store.root / "vmem.yaml").read_text(), "vmem.yaml")
        raw["knowledge"]["judge"] = {"command": command, "timeout_s": timeout_s}
        tx.write_file("vmem.yaml", raw)
    store._policy = None


def learn(vmem, store, n: int) -> str:
    entity, text = PARAPHRASES[n]
    return vmem.json("propose", text, "--from", entity, *CATS, store=store)["data"]["item"]["id"]


# --------------------------------------------------------------------- run_bounded

def test_run_bounded_returns_what_the_command_printed(tmp_path):
    command = script(tmp_path, "import sys\ndata = sys.stdin.buffer.read()\nsys.stdout.buffer.write(data[::-1])\n"
                               "sys.stderr.write('note')\nsys.exit(4)\n")
    done = run_bounded(command, input=b"abc" * 200_000, timeout_s=30)  # more than a pipe buffer each way
    assert (done.outcome, done.returncode, done.stdout, done.stderr) == ("exited", 4, b"cba" * 200_000, b"note")


def test_run_bounded_never_uses_a_shell(tmp_path):
    marker = tmp_path / "marker"
    done = run_bounded(["echo", f"x; touch {marker}"], input=None, timeout_s=10)
    assert done.stdout == f"x; touch {marker}\n".encode() and not marker.exists()
    with pytest.raises(TypeError):
        run_bounded(f"touch {marker}", input=None, timeout_s=10)  # type: ignore[arg-type]


def test_run_bounded_reports_a_command_that_cannot_start(tmp_path):
    done = run_bounded([str(tmp_path / "no-such-judge")], input="{}", timeout_s=10)
    assert done.outcome == "error" and done.returncode is None and "No such file" in done.detail


def test_timeout_ends_the_whole_process_group(tmp_path):
    pids = tmp_path / "pids"
    started = time.monotonic()
    # long enough for a loaded machine to start Python and fork before the kill (the pids file must be written)
    done = run_bounded(script(tmp_path, HANGING.format(pids=str(pids))), input=b"{}", timeout_s=2)
    elapsed = time.monotonic() - started
    assert done.outcome == "timeout" and done.returncode is None
    assert elapsed < 8, elapsed  # not the grandchild's 60 s: its open stdout is not waited for
    assert_all_ended(pids)


def test_a_shell_pipeline_with_a_background_job_is_ended_on_timeout(tmp_path):
    pids = tmp_path / "pids"
    command = ["sh", "-c", f"sleep 100 & echo $! > {pids}; echo $$ >> {pids}; sleep 100"]
    done = run_bounded(command, input=None, timeout_s=1)
    assert done.outcome == "timeout"
    assert_all_ended(pids)


@pytest.mark.parametrize("holds_the_pipe", [False, True])
@pytest.mark.parametrize("pidfd", [True, False])  # without pidfd_open (older kernels, macOS) the exit is polled
def test_what_a_finished_command_left_running_is_ended(tmp_path, monkeypatch, holds_the_pipe, pidfd):
    if not pidfd:
        monkeypatch.setattr("vmem.process._pidfd", lambda pid: None)
    pids = tmp_path / "pids"
    stdio = "" if holds_the_pipe else ", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL"
    body = ("import subprocess, sys\n"
            f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']{stdio})\n"
            f"open({str(pids)!r}, 'w').write(str(child.pid))\n"
            "print('done')\n")
    started = time.monotonic()
    done = run_bounded(script(tmp_path, body), input=None, timeout_s=20)
    assert (done.outcome, done.returncode, done.stdout) == ("exited", 0, b"done\n")
    assert time.monotonic() - started < 10  # its answer counts as soon as it exits, leftovers or not
    assert_all_ended(pids)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_over_the_limit_is_cut_off_and_the_command_ended(tmp_path, stream):
    body = f"import sys, time\nchunk = b'x' * 65536\nwhile True:\n    sys.{stream}.buffer.write(chunk)\n"
    started = time.monotonic()
    done = run_bounded(script(tmp_path, body), input=None, timeout_s=30, max_output=1_000_000)
    assert done.outcome == "too_large" and stream in done.detail
    assert len(getattr(done, stream)) <= 1_000_000 + 65536
    assert time.monotonic() - started < 10


def test_a_command_that_ignores_its_input_does_not_deadlock(tmp_path):
    done = run_bounded(script(tmp_path, "import time\ntime.sleep(60)\n"), input=b"x" * 5_000_000, timeout_s=0.5)
    assert done.outcome == "timeout"


# --------------------------------------------------------------------- judge_command: every attack is a no-merge

def test_a_hanging_judge_is_a_no_merge_and_leaves_nothing_running(tmp_path):
    pids = tmp_path / "pids"
    started = time.monotonic()
    verdict = judge_command(script(tmp_path, HANGING.format(pids=str(pids))), *PAIR, timeout_s=1.5)
    assert verdict.same is False and verdict.reason == "not merged: judge command timed out after 1.5s"
    assert time.monotonic() - started < 8
    assert_all_ended(pids)


@pytest.mark.parametrize(("answer", "why"), [
    ('"[" * 200_000', "nested deeper than"),  # json.loads raised RecursionError here: a crash
    ('"[" * 200_000 + "]" * 200_000', "nested deeper than"),
    ('\'{"same": true, "reason": "ok", "x": \' + "[" * 100_000 + "]" * 100_000 + "}"', "nested deeper than"),
    # well-formed and "same", but 5 MB: it was read whole and merged
    ('\'{"same": true, "reason": "\' + "x" * 5_000_000 + \'"}\'', "printed more than"),
    ('"x" * 5_000_000', "printed more than"),
])
def test_a_deep_or_huge_answer_is_a_no_merge_with_a_reason(tmp_path, answer, why):
    command = script(tmp_path, f"import sys\nsys.stdin.read()\nsys.stdout.write({answer})\n")
    verdict = judge_command(command, *PAIR, timeout_s=30)
    assert verdict.same is False and verdict.judge == "command"
    assert verdict.reason.startswith("not merged: judge command ") and why in verdict.reason, verdict.reason


def test_a_judge_that_floods_stderr_is_a_no_merge(tmp_path):
    command = script(tmp_path, "import sys\nsys.stderr.write('x' * 5_000_000)\nprint('{\"same\": true, "
                               "\"reason\": \"ok\"}')\n")
    verdict = judge_command(command, *PAIR, timeout_s=30)
    assert verdict.same is False and "stderr" in verdict.reason


# --------------------------------------------------------------------- consolidate: judge outside the store lock

ASKED_JUDGE = """
import json, sys
pair = json.load(sys.stdin)
with open({log!r}, "a") as f:
    f.write(json.dumps([pair["a"]["statement"], pair["b"]["statement"]]) + "\\n")
print(json.dumps({{"same": True, "reason": "always says same"}}))
"""


def test_the_floor_decides_before_the_command(seeded, vmem, tmp_path):
    """The deterministic judge is the precision floor under an external one: a pair it refuses for a decisive
    difference (here a number) is never put to the command, so a judge that says "same" to everything cannot
    merge it; the pairs it leaves open are the command's."""
    log = tmp_path / "asked.jsonl"
    set_judge(seeded, script(tmp_path, ASKED_JUDGE.format(log=str(log))), timeout_s=30)
    two = vmem.json("propose", "Healthcare customers need two weeks of security review before signing.",
                    "--from", "larkspur-health", *CATS, store=seeded)["data"]["item"]["id"]
    five = vmem.json("propose", "Healthcare customers need five weeks of security review before signing.",
                     "--from", "tidewell", *CATS, store=seeded)["data"]["item"]["id"]
    result = vmem.json("consolidate", store=seeded)["data"]
    assert result["merged"] == [] and not log.exists()
    assert {vmem.json("show", i)["data"]["status"] for i in (two, five)} == {"candidate"}
    first, second = learn(vmem, seeded, 0), learn(vmem, seeded, 1)
    result = vmem.json("consolidate", store=seeded)["data"]
    # the floor leaves open what it has not measured to be a real difference (vmem eval merge's by_detector): this
    # judge merges all of those; never the two/five weeks pair (two amounts of one unit, 13 of 13 on the dev pairs)
    assert {first, second} <= {m["from"] for m in result["merged"]} | {m["into"] for m in result["merged"]}
    assert all(m["judge"] == "command" for m in result["merged"])
    assert not any({m["from"], m["into"]} == {two, five} for m in result["merged"])
    asked = [json.loads(line) for line in log.read_text().splitlines()]
    assert all("five weeks" not in " ".join(pair) or "two weeks" not in " ".join(pair) for pair in asked)


def test_consolidate_with_a_hanging_judge_merges_nothing_and_leaves_nothing_running(seeded, vmem, tmp_path):
    pids = tmp_path / "pids"
    set_judge(seeded, script(tmp_path, HANGING.format(pids=str(pids))), timeout_s=1.5)
    ids = [learn(vmem, seeded, n) for n in range(3)]
    started = time.monotonic()
    result = vmem.json("consolidate", store=seeded)["data"]
    assert time.monotonic() - started < 30  # three pairs, each cut at 1.5 s
    assert result["merged"] == [] and result["candidates"] == 3
    assert {vmem.json("show", i)["data"]["status"] for i in ids} == {"candidate"}
    assert_all_ended(pids)  # every judge and every grandchild it forked (one pair per line)


@pytest.mark.parametrize("answer", ['"[" * 200_000', '\'{"same": true, "reason": "\' + "x" * 5_000_000 + \'"}\''])
def test_consolidate_survives_a_deep_or_huge_answer(seeded, vmem, tmp_path, answer):
    set_judge(seeded, script(tmp_path, f"import sys\nsys.stdin.read()\nsys.stdout.write({answer})\n"), timeout_s=30)
    ids = [learn(vmem, seeded, n) for n in range(3)]
    result = vmem.json("consolidate", store=seeded)["data"]
    assert result["merged"] == [] and result["candidates"] == 3
    assert {vmem.json("show", i)["data"]["status"] for i in ids} == {"candidate"}


SLOW_JUDGE = """
import json, os, sys, time
pair = json.load(sys.stdin)
with open({log!r}, "a") as f:
    f.write(json.dumps([pair["a"]["id"], pair["b"]["id"]]) + "\\n")
if os.path.exists({slow!r}):
    time.sleep({sleep})
print(json.dumps({{"same": True, "reason": "same claim, reworded"}}))
"""


def test_a_slow_judge_never_holds_the_store_lock(seeded, vmem, tmp_path, monkeypatch):
    """Regression: consolidate ran the external judge inside store.transaction, so any other write waited for
    every judge call and failed after VMEM_LOCK_TIMEOUT."""
    log, slow = tmp_path / "judged.jsonl", tmp_path / "slow"
    set_judge(seeded, script(tmp_path, SLOW_JUDGE.format(log=str(log), slow=str(slow), sleep=4)), timeout_s=30)
    first, second = learn(vmem, seeded, 0), learn(vmem, seeded, 1)
    slow.touch()
    monkeypatch.setenv("VMEM_LOCK_TIMEOUT", "2")  # shorter than one judge call
    consolidating = subprocess.Popen([sys.executable, "-m", "vmem", "consolidate", "--json"], env=dict(os.environ),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not log.exists():
            assert consolidating.poll() is None, consolidating.communicate()
            assert time.monotonic() < deadline, "the judge never started"
            time.sleep(0.02)
        started = time.monotonic()
        late = learn(vmem, seeded, 2)  # a third paraphrase arrives while the judge runs
        waited = time.monotonic() - started
        assert consolidating.poll() is None  # the judge was still running when propose committed
        out, err = consolidating.communicate(timeout=120)
    finally:
        if consolidating.poll() is None:
            consolidating.kill()
            consolidating.wait()
    print(f"propose during a running judge took {waited:.3f}s")
    assert waited < 2
    assert consolidating.returncode == 0, err.decode()
    result = json.loads(out)["data"]
    [merge] = result["merged"]
    assert {merge["from"], merge["into"]} == {first, second} and merge["judge"] == "command"
    assert result["commit"] and result["candidates"] == 2  # the survivor (two customers, k is 3) and the late one
    # the judge saw only the pair that existed when it started; the late proposal waits for the next run
    assert [json.loads(line) for line in log.read_text().splitlines()] == [[m["from"], m["into"]]
                                                                          for m in result["merged"]]
    assert vmem.json("show", late)["data"]["status"] == "candidate"
    subjects = git(seeded, "log", "-2", "--format=%s").splitlines()
    assert "consolidate" in subjects[0] and "propose" in subjects[1]
    assert vmem.json("check")["data"]["errors"] == []
    assert_clean(seeded)

    slow.unlink()
    again = vmem.json("consolidate", store=seeded)["data"]
    into = result["merged"][0]["into"]
    assert [(m["from"], m["into"]) for m in again["merged"]] == [(late, into)]
    assert vmem.json("show", late)["data"]["merged_into"] == into


MEANWHILE_JUDGE = """
import json, pathlib, subprocess, sys
pair = json.load(sys.stdin)
flag = pathlib.Path({flag!r})
if not flag.exists():  # the first call: another writer commits while the judge runs (no lock is held)
    flag.touch()
    item = pair[{side!r}]["id"]
    path = pathlib.Path({root!r}, "knowledge", item[2:4], item + ".yaml")
    path.write_text(path.read_text().replace({old!r}, {new!r}))
    subprocess.run(["git", "-C", {root!r}, "commit", "-qam", "meanwhile"], check=True)
print(json.dumps({{"same": True, "reason": "same claim"}}))
"""


@pytest.mark.parametrize(("side", "old", "new"), [
    ("b", "status: candidate", "status: rejected"),  # the survivor left the pool
    ("a", "status: candidate", "status: rejected"),  # the source is no longer a candidate
    ("b", "audit logs", "audit trails"),  # the survivor was reworded: the judge's answer was about other words
])
def test_answers_are_rechecked_under_the_lock(seeded, vmem, tmp_path, side, old, new):
    flag = tmp_path / "flag"
    set_judge(seeded, script(tmp_path, MEANWHILE_JUDGE.format(flag=str(flag), side=side, root=str(seeded.root),
                                                             old=old, new=new)), timeout_s=30)
    ids = [learn(vmem, seeded, n) for n in range(2)]
    result = vmem.json("consolidate", store=seeded)["data"]
    assert flag.exists() and git(seeded, "log", "-2", "--format=%s").splitlines()[1] == "meanwhile"
    assert result["merged"] == []
    shown = [vmem.json("show", i)["data"] for i in ids]
    assert [s["merged_into"] for s in shown] == [None, None]
    assert_clean(seeded)
    if old == "audit logs":  # asked again next run, about the new words
        again = vmem.json("consolidate", store=seeded)["data"]
        assert len(again["merged"]) == 1
