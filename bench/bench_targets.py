"""The pre-session hook per sync target (SPEC §10, §13) and the MCP server's in-process recall, on the 10k store.

    python bench/bench_targets.py [--size 10000] [--runs 15]

Clones bench/stores/items-SIZE-seed-1 into bench/out/targets/, writes a project whose committed .vmem.yaml names
the store by a relative path, fills the caches once, then times fresh processes, interleaved in shuffled order:

  import-vmem     python -c 'import vmem' (the budget is 2x this plus writing the files)
  hook-<target>   the committed hook path: `python -m vmem sync --hook --target T` in the project, nothing changed
  hook-all        the same with all four targets

and, in-process, `recall` through ops/agent.AgentView (what `vmem mcp` runs per call) after start-up.
Writes bench/results/targets.md. Medians; ratios within one run are what count.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_store import BENCH_DIR, IDENTITY, ensure_store, git  # noqa: E402

OUT = BENCH_DIR / "out" / "targets"
RESULTS = BENCH_DIR / "results"
TARGETS = ("claude", "agents-md", "cursor", "copilot")
QUERIES = ("how is ARR defined", "refund lag after settlement", "which customers prepay annually",
           "who owns the renewal", "churn definition for enterprise", "data retention for EU events")


def timed(command: list[str], cwd: Path, env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command} failed:\n{done.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    source = ensure_store(args.size)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    store, project = OUT / "store", OUT / "project"
    subprocess.run(["git", "clone", "-q", str(source), str(store)], check=True)
    git(store, "config", "user.name", IDENTITY[0])
    git(store, "config", "user.email", IDENTITY[1])
    project.mkdir()
    (project / ".vmem.yaml").write_text("store:\n  path: \"../store\"\ntargets: [claude]\n")
    env = {k: v for k, v in os.environ.items() if k not in ("VMEM_STORE", "PYTHONPYCACHEPREFIX")}
    env.update(XDG_CACHE_HOME=str(OUT / "cache"), CLAUDE_PROJECT_DIR=str(project))
    hook = [sys.executable, "-m", "vmem", "sync", "--hook"]
    commands = {"import-vmem": [sys.executable, "-c", "import vmem"]}
    commands.update({f"hook-{t}": hook + ["--target", t] for t in TARGETS})
    commands["hook-all"] = hook + [flag for t in TARGETS for flag in ("--target", t)]
    started = time.perf_counter()
    for command in commands.values():
        timed(command, project, env)  # cold: fills the caches and writes every target's files
    print(f"cold fill {time.perf_counter() - started:.1f} s", file=sys.stderr)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        order = list(commands)
        random.shuffle(order)
        for name in order:
            samples[name].append(timed(commands[name], project, env))
    sizes = {t: sum(p.stat().st_size for p in project.rglob("*") if p.is_file() and _owner(p) == t)
             for t in TARGETS}
    recall = _recall_in_process(store, env)
    base = statistics.median(samples["import-vmem"])
    lines = [f"Warm hook path per target on the {args.size:,}-item store (medians of {args.runs}, fresh processes, "
             "interleaved, shuffled; 2 CPUs shared with other work).", "",
             "| command | median | × `import vmem` | within 2× + writes? |", "| --- | ---: | ---: | --- |"]
    for name, values in samples.items():
        value = statistics.median(values)
        lines.append(f"| {name} | {value * 1000:.0f} ms | {value / base:.2f}× | "
                     f"{'—' if name == 'import-vmem' else ('yes' if value <= 2 * base else 'no')} |")
    lines += ["", "Bytes of each target's files: " + ", ".join(f"{t} {n:,}" for t, n in sizes.items()), "",
              f"`vmem mcp` recall in-process after start-up (AgentView.recall, {len(recall)} calls): median "
              f"{statistics.median(recall) * 1000:.1f} ms, max {max(recall) * 1000:.1f} ms."]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "targets.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _owner(path: Path) -> str | None:
    text = str(path)
    return ("claude" if "/.claude/rules/" in text else "cursor" if "/.cursor/rules/" in text else
            "copilot" if "/.github/instructions/" in text else "agents-md" if path.name == "AGENTS.md" else None)


def _recall_in_process(store: Path, env: dict) -> list[float]:
    code = ("import json, sys, time\n"
            "from pathlib import Path\n"
            "from vmem.ops.agent import AgentView\n"
            "view = AgentView(Path(sys.argv[1]))\n"
            "queries = json.loads(sys.argv[2])\n"
            "view.recall(queries[0])\n"
            "out = []\n"
            "for _ in range(5):\n"
            "    for q in queries:\n"
            "        t = time.perf_counter(); view.recall(q); out.append(time.perf_counter() - t)\n"
            "print(json.dumps(out))\n")
    import json

    done = subprocess.run([sys.executable, "-c", code, str(store), json.dumps(QUERIES)], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
