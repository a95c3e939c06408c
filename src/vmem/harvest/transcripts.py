"""Agent session transcripts and personal notes, read as the turns a person and an agent took (SPEC 16).

Claude Code writes one JSON object a line (`~/.claude/projects/<project path, every character other than a letter
or digit as ->/<session>.jsonl`): user and assistant messages (string or block content), tool results (user
messages whose blocks are `tool_result`), `isMeta` caveats, slash commands and their output wrapped in
`<command-…>`/`<local-command-…>` tags, `summary` lines, `system` compact boundaries, `isCompactSummary`
continuations and `isSidechain` sub-agent exchanges. The Codex CLI writes `~/.codex/sessions/YYYY/MM/DD/
rollout-*.jsonl`: a `session_meta` line (id, cwd), then `response_item` lines (messages with `input_text` /
`output_text` blocks, function calls and their output, reasoning) and `event_msg` lines that repeat the messages.

Only what a person typed and what the assistant said in the main conversation become turns; everything else is
skipped, and a line that is not JSON is skipped and named in `problems`, never a crash.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import NamedTuple

# what Claude Code wraps around commands, their output and injected context: never a person's words
_WRAPPED = re.compile(r"<(system-reminder|ide_opened_file|ide_selection|user-prompt-submit-hook)>.*?</\1>", re.S)
_COMMAND = ("<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
            "<local-command-stderr>", "<bash-input>", "<bash-stdout>", "<bash-stderr>", "Caveat: The messages below",
            "[Request interrupted by user", "<task-notification>")
# what Codex puts in a user message before the person's words: its context, the project's instructions
_CODEX_CONTEXT = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>",
                  "<turn_aborted>")


class Turn(NamedTuple):
    role: str  # "user" | "assistant" | "boundary" (a compaction or a new conversation: no turn answers across it)
    text: str
    at: str | None  # the line's ISO timestamp
    ref: str  # the message's uuid, else "line N"


class Session(NamedTuple):
    agent: str  # claude | codex | notes
    id: str
    path: Path
    turns: list[Turn]
    problems: list[str]
    cwd: str | None


def _whole(text: str) -> str:
    """TEXT with lone surrogates (JSON's \\ud800 escapes, which Claude Code can write) replaced: never encoded."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _text_blocks(content, kinds: tuple[str, ...]) -> tuple[str, bool]:
    """(the text of CONTENT's text blocks, whether it holds a tool result). CONTENT: a string or a block list."""
    if isinstance(content, str):
        return _whole(content), False
    if not isinstance(content, list):
        return "", False
    parts, tool = [], False
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in kinds and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind in ("tool_result", "function_call_output"):
            tool = True
    return _whole("\n".join(parts)), tool


def person_text(text: str) -> str | None:
    """TEXT with the wrapped context removed, or None when it is a command, its output or a caveat."""
    text = _WRAPPED.sub("", text).strip()
    if not text or text.startswith(_COMMAND) or text.startswith(_CODEX_CONTEXT):
        return None
    return text


def _load(line: bytes, path: Path, number: int, problems: list[str]) -> dict | None:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        problems.append(f"{path.name}:{number}: not JSON, skipped")
        return None
    if not isinstance(value, dict):
        problems.append(f"{path.name}:{number}: not a JSON object, skipped")
        return None
    return value


def _entries(path: Path, data: bytes | None, problems: list[str]):
    """(line number, JSON object) for each line of a JSONL transcript (DATA, else the file's bytes); a blank line is
    passed over, a broken one named in PROBLEMS."""
    data = path.read_bytes() if data is None else data
    for number, line in enumerate(data.splitlines(), 1):
        if line.strip():
            entry = _load(line, path, number, problems)
            if entry is not None:
                yield number, entry


def read_claude(path: Path, data: bytes | None = None) -> Session:
    problems: list[str] = []
    turns: list[Turn] = []
    session_id, cwd, last_message = None, None, None
    for number, entry in _entries(path, data, problems):
        session_id = session_id or (entry.get("sessionId") if isinstance(entry.get("sessionId"), str) else None)
        cwd = cwd or (entry.get("cwd") if isinstance(entry.get("cwd"), str) else None)
        kind = entry.get("type")
        at = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        ref = entry.get("uuid") if isinstance(entry.get("uuid"), str) else f"line {number}"
        if kind == "system" and entry.get("subtype") == "compact_boundary":
            turns.append(Turn("boundary", "", at, ref))
            continue
        if kind not in ("user", "assistant") or entry.get("isSidechain") is True:
            continue
        if entry.get("isMeta") is True or entry.get("isCompactSummary") is True:
            if entry.get("isCompactSummary") is True:
                turns.append(Turn("boundary", "", at, ref))
            continue
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        if kind == "user":
            text, tool = _text_blocks(message.get("content"), ("text",))
            if tool:
                continue  # a tool's result, reported back as a user message
            text = person_text(text)
            if text:
                turns.append(Turn("user", text, at, ref))
            continue
        text, _ = _text_blocks(message.get("content"), ("text",))
        if not text.strip():
            continue
        message_id = message.get("id")
        if turns and turns[-1].role == "assistant" and message_id is not None and message_id == last_message:
            turns[-1] = turns[-1]._replace(text=turns[-1].text + "\n" + text)  # one reply written over several lines
        else:
            turns.append(Turn("assistant", text, at, ref))
        last_message = message_id
    return Session("claude", session_id or path.stem, path, turns, problems, cwd)


def read_codex(path: Path, data: bytes | None = None) -> Session:
    problems: list[str] = []
    turns: list[Turn] = []
    session_id, cwd = None, None
    for number, entry in _entries(path, data, problems):
        payload = entry.get("payload") if isinstance(entry.get("payload"), dict) else entry  # older: no envelope
        kind = entry.get("type")
        at = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        if kind == "session_meta" or (number == 1 and "payload" not in entry and "instructions" in entry):
            session_id = payload.get("id") if isinstance(payload.get("id"), str) else session_id
            cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else cwd
            continue
        if kind == "turn_context" and isinstance(payload.get("cwd"), str):
            cwd = cwd or payload["cwd"]
            continue
        if kind == "compacted":
            turns.append(Turn("boundary", "", at, f"line {number}"))
            continue
        if kind == "event_msg" or payload.get("type") != "message":
            continue  # events repeat the messages; calls, their output and reasoning are not a person's words
        role = payload.get("role")
        if role == "user":
            text, tool = _text_blocks(payload.get("content"), ("input_text", "text"))
            text = None if tool else person_text(text)
            if text:
                turns.append(Turn("user", text, at, f"line {number}"))
        elif role == "assistant":
            text, _ = _text_blocks(payload.get("content"), ("output_text", "text"))
            if text.strip():
                turns.append(Turn("assistant", text, at, f"line {number}"))
    return Session("codex", session_id or path.stem, path, turns, problems, cwd)


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


def read_notes(path: Path, text: str | None = None) -> Session:
    """A personal notes file (CLAUDE.local.md): each bullet or paragraph outside code blocks is a person's turn."""
    from datetime import datetime, timezone

    text = path.read_text(encoding="utf-8", errors="replace") if text is None else text
    try:
        at = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OSError:
        at = None
    turns: list[Turn] = []
    entry: list[str] = []
    fenced = False

    def close() -> None:
        joined = _whole(" ".join(" ".join(entry).split()))
        if joined:  # named by its words, not its line: a note added above another does not take its id
            import hashlib

            turns.append(Turn("user", joined, at, "note " + hashlib.sha256(joined.encode()).hexdigest()[:12]))
        entry.clear()

    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            close()
            continue
        if fenced or _HEADING.match(line) or not line.strip() or line.lstrip().startswith(("<!--", ">")):
            close()
            continue
        bullet = _BULLET.match(line)
        if bullet:
            close()
            entry.append(line[bullet.end():])
        else:
            entry.append(line.strip())
    close()
    return Session("notes", path.name, path, turns, [], str(path.parent))


# -- where the transcripts are ----------------------------------------------------------------------------------


def claude_home() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~/.claude"))


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex"))


def claude_folder_name(project: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(project))


def _inside(cwd: str | None, project: Path) -> bool:
    if not cwd:
        return False
    try:
        Path(cwd).resolve().relative_to(project)
    except (ValueError, OSError):
        return False
    return True


def _first_line(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.readline(1 << 20)
    except OSError:
        return b""


def _cwd_of(path: Path, agent: str) -> str | None:
    """The working directory a transcript names in its first lines (without reading the whole file)."""
    try:
        with path.open("rb") as handle:
            for _ in range(20):
                line = handle.readline(1 << 20)
                if not line:
                    return None
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(entry, dict):
                    continue
                payload = entry.get("payload") if isinstance(entry.get("payload"), dict) else entry
                cwd = payload.get("cwd") if agent == "codex" else entry.get("cwd")
                if isinstance(cwd, str):
                    return cwd
    except OSError:
        return None
    return None


def discover(project: Path, since_ts: float | None = None) -> list[tuple[str, Path]]:
    """(agent, path) of the PROJECT's sessions: Claude Code's project folders for the project and the folders of
    sessions started below it (their transcripts' cwd says so), sub-agent transcripts excluded; Codex rollouts
    whose cwd is the project or below it; then the project's CLAUDE.local.md. Files last written before
    SINCE_TS (a POSIX time) are left out."""
    project = project.resolve()
    found: list[tuple[str, Path]] = []
    root = claude_home() / "projects"
    own = claude_folder_name(project)
    try:
        folders = [p for p in root.iterdir() if p.name == own or p.name.startswith(own + "-")]
    except OSError:
        folders = []
    for folder in sorted(folders):
        try:
            files = sorted(p for p in folder.glob("*.jsonl") if not p.name.startswith("agent-"))
        except OSError:
            continue
        for path in files:
            if not _fresh(path, since_ts):
                continue
            if folder.name != own and not _inside(_cwd_of(path, "claude"), project):
                continue  # a sibling folder whose name only starts like ours ("/x/proj-2" vs "/x/proj")
            found.append(("claude", path))
    sessions = codex_home() / "sessions"
    if sessions.is_dir():
        for path in sorted(sessions.rglob("rollout-*.jsonl")):
            if _fresh(path, since_ts) and _inside(_cwd_of(path, "codex"), project):
                found.append(("codex", path))
    notes = project / "CLAUDE.local.md"
    if notes.is_file() and _fresh(notes, since_ts):
        found.append(("notes", notes))
    return found


def _fresh(path: Path, since_ts: float | None) -> bool:
    if since_ts is None:
        return True
    try:
        return path.stat().st_mtime >= since_ts
    except OSError:
        return False


def sniff(path: Path) -> str:
    """Which reader a file named on the command line needs: notes (markdown), codex or claude (by its first line)."""
    if path.suffix.lower() in (".md", ".markdown", ".txt"):
        return "notes"
    first = _first_line(path)
    try:
        entry = json.loads(first) if first.strip() else {}
    except ValueError:
        return "claude"
    if isinstance(entry, dict) and (entry.get("type") in ("session_meta", "response_item", "turn_context")
                                    or ("payload" in entry and "timestamp" in entry)
                                    or ("instructions" in entry and "id" in entry)):
        return "codex"
    return "claude"


READERS = {"claude": read_claude, "codex": read_codex, "notes": read_notes}
