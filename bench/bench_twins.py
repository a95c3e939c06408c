"""What the typer-free command paths buy: each one timed against the typer face of the same command, in one run.

    python bench/bench_twins.py [--size 10000] [--runs 9] [--seed 1]

vmem answers `sync`, `recall`, `index`, `propose` and `supersede` without importing typer or rich when it can
(vmem.cli.entry: cli/sync.py's fast_main, recall_fast, propose_fast, supersede_fast over one argument reader,
cli/fast.py); every other command, and these when the reader is unsure, go through the typer app. Both reach the
same ops body, so the difference is the face alone. This runs each command both ways as fresh processes on one
clone of the synthetic store (bench/gen_store.py; its remote removed, so no delivery), interleaved in a shuffled
order per round, the reads (recall, sync) first and then the writes (propose, supersede):

  fast    `python -m vmem --store S CMD ...` (the console script's path)
  typer   `python -c <the typer app alone> --store S CMD ...` (vmem.cli.entry._full: what every other command pays)

and `python -c pass`, the floor under both. recall asks bench_all's questions on a built index; propose writes a
new claim each time (bench_propose's generated text); supersede revises a different approved claim each time (as one of the store's reviewers); sync is the pre-session hook on an
unchanged store. Prints medians, p10-p90 and the fast/typer ratio per command; results also in
bench/out/twins.md. Ratios within one run are what count.
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
sys.path.insert(0, str(HERE))

from bench_all import QUERIES  # noqa: E402
from gen_store import BENCH_DIR, Generator, ensure_store  # noqa: E402

OUT = BENCH_DIR / "out" / "twins"
TYPER = "import sys; from vmem.cli.entry import _full; sys.argv = ['vmem'] + sys.argv[1:]; _full()"


def timed(argv: list[str], env: dict, cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[:6]} failed ({done.returncode}):\n{done.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    source = ensure_store(args.size, args.seed, log=print)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    root = OUT / "store"
    subprocess.run(["git", "clone", "-q", "--local", str(source), str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "remove", "origin"], check=True)  # no delivery: the face alone
    for key, value in (("user.name", "Wen Kowalski"), ("user.email", "wen.kowalski@northwind-analytics.example")):
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(XDG_CACHE_HOME=str(OUT / "cache"), PYTHONPYCACHEPREFIX=str(OUT / "pycache"))
    vmem = [sys.executable, "-m", "vmem", "--store", str(root)]
    typer = [sys.executable, "-c", TYPER, "--store", str(root)]
    rules = OUT / "rules"
    subprocess.run(vmem + ["index"], env=env, cwd=OUT, check=True, capture_output=True)
    subprocess.run(vmem + ["sync", "--dir", str(rules)], env=env, cwd=OUT, check=True, capture_output=True)
    listed = subprocess.run(vmem + ["--json", "list", "--status", "approved", "--kind", "claim"],
                            env=env, cwd=OUT, check=True, capture_output=True, text=True)
    approved = [item["id"] for item in json.loads(listed.stdout)["data"]]
    queries = iter(QUERIES * 100)
    from vmem.policy import load_policy

    texts = Generator(args.seed + 1_000_003, load_policy({}))  # other text than the store's, as bench_propose
    rng = random.Random(args.seed)
    samples: dict[str, list[float]] = {}
    warm = 1
    # reads first (an index and caches up to date, as on a working day), then writes (whose commits would send the
    # next recall to catch its index up: the model's load, not the face, would be measured)
    for phase in (("recall", "sync"), ("propose", "supersede")):
        for round_ in range(warm + args.runs):
            jobs = [("python -c pass", [sys.executable, "-c", "pass"])] if phase[0] == "recall" else []
            for face, head in (("fast", vmem), ("typer", typer)):
                argv = {"recall": head + ["recall", next(queries)],
                        "sync": head + ["sync", "--dir", str(rules)],
                        "propose": head + ["propose", texts.claim_text()[0], "--domain", "finance"],
                        "supersede": head + ["supersede", approved.pop(), f"Revised for {face} run {round_}."]}
                jobs += [(f"{command} {face}", argv[command]) for command in phase]
            rng.shuffle(jobs)
            for name, argv in jobs:
                seconds = timed(argv, env, OUT)
                if round_ >= warm:
                    samples.setdefault(name, []).append(seconds)
    lines = [f"## Typer-free paths against the typer face, {args.size:,} items",
             "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · {os.cpu_count()} CPUs · load "
             f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end · {args.runs} shuffled rounds after "
             f"{warm} warm-up",
             "",
             "| command | fast median ms (p10-p90) | typer median ms (p10-p90) | fast / typer | typer - fast ms |",
             "| --- | ---: | ---: | ---: | ---: |"]

    def cell(values: list[float]) -> str:
        q = statistics.quantiles(values, n=10) if len(values) > 1 else [values[0]] * 9
        return f"{statistics.median(values) * 1000:.0f} ({q[0] * 1000:.0f}-{q[-1] * 1000:.0f})"

    for command in ("recall", "propose", "supersede", "sync"):
        fast, slow = samples[f"{command} fast"], samples[f"{command} typer"]
        lines.append(f"| {command} | {cell(fast)} | {cell(slow)} | "
                     f"{statistics.median(fast) / statistics.median(slow):.2f}× | "
                     f"{(statistics.median(slow) - statistics.median(fast)) * 1000:.0f} |")
    lines.append(f"| python -c pass | {cell(samples['python -c pass'])} | | | |")
    text = "\n".join(lines) + "\n"
    (BENCH_DIR / "out" / "twins.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
