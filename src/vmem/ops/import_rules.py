"""vmem import: a team's existing agent rules (CLAUDE.md, AGENTS.md, .claude/rules/**, .cursor/rules/**) become
*proposals* in one commit, so a team starts from what it has and reviews it like any other proposal.

Bullet points become facts; a section without bullets becomes one fact titled by its heading. Path frontmatter
(`paths:` in Claude rules, `globs:` in Cursor rules) becomes the fact's paths. vmem's own generated files and its
AGENTS.md section are skipped; a statement already in the store (same canonical text, any claim) is reported,
not copied. Files are read without following symlinks, only inside the project.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from vmem.errors import UsageError, VmemError

SOURCES = ("CLAUDE.md", "AGENTS.md", ".claude/rules/**/*.md", ".cursor/rules/**/*.mdc", ".cursor/rules/**/*.md")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*\S)\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
MIN_WORDS = 3


def find_sources(project: Path) -> list[Path]:
    found: list[Path] = []
    for pattern in SOURCES:
        found += sorted(project.glob(pattern))
    return list(dict.fromkeys(found))


def _frontmatter(text: str) -> tuple[list[str], str]:
    """(paths from `paths:` or `globs:`, the text after the frontmatter); never evaluated as YAML (Cursor's
    globs are not valid YAML)."""
    if not text.startswith("---\n"):
        return [], text
    end = text.find("\n---", 4)
    if end < 0:
        return [], text
    head, body = text[4:end], text[end + 4:].split("\n", 1)[-1] if "\n" in text[end + 4:] else ""
    paths: list[str] = []
    key = None
    for line in head.splitlines():
        match = re.match(r"^(\w+):\s*(.*)$", line)
        if match:
            key, value = match.group(1), match.group(2).strip()
            if key in ("paths", "globs") and value:
                paths += [p.strip().strip("'\"") for p in value.strip("[]").split(",") if p.strip().strip("'\"")]
        elif key in ("paths", "globs") and line.strip().startswith("- "):
            paths.append(line.strip()[2:].strip().strip("'\""))
    return paths, body


def parse(text: str) -> list[dict]:
    """Candidate facts in a rules file: {statement, title, paths}."""
    from vmem.targets.agents_md import END, START

    if "<!-- vmem:" in text[:4096] and "<!-- vmem:start" not in text:
        return []  # a file vmem generated
    paths, text = _frontmatter(text)
    out: list[dict] = []
    heading, paragraph, bullets_here, fenced, in_vmem = None, [], False, False, False

    def flush_paragraph() -> None:
        if paragraph and not bullets_here and heading:
            out.append({"statement": " ".join(paragraph), "title": heading, "paths": paths})
        paragraph.clear()

    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(START):
            in_vmem = True
        if in_vmem:
            in_vmem = line.rstrip() != END
            continue
        if line.lstrip().startswith("```"):
            fenced = not fenced
            current = None
            continue
        if fenced:
            continue
        match = _HEADING.match(line)
        if match:
            flush_paragraph()
            heading, bullets_here, current = match.group(2).strip("# "), False, None
            continue
        match = _BULLET.match(line)
        if match:
            bullets_here = True
            paragraph.clear()
            current = [match.group(2)]
            out.append({"statement": current, "title": None, "paths": paths})
            continue
        if not line.strip():
            flush_paragraph()
            current = None
        elif current is not None and line.startswith((" ", "\t")):
            current.append(line.strip())  # a bullet's continuation
        else:
            current = None
            paragraph.append(line.strip())
    flush_paragraph()
    facts = []
    for fact in out:
        statement = fact["statement"] if isinstance(fact["statement"], str) else " ".join(fact["statement"])
        statement = " ".join(statement.split())
        if len(statement.split()) >= MIN_WORDS:
            facts.append({**fact, "statement": statement})
    return facts


def import_rules(store, project: Path, files: list[str] | None = None, dry_run: bool = False) -> dict:
    from vmem import model
    from vmem.confidence import base_confidence
    from vmem.ops.common import expires_at
    from vmem.ops.writer import read_regular
    from vmem.text import canonicalize

    project = project.absolute()
    sources = [project / f for f in files] if files else find_sources(project)
    facts: list[dict] = []
    skipped: list[str] = []
    for path in sources:
        path = Path(os.path.normpath(path))
        try:
            rel = path.relative_to(project)
            path.parent.resolve().relative_to(project.resolve())  # no directory symlink leads out either
        except ValueError:
            if not files:  # found through a symlinked directory: skipped like a symlinked file, never followed
                skipped.append(os.path.relpath(path, project))
                continue
            raise UsageError(f"{path} is outside the project {project}", "import files inside the project") from None
        data = read_regular(path, 1_000_000)
        if data is None and files:
            raise UsageError(f"{rel} is not a regular file (missing, a symlink or a directory)",
                             "name rules files inside the project")
        if data is None:
            skipped.append(rel.as_posix())  # found by the search but not a plain file: never followed
            continue
        for fact in parse(data.decode("utf-8", "replace")):
            facts.append({**fact, "source": rel.as_posix()})
    try:
        viewer = store.identity().email
    except VmemError:
        viewer = None  # no git identity yet (a dry run): nobody's personal claim is one's own
    # another person's personal claim is theirs alone: it neither blocks an import nor reveals its id (c78f143)
    known = {canonicalize(loaded.item["statement"]): loaded.item["id"] for loaded in store.head().items(("claim",))
             if loaded.item is not None and (not loaded.item.get("personal")
                                             or (loaded.item.get("source") or {}).get("user") == viewer)}
    new, duplicates, seen = [], [], set()
    for fact in facts:
        canonical = canonicalize(fact["statement"])
        if canonical in known:
            duplicates.append({"statement": fact["statement"], "source": fact["source"], "existing": known[canonical]})
        elif canonical not in seen and len(fact["statement"]) <= 4000:
            seen.add(canonical)
            new.append(fact)
    result = {"sources": sorted({f["source"] for f in facts}),
              "skipped": skipped, "proposed": [], "duplicates": duplicates, "commit": None}
    if dry_run or not new:
        result["proposed"] = [{"id": None, **f} for f in new]
        return result
    author = store.identity()
    klass = store.policy["claims"]["default_class"]
    with store.transaction("propose") as tx:
        now = model.now()
        for fact in new:
            item = model.validate("claim", {
                "id": model.new_id("claim"), "kind": "claim",
                "title": " ".join(fact["title"].split())[:200] if fact["title"] else None,
                "statement": fact["statement"], "scope": "org", "class": klass, "domain": None, "categories": [],
                "paths": fact["paths"], "status": "proposed", "audience": "all", "personal": False,
                "source": {"type": "analyst", "user": author.email, "episode": None},
                "confidence": base_confidence("analyst"), "created_at": now, "valid_from": now,
                "expires_at": expires_at(store.policy, klass, now), "supersedes": None}, fact["source"])
            tx.write(item)
            result["proposed"].append({"id": item["id"], **fact})
        tx.message.items = [p["id"] for p in result["proposed"]]
        tx.message.summary = f"import {len(new)} rules from {', '.join(sorted({f['source'] for f in new}))}"
    result["commit"] = tx.commit_id
    return result
