"""`vmem eval harvest`: the harvest detector's precision and recall on labeled sessions (SPEC 16).

A labeled file (YAML: sessions of turns, each user turn optionally labeled correction | definition | confirmation,
see examples/eval/harvest/) is rendered into the agents' own transcript formats -- Claude Code's JSONL (tool calls
and results, meta lines, slash commands, sidechains, compactions, summaries) or the Codex CLI's rollout -- and read
back by the same readers and detector `vmem harvest` uses. A found candidate counts where its turn is labeled:
a labeled turn found is a true positive (its kind right or not, reported apart), an unlabeled turn found a false
positive. Credentials marked in the labels must not survive into any candidate (after the same redaction).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from vmem.errors import UsageError

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "eval" / "harvest"
SPLITS = ("fit", "report")


def bundled(split: str) -> Path:
    return BUNDLED / f"{split}.yaml"


def load(path: Path) -> list[dict]:
    from vmem.store.codec import load as load_yaml

    try:
        data = load_yaml(path.read_bytes(), str(path))
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror})", "name a labeled harvest file (YAML)") from None
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, list) or not all(isinstance(s, dict) and isinstance(s.get("turns"), list)
                                                 for s in sessions):
        raise UsageError(f"{path}: not a labeled harvest file", "expected sessions: [{name, agent, turns: [...]}]")
    return sessions


class _Claude:
    def __init__(self, name: str) -> None:
        self.session = f"eval-{name}"
        self.lines: list[dict] = []
        self.n = 0

    def _entry(self, kind: str, sidechain: bool = False, **more) -> dict:
        self.n += 1
        entry = {"parentUuid": None, "isSidechain": sidechain, "userType": "external", "cwd": "/eval/project",
                 "sessionId": self.session, "version": "2.0.14", "type": kind, "uuid": f"u-{self.n:05d}",
                 "timestamp": f"2026-11-02T{10 + self.n // 3600 % 10:02d}:{self.n // 60 % 60:02d}:{self.n % 60:02d}Z",
                 **more}
        self.lines.append(entry)
        return entry

    def turn(self, turn: dict, sidechain: bool = False) -> str | None:
        """Render TURN; the ref of a user turn (what a candidate from it carries)."""
        if "user" in turn:
            text = str(turn["user"])
            content = [{"type": "text", "text": text}] if turn.get("blocks") else text
            return self._entry("user", sidechain, message={"role": "user", "content": content})["uuid"]
        if "assistant" in turn:
            self._entry("assistant", sidechain, message={"id": f"msg_{self.n}", "type": "message",
                                                         "role": "assistant", "content": [
                                                             {"type": "text", "text": str(turn["assistant"])}]})
        elif "tool" in turn:
            tool = turn["tool"] or {}
            self._entry("assistant", sidechain, message={"id": f"msg_{self.n}", "role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{self.n}", "name": str(tool.get("name", "Bash")),
                 "input": {"command": str(tool.get("input", ""))}}]})
            self._entry("user", sidechain, message={"role": "user", "content": [
                {"tool_use_id": f"toolu_{self.n - 1}", "type": "tool_result", "content": str(tool.get("output", ""))}]})
        elif "meta" in turn:
            self._entry("user", sidechain, isMeta=True, message={"role": "user", "content": str(turn["meta"])})
        elif "command" in turn:
            name = str(turn["command"])
            self._entry("user", sidechain, message={"role": "user", "content": (
                f"<command-name>{name}</command-name>\n<command-message>{name.lstrip('/')}</command-message>\n"
                "<command-args></command-args>")})
        elif "stdout" in turn:
            self._entry("user", sidechain, message={"role": "user", "content":
                                                    f"<local-command-stdout>{turn['stdout']}</local-command-stdout>"})
        elif "sidechain" in turn:
            for inner in turn["sidechain"] or []:
                self.turn(inner, sidechain=True)
        elif "compact" in turn:
            self._entry("system", subtype="compact_boundary", content="Conversation compacted", isMeta=False)
            self._entry("user", isCompactSummary=True, message={"role": "user", "content": str(turn["compact"])})
        elif "summary" in turn:
            self.lines.append({"type": "summary", "summary": str(turn["summary"]), "leafUuid": f"u-{self.n:05d}"})
        elif turn.get("interrupted"):
            self._entry("user", sidechain, message={"role": "user", "content": [
                {"type": "text", "text": "[Request interrupted by user]"}]})
        return None


class _Codex:
    def __init__(self, name: str) -> None:
        self.lines: list[dict] = [{"timestamp": "2026-11-03T09:00:00Z", "type": "session_meta", "payload": {
            "id": f"eval-{name}", "timestamp": "2026-11-03T09:00:00Z", "cwd": "/eval/project",
            "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": None}}]

    def _add(self, kind: str, payload: dict) -> int:
        n = len(self.lines)
        self.lines.append({"timestamp": f"2026-11-03T09:{n // 60 % 60:02d}:{n % 60:02d}Z", "type": kind,
                           "payload": payload})
        return len(self.lines)  # its 1-based line number

    def turn(self, turn: dict) -> str | None:
        if "user" in turn:
            text = str(turn["user"])
            line = self._add("response_item", {"type": "message", "role": "user",
                                               "content": [{"type": "input_text", "text": text}]})
            self._add("event_msg", {"type": "user_message", "message": text, "images": []})
            return f"line {line}"
        if "assistant" in turn:
            text = str(turn["assistant"])
            self._add("response_item", {"type": "message", "role": "assistant",
                                        "content": [{"type": "output_text", "text": text}]})
            self._add("event_msg", {"type": "agent_message", "message": text})
        elif "tool" in turn:
            tool = turn["tool"] or {}
            self._add("response_item", {"type": "function_call", "name": "shell", "call_id": f"c{len(self.lines)}",
                                        "arguments": json.dumps({"command": ["bash", "-lc", str(tool.get("input"))]})})
            self._add("response_item", {"type": "function_call_output", "call_id": f"c{len(self.lines) - 1}",
                                        "output": json.dumps({"output": str(tool.get("output", ""))})})
        elif "meta" in turn or "command" in turn:
            self._add("response_item", {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "<environment_context>\n  <cwd>/eval/project</cwd>\n"
                                               "</environment_context>"}]})
        elif "stdout" in turn:
            self._add("response_item", {"type": "function_call_output", "call_id": "c0",
                                        "output": json.dumps({"output": str(turn["stdout"])})})
        elif "compact" in turn:
            self._add("compacted", {"message": str(turn["compact"])})
        elif turn.get("interrupted"):
            self._add("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
        return None  # Codex has no sidechains or summary lines


def render(session: dict, folder: Path) -> tuple[Path, str, dict[str, dict]]:
    """SESSION written as its agent's transcript in FOLDER: (path, agent, ref -> the labeled user turn)."""
    agent = session.get("agent", "claude")
    name = str(session.get("name", "session"))
    writer = _Codex(name) if agent == "codex" else _Claude(name)
    refs: dict[str, dict] = {}
    for turn in session["turns"]:
        if not isinstance(turn, dict):
            continue
        ref = writer.turn(turn)
        if ref is not None:
            refs[ref] = turn
    path = folder / (f"rollout-2026-11-03T09-00-00-{name}.jsonl" if agent == "codex" else f"{name}.jsonl")
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in writer.lines), encoding="utf-8")
    return path, ("codex" if agent == "codex" else "claude"), refs


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def evaluate(path: Path) -> dict:
    from vmem.harvest.detect import KINDS, find
    from vmem.harvest.secrets import clean_statement, redact
    from vmem.harvest.transcripts import READERS

    sessions = load(path)
    tp = fp = fn = kind_right = kept_words = 0
    by_kind = {k: {"labeled": 0, "found": 0, "predicted": 0, "predicted_right": 0} for k in KINDS}
    misses, false, leaks, problems = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="vmem-eval-harvest-") as tmp:
        for session in sessions:
            file, agent, refs = render(session, Path(tmp))
            read = READERS[agent](file)
            problems += read.problems
            found = {f.ref: f for f in find(read, clean=lambda text: redact(text)[0])
                     if clean_statement(f.statement)[0] is not None}
            for ref, turn in refs.items():
                label = turn.get("label")
                hit = found.get(ref)
                if hit is not None:
                    statement, _ = clean_statement(hit.statement)
                    statement = statement or ""
                    quote, _ = redact(hit.quote)
                    secret = turn.get("secret")
                    if secret and (secret in statement or secret in quote):
                        leaks.append({"session": session.get("name"), "secret": secret})
                    if hit.kind in by_kind:
                        by_kind[hit.kind]["predicted"] += 1
                if label in by_kind:
                    by_kind[label]["labeled"] += 1
                if label and hit is not None:
                    tp += 1
                    by_kind[label]["found"] += 1 if label in by_kind else 0
                    if hit.kind == label:
                        kind_right += 1
                        by_kind[label]["predicted_right"] += 1
                    must = [str(w).casefold() for w in turn.get("must") or []]
                    if all(w in hit.statement.casefold() for w in must):
                        kept_words += 1
                elif label:
                    fn += 1
                    misses.append({"session": session.get("name"), "kind": label, "turn": str(turn["user"])[:200]})
                elif hit is not None:
                    fp += 1
                    false.append({"session": session.get("name"), "kind": hit.kind, "turn": str(turn["user"])[:200],
                                  "statement": hit.statement[:200]})
    kinds = {k: {"labeled": v["labeled"], "recall": _ratio(v["found"], v["labeled"]),
                 "precision_of_kind": _ratio(v["predicted_right"], v["predicted"])} for k, v in by_kind.items()}
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    return {"file": str(path), "sessions": len(sessions), "labeled": tp + fn, "found": tp + fp, "tp": tp, "fp": fp,
            "fn": fn, "precision": precision, "recall": recall,
            "f1": _ratio(2 * tp, 2 * tp + fp + fn), "kind_accuracy": _ratio(kind_right, tp),
            "statement_keeps_words": _ratio(kept_words, tp), "by_kind": kinds, "secret_leaks": leaks,
            "false_positives": false, "misses": misses, "problems": problems}
