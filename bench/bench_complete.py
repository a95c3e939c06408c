"""How fast shell completion answers from a store (issue 15 budget: ids on the 10k store within 150 ms).

    python bench/bench_complete.py [--sizes 10000] [--runs 21]

Each case is a fresh `vmem` process answering bash's completion protocol (_VMEM_COMPLETE=complete_bash), exactly
what a TAB press runs, on the synthetic store of bench/gen_store.py (read only). Interleaved in shuffled order
with the floor of any vmem command, `python -c "import vmem.cli.app"` (interpreter + typer + the command table):

  id-prefix   `vmem show c-XXXX<TAB>`    a 4-hex prefix of an existing claim (one shard read)
  id-all      `vmem show c-<TAB>`        every claim id (all shards)
  scope       `vmem recall q --scope <TAB>`   org and every entity:ID
  status      `vmem list --status <TAB>` a static list (no store read)

Writes bench/results/complete.md: medians and p90 in ms.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_store import BENCH_DIR, ensure_store  # noqa: E402

RESULTS = BENCH_DIR / "results"


def first_claim(root: Path) -> str:
    for shard in sorted((root / "claims").iterdir()):
        for path in sorted(shard.glob("c-*.yaml")):
            return path.stem
    raise SystemExit(f"{root} has no claims")


def timed(argv: list[str], env: dict) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    return (time.perf_counter() - start) * 1000, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    vmem = str(Path(sys.executable).parent / "vmem")
    lines = ["# Shell completion from a store", "",
             f"`python bench/bench_complete.py --sizes {args.sizes} --runs {args.runs}`; fresh processes, "
             "interleaved in shuffled order; ms. The floor is `python -c \"import vmem.cli.app\"`, what any "
             "typer-parsed vmem command pays before it does anything.", "",
             "| store | case | candidates | median | p90 |", "| ---: | --- | ---: | ---: | ---: |"]
    for size in [int(s) for s in args.sizes.split(",")]:
        root = ensure_store(size)
        prefix = first_claim(root)[:6]
        base_env = {**os.environ, "VMEM_STORE": str(root)}
        cases = {"floor": ([sys.executable, "-c", "import vmem.cli.app"], base_env)}
        for name, words in (("id-prefix", ["vmem", "show", prefix]), ("id-all", ["vmem", "show", "c-"]),
                            ("scope", ["vmem", "recall", "q", "--scope", ""]),
                            ("status", ["vmem", "list", "--status", ""])):
            env = {**base_env, "_VMEM_COMPLETE": "complete_bash", "COMP_WORDS": " ".join(words),
                   "COMP_CWORD": str(len(words) - 1)}
            cases[name] = ([vmem], env)
        times: dict[str, list[float]] = {name: [] for name in cases}
        counts: dict[str, int] = {}
        for _ in range(args.runs):
            order = list(cases)
            random.shuffle(order)
            for name in order:
                ms, out = timed(*cases[name])
                times[name].append(ms)
                counts[name] = len(out.split())
        for name, values in times.items():
            values.sort()
            p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
            shown = "-" if name == "floor" else str(counts[name])
            lines.append(f"| {size:,} | {name} | {shown} | {statistics.median(values):.0f} | {p90:.0f} |")
            print(lines[-1], flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "complete.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
