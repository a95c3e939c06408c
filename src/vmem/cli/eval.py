"""`vmem eval merge FILE` and `vmem eval deid FILE`: measure the merge cascade and the de-id gate on labeled data."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session

app = typer.Typer(help="Measure vmem on labeled data.", no_args_is_help=True)


@app.command("merge")
def merge(
    ctx: typer.Context,
    pairs: Annotated[Optional[Path], typer.Argument(metavar="[FILE]", help="Labeled pairs: JSONL {id, a, b, "
                                                   "categories_a, categories_b, label, kind}, or a .tsv of id, "
                                                   "sentence1, sentence2, label (PAWS).")] = None,
    from_history: Annotated[bool, typer.Option("--from-history", help="Label the pairs with the store's attested "
                                                                      "reviewer decisions instead of a FILE: a "
                                                                      "reviewer's merge is a positive, 'not the "
                                                                      "same' or an unmerge a negative.")] = False,
    judge: Annotated[bool, typer.Option("--judge", help="Measure the configured external judge (knowledge.judge: "
                                                        "the attested policy, else your own config) on the pairs "
                                                        "the deterministic floor leaves open.")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Precision, recall and false-merge rate of blocker + judge on labeled pairs (bundled model), and the merge
    suggestions' recall@1/@3; the pairs come from FILE, or with --from-history from the store's reviewers."""
    with session(ctx, json_, store) as s, _history_file(s, pairs, from_history, store) as pairs:
        from vmem.embed import embedder
        from vmem.ops.eval_judge import evaluate_configured, summary
        from vmem.ops.eval_merge import evaluate_merge

        report = evaluate_configured(pairs, embedder()) if judge else evaluate_merge(pairs, embedder())

        def human(console) -> None:
            from rich.table import Table

            from vmem.cli.render import detector_table

            console.print(f"{report['pairs']} pairs: precision {report['precision']:.4f}, recall "
                          f"{report['recall']:.4f}, false-merge rate {report['false_merge_rate']:.4f}")
            console.print(f"tp {report['tp']}  fp {report['fp']}  fn {report['fn']}  tn {report['tn']}")
            differing = report["differing"]
            if differing["pairs"] != report["pairs"]:
                console.print(f"{differing['pairs']} pairs whose statements differ: precision "
                              f"{differing['precision']:.4f}, recall {differing['recall']:.4f}, false-merge rate "
                              f"{differing['false_merge_rate']:.4f}")
            table = Table("kind", "pairs", "merged", box=None)
            for kind, counts in sorted(report["by_kind"].items()):
                table.add_row(kind, str(counts["pairs"]), str(counts["merged"]))
            console.print(table)
            if report["by_strength"]:
                strength = Table("positives by rewording", "pairs", "merged", "recall", box=None)
                for name, counts in report["by_strength"].items():
                    strength.add_row(name, str(counts["pairs"]), str(counts["merged"]),
                                     f"{counts['merged'] / counts['pairs']:.2f}")
                console.print(strength)
            rules = Table("decided by", "pairs", "positives", "negatives", box=None)
            for rule, counts in sorted(report["by_rule"].items(), key=lambda item: -item[1]["pairs"]):
                rules.add_row(rule, str(counts["pairs"]), str(counts["positives"]),
                              str(counts["pairs"] - counts["positives"]))
            console.print(rules)
            opened = report.get("judge_open")
            if opened and opened.get("ceiling") is not None:
                console.print(f"left open for a judge that reads meaning: {opened['pairs']} pairs "
                              f"({opened['positives']} positives); recall if it said 'same' to each: "
                              f"{opened['ceiling']:.3f}")
            for name, half in (report.get("by_split") or {}).items():
                if half["positives"]:
                    console.print(f"{name} half: {half['pairs']} pairs, recall {half['recall']:.3f}, false-merge "
                                  f"rate {half['false_merge_rate'] or 0:.4f}, judge ceiling "
                                  f"{half['judge_open']['ceiling']:.3f} ({half['judge_open']['pairs']} open)")
            if report.get("by_detector"):
                console.print(detector_table(report["by_detector"]))
            if report["errors"]:
                console.print("[red]false merges:[/] " + ", ".join(report["errors"]))
            shown = report.get("suggestions")
            if shown and shown["positives"]:
                halves = ", ".join(f"{name} {part['recall_at_3']:.3f}" for name, part in shown["by_split"].items()
                                   if part["positives"])
                console.print(f"merge suggestions: recall@1 {shown['recall_at_1']:.3f}, recall@3 "
                              f"{shown['recall_at_3']:.3f} over {shown['positives']} positives (recall@3 by half: "
                              f"{halves})")
            if "judge" in report:
                console.print(summary(report["judge"]), soft_wrap=True)

        s.out.result({k: v for k, v in report.items()}, human)


@contextlib.contextmanager
def _history_file(s, pairs: Path | None, from_history: bool, store: str | None):
    """The labeled pairs' file: FILE as given, or the store's reviewer decisions written to a temporary JSONL."""
    from vmem.errors import UsageError, VmemError

    if from_history == (pairs is not None):
        raise UsageError("give a FILE of labeled pairs, or --from-history (not both)",
                         "vmem eval merge tests/data/merge_pairs_dev.jsonl, or vmem eval merge --from-history")
    if not from_history:
        if store is not None:
            raise UsageError("--store is for --from-history; a FILE of pairs needs no store",
                             "drop --store, or measure the store's decisions: vmem eval merge --from-history")
        yield pairs
        return
    import json
    import tempfile

    from vmem.ops.suggest import history_labels

    labels = history_labels(s.store)
    if not labels:
        raise VmemError(f"the store at {s.store.root} holds no reviewer's merge or 'not the same' decision yet",
                         "decide merge suggestions in vmem review (or vmem merge / vmem distinct), then measure")
    with tempfile.TemporaryDirectory(prefix="vmem-labels-") as tmp:
        path = Path(tmp) / "history.jsonl"
        path.write_text("".join(json.dumps(label) + "\n" for label in labels), encoding="utf-8")
        yield path


@app.command("recall")
def recall(
    ctx: typer.Context,
    queries: Annotated[Path, typer.Argument(metavar="FILE.yaml", help="Labeled queries (examples/eval/recall.yaml).")],
    k: Annotated[int, typer.Option("-k", help="Results per query (the depth of hit@k and MRR@k).")] = 10,
    split: Annotated[Optional[str], typer.Option("--split", metavar="tune|heldout",
                                                 help="Ask only that half's questions (fit on tune without ever "
                                                      "seeing a held-out row).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """hit@1, hit@k, MRR@k, coverage accuracy and stale-hallucination rate of recall, per split (tune, held-out)."""
    with session(ctx, json_, store) as s:
        from vmem.ops.eval_recall import evaluate_recall

        report = evaluate_recall(s.store, queries, k, split=split)

        def human(console) -> None:
            from rich.table import Table

            table = Table("split", "queries", "ranked", "hit@1", f"hit@{k}", f"MRR@{k}", "coverage acc.",
                          "stale rate", box=None)
            parts = [(name, report["splits"][name]) for name in ("tune", "heldout")
                     if report["splits"][name]["queries"]]
            parts += [] if report["split"] else [("all", report)]
            for name, part in parts:
                table.add_row(name, str(part["queries"]), str(part["ranked"]),
                              *(f"{part[key]:.3f}" if part[key] is not None else "-" for key in
                                ("hit_at_1", "hit_at_k", "mrr_at_k", "coverage_accuracy",
                                 "stale_hallucination_rate")))
            console.print(table)
            for expect, got in report["confusion"].items():
                by_split = "; ".join(f"{name} {report['splits'][name]['label_accuracy'][expect]:.2f}"
                                     for name in ("tune", "heldout")
                                     if report["splits"][name]["label_accuracy"][expect] is not None)
                console.print(f"  expected {expect:<9} → " + ", ".join(f"{g} {n}" for g, n in got.items())
                              + (f"  (accuracy {by_split})" if by_split else ""))
            for row in report["rows"]:
                if row["expect"] != row["got"] or row["stale_served"] or row["rank"] not in (None, 1):
                    rank = "" if row["rank"] in (None, 1) else f" rank {row['rank'] or '>' + str(k)}"
                    console.print(f"  [dim]{row['split']:<7} {row['expect']:>9} got {row['got']:<9} cos "
                                  f"{row['best_cosine']:.2f}{rank}"
                                  f"{' STALE ' + ','.join(row['stale_served']) if row['stale_served'] else ''}[/] "
                                  f"{row['query']}", soft_wrap=True)

        s.out.result(report, human)


@app.command("deid")
def deid(
    ctx: typer.Context,
    cases: Annotated[Path, typer.Argument(metavar="FILE", help="Labeled statements: JSONL {id, statement, leak, "
                                                               "entity_ids, variant}.")],
    lexicon: Annotated[Path | None, typer.Option("--lexicon", metavar="DIR", help="A folder with entities/ and "
                                                 "episodes/ (default: the store's committed lexicon).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Leaks caught and false quarantines of the de-id gate, by variant, with the rule behind every catch."""
    with session(ctx, json_, store) as s:
        from vmem.gates.publish import load_inputs
        from vmem.ops.eval_deid import evaluate_deid, lexicon_from_dir, read_cases

        inputs = lexicon_from_dir(lexicon) if lexicon is not None else load_inputs(s.store.head())
        report = evaluate_deid(read_cases(cases), inputs)

        def human(console) -> None:
            from rich.table import Table

            console.print(f"{report['cases']} statements: leaks caught {report['caught']}/{report['leaks']}, "
                          f"false quarantines {report['false_quarantines']}/{report['clean']} "
                          f"({report['false_quarantine_rate']:.1%})")
            if report["missed"]:
                console.print("[red]missed:[/] " + ", ".join(map(str, report["missed"])))
            if report["false"]:
                console.print("[yellow]quarantined but clean:[/] " + ", ".join(map(str, report["false"])))
            table = Table("rule (kind:reading)", "hits", box=None)
            for rule, count in report["by_rule"].items():
                table.add_row(rule, str(count))
            console.print(table)

        s.out.result(report, human)


@app.command("harvest")
def harvest(
    ctx: typer.Context,
    files: Annotated[Optional[list[Path]], typer.Argument(metavar="[FILE.yaml]...", help="Labeled sessions "
                                                          "(default: the bundled fit and report halves).",
                                                          show_default=False)] = None,
    errors: Annotated[bool, typer.Option("--errors", help="List every false positive and miss.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Precision and recall of vmem harvest's detector on labeled sessions, rendered as real Claude Code and Codex
    transcripts (the bundled set: a half it was tuned on, fit, and a half it never was, report)."""
    with session(ctx, json_, None) as s:
        from vmem.ops.eval_harvest import SPLITS, bundled, evaluate

        paths = files or [bundled(split) for split in SPLITS]
        reports = [evaluate(path) for path in paths]

        def human(console) -> None:
            from rich.table import Table

            table = Table("file", "sessions", "labeled", "found", "precision", "recall", "F1", "kind acc.",
                          "keeps words", box=None)
            for r in reports:
                table.add_row(Path(r["file"]).name, str(r["sessions"]), str(r["labeled"]), str(r["found"]),
                              *(f"{r[k]:.3f}" if r[k] is not None else "-" for k in
                                ("precision", "recall", "f1", "kind_accuracy", "statement_keeps_words")))
            console.print(table)
            for r in reports:
                recall = ", ".join(f"{kind} {v['recall']:.2f} of {v['labeled']}" for kind, v in r["by_kind"].items()
                                   if v["recall"] is not None)
                console.print(f"  {Path(r['file']).name}: recall by kind: {recall}; credentials left: "
                              f"{len(r['secret_leaks'])}")
                if errors:
                    for fp in r["false_positives"]:
                        console.print(f"    [dim]false {fp['kind']:<12}[/] {fp['turn']}", soft_wrap=True,
                                      highlight=False, markup=False)
                    for miss in r["misses"]:
                        console.print(f"    [dim]missed {miss['kind']:<11}[/] {miss['turn']}", soft_wrap=True,
                                      highlight=False, markup=False)

        s.out.result({"files": reports}, human)
