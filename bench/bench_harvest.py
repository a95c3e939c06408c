"""Benchmark `vmem harvest` over a project's sessions and the SessionEnd hook over one session (SPEC 10, 16).

    python bench/bench_harvest.py [--sessions 200] [--mb 50] [--runs 5] [--seed 1] [--candidate-share 0.12]

Generates, once, under bench/out/harvest/: a store (vmem init), a project that uses it, and SESSIONS Claude Code
transcripts in the project's ~/.claude/projects folder (a HOME of the benchmark's own), about MB megabytes in
all: tasks, assistant replies with tool calls, tool results of a few kilobytes (the bulk of a real transcript),
thinking blocks, and now and then a correction, a definition or a confirmation a person typed. (Every session's tables are named apart, so no two corrections read alike: nothing is skipped as a repeat.)
Then, each run
in a fresh queue (the user data dir emptied):

  harvest, first run    `vmem harvest --list` reading every session (the worst case: nothing read before)
  harvest, again        the same command once more: every file unchanged, nothing re-read
  SessionEnd hook       `vmem harvest --hook` with the ended session's event on stdin (the largest session)
  python -c pass        interpreter start-up alone, for scale

Budgets (SPEC 16): harvest over 200 sessions (~50 MB) within 5 s; the hook within 1 s. Prints a markdown table
(median and worst of RUNS) and appends it to bench/out/harvest.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "harvest"
VMEM = Path(sys.executable).with_name("vmem")

TASKS = ["chart weekly signups by channel", "why is October revenue lower than finance's number",
         "add a dbt test for duplicate invoices", "build the churn cohort table", "refactor the export DAG",
         "reconcile refunds against the ledger", "plot NRR by segment for the board deck"]
SAID = [("I'll use `orders.completed_at` as the order date.",
         "no, `completed_at` is settlement time, use `placed_at` for when the order was made"),
        ("I'll sum `invoices.amount_due` as euros.",
         "careful: `invoices.amount_due` is in cents, every money column in raw is minor units"),
        ("So trials count toward ARR, right?", "no - ARR excludes trials and one-time implementation fees"),
        ("So the fiscal year starts on February 1st, right?", "yes exactly"),
        ("Here is the chart.", "FYI the events table is deduplicated on (user_id, event_id), never count raw rows"),
        ("Done, pushed the branch.", "thanks! now rename the chart title and open a PR")]


CANDIDATE_SHARE = 0.12  # of the turns a person types, those that correct, define or confirm
OTHER = ["now split it by region", "thanks, that works", "can you add a legend and export it as png?",
         "why are there {n} nulls in the segment column?", "rerun it for the last {n} days", "looks good, commit it",
         "hmm ok, try the other join", "what does the {n}th percentile look like?", "no, don't push yet",
         "make the chart title shorter", "ok", "perfect"]


def _session(rng: random.Random, project: Path, target_bytes: int, n: int, share: float) -> str:
    sid = f"{rng.getrandbits(32):08x}-0000-4000-8000-{n:012d}"
    lines, k = [], 0

    def add(kind: str, message: dict, **more) -> None:
        nonlocal k
        k += 1
        lines.append(json.dumps({"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": str(project),
                                 "sessionId": sid, "version": "2.0.14", "gitBranch": "main", "type": kind,
                                 "message": message, "uuid": f"{sid[:8]}-{k:06d}",
                                 "timestamp": f"2026-11-{1 + n % 28:02d}T10:{k // 60 % 60:02d}:{k % 60:02d}Z",
                                 **more}))

    size = 0
    add("user", {"role": "user", "content": rng.choice(TASKS)})
    while size < target_bytes:
        for _ in range(rng.randrange(2, 6)):  # the agent works: tool calls and their output, the bulk of a transcript
            output = "\n".join(f"{rng.randrange(10**6):>8} | {rng.choice(['paid', 'open', 'void'])} | "
                               f"{rng.random() * 1000:10.2f} | 2026-10-{rng.randrange(1, 29):02d}"
                               for _ in range(rng.randrange(20, 120)))
            add("assistant", {"id": f"msg_{k}", "role": "assistant", "content": [
                {"type": "thinking", "thinking": "Let me look at the table first. " * 20, "signature": "x" * 200},
                {"type": "tool_use", "id": f"toolu_{k}", "name": "Bash", "input": {"command": "psql -c 'select …'"}}]})
            add("user", {"role": "user", "content": [{"tool_use_id": f"toolu_{k - 1}", "type": "tool_result",
                                                      "content": output}]}, toolUseResult={"stdout": output})
        said, reply = rng.choice(SAID)
        if rng.random() > share:  # most of what a person types: the next step, a question, thanks
            reply = rng.choice(OTHER).format(n=rng.randrange(2, 90))
        tag = f"{rng.choice(['orders', 'refunds', 'invoices', 'events', 'accounts'])}_{rng.randrange(10**4)}"
        said = said.replace("`orders.", f"`{tag}.").replace("`invoices.", f"`{tag}.")  # every session's own words
        reply = reply.replace("`completed_at`", f"`{tag}.completed_at`").replace("events table", f"{tag} table") \
            .replace("ARR", f"ARR for {tag}").replace("`invoices.", f"`{tag}.")
        add("assistant", {"id": f"msg_{k}", "role": "assistant", "content": [{"type": "text", "text": said}]})
        add("user", {"role": "user", "content": reply})
        size = sum(len(line) + 1 for line in lines)
    return "\n".join(lines) + "\n"


def prepare(sessions: int, megabytes: float, seed: int, share: float) -> tuple[Path, Path, Path]:
    home, project, store = OUT / "home", OUT / "project", OUT / "store"
    marker = OUT / f"ready-{sessions}-{megabytes}-{seed}-{share}"
    if marker.exists():
        return home, project, store
    shutil.rmtree(OUT, ignore_errors=True)
    home.mkdir(parents=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n")
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache")}
    subprocess.run([str(VMEM), "init", str(store)], env=env, check=True, capture_output=True)
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], env=env, check=True)
    subprocess.run([str(VMEM), "hook", "install", "--store", str(store), "--target", "claude"], cwd=project, env=env,
                   check=True, capture_output=True)
    folder = home / ".claude" / "projects" / "".join(c if c.isalnum() else "-" for c in str(project.resolve()))
    folder.mkdir(parents=True)
    rng = random.Random(seed)
    each = int(megabytes * 1_000_000 / sessions)
    for n in range(sessions):
        target = int(each * rng.uniform(0.3, 1.7))
        (folder / f"session-{n:04d}.jsonl").write_text(_session(rng, project, target, n, share))
    marker.touch()
    return home, project, store


def timed(argv: list[str], cwd: Path, env: dict, stdin: str | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--candidate-share", type=float, default=CANDIDATE_SHARE,
                        help="of the turns a person types, the share that correct, define or confirm (1.0: all)")
    args = parser.parse_args()
    home, project, store = prepare(args.sessions, args.mb, args.seed, args.candidate_share)
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CACHE_HOME": str(home / "cache"), "VMEM_STORE": ""}
    env.pop("VMEM_STORE")
    folder = next((home / ".claude" / "projects").iterdir())
    files = sorted(folder.glob("*.jsonl"))
    total = sum(f.stat().st_size for f in files)
    largest = max(files, key=lambda f: f.stat().st_size)
    event = json.dumps({"session_id": "x", "transcript_path": str(largest), "cwd": str(project),
                        "hook_event_name": "SessionEnd", "reason": "exit"})
    rows: dict[str, list[float]] = {"harvest, first run": [], "harvest, again (unchanged)": [],
                                    "SessionEnd hook (largest session)": [], "python -c pass": []}
    found = None
    for _ in range(args.runs):
        shutil.rmtree(home / "data" / "vmem" / "harvest", ignore_errors=True)
        rows["harvest, first run"].append(timed([str(VMEM), "harvest", "--list"], project, env))
        rows["harvest, again (unchanged)"].append(timed([str(VMEM), "harvest", "--list"], project, env))
        shutil.rmtree(home / "data" / "vmem" / "harvest", ignore_errors=True)
        rows["SessionEnd hook (largest session)"].append(
            timed([str(VMEM), "harvest", "--hook"], project, env, stdin=event))
        rows["python -c pass"].append(timed([sys.executable, "-c", "pass"], project, env))
    shutil.rmtree(home / "data" / "vmem" / "harvest", ignore_errors=True)
    listed = subprocess.run([str(VMEM), "harvest", "--list", "--json"], cwd=project, env=env, capture_output=True,
                            text=True, check=True)
    found = json.loads(listed.stdout)["data"]
    lines = [f"## vmem harvest: {len(files)} sessions, {total / 1e6:.1f} MB (largest {largest.stat().st_size / 1e6:.2f}"
             f" MB), {args.candidate_share:.0%} of typed turns candidates, {args.runs} runs, {os.cpu_count()} cores",
             "", "| operation | median s | worst s |", "|---|---:|---:|"]
    for name, values in rows.items():
        lines.append(f"| {name} | {statistics.median(values):.3f} | {max(values):.3f} |")
    lines += ["", f"{found['read']} files read, {len(found['candidates'])} candidates queued "
                  f"(distinct statements: the same words in many sessions are offered once)"]
    text = "\n".join(lines) + "\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with (OUT.parent / "harvest.md").open("a") as kept:
        kept.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
