"""MkDocs hook: the guide links to files outside docs/ (benchmark logs in bench/results/, their plot, the store's
README template) with relative links, `../bench/results/cold_sync.md`, which GitHub follows as they are. The site
has no such paths, so each linked file is published under `repo/` (Markdown rendered as a page, anything else
copied) and the link points there; links in a published file that lead back into docs/ point at the page.
A link to a file that does not exist is left alone, and `mkdocs build --strict` fails on it as on any other.

It also unescapes `\\|` inside code spans in table rows: GitHub's tables need the backslash there, Python-Markdown's
ignore pipes inside code and would show it (docs/cli.md is generated with them)."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

PREFIX = "repo"
# [text](target) and ![alt](target), an optional "title" after the target
_LINK = re.compile(r'(\]\()([^)\s]+)((?:\s+"[^"]*")?\))')

_CODE = re.compile(r"(`+)(.+?)\1")

_published: dict[Path, str] = {}  # repository file -> its src_uri in the site


def _targets(source: Path, text: str):
    """(match, resolved path) for each relative link in TEXT, a file at SOURCE."""
    for match in _LINK.finditer(text):
        target = match.group(2)
        if target.startswith(("#", "/")) or "://" in target or target.startswith("mailto:"):
            continue
        path = target.split("#", 1)[0]
        if path:
            yield match, (source.parent / path).resolve()


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def on_files(files, config):
    docs = Path(config["docs_dir"]).resolve()
    root = Path(config["config_file_path"]).resolve().parent
    _published.clear()
    queue = [Path(f.abs_src_path) for f in files.documentation_pages()]
    while queue:
        source = queue.pop()
        for _, path in _targets(source, source.read_text(encoding="utf-8")):
            if _inside(path, docs) or not _inside(path, root) or not path.is_file() or path in _published:
                continue
            uri = posixpath.join(PREFIX, path.relative_to(root).as_posix())
            _published[path] = uri
            files.append(_file(config, uri, path))
            if path.suffix == ".md":
                queue.append(path)
    return files


def _file(config, uri: str, path: Path) -> File:
    if hasattr(File, "generated"):  # MkDocs 1.6
        from mkdocs.structure.files import InclusionLevel
        return File.generated(config, uri, abs_src_path=str(path), inclusion=InclusionLevel.NOT_IN_NAV)
    made = File(uri, str(path.parent), config["site_dir"], config["use_directory_urls"])  # MkDocs 1.5
    made.abs_src_path = str(path)
    return made


def on_page_markdown(markdown, page, config, files):
    docs = Path(config["docs_dir"]).resolve()
    here = posixpath.dirname(page.file.src_uri)
    source = Path(page.file.abs_src_path)

    def point(match, path):
        if path in _published:
            uri = _published[path]
        elif page.file.src_uri.startswith(PREFIX + "/") and _inside(path, docs):
            uri = path.relative_to(docs).as_posix()
        else:
            return match.group(0)
        fragment = match.group(2)[len(match.group(2).split("#", 1)[0]):]
        return match.group(1) + posixpath.relpath(uri, here or ".") + fragment + match.group(3)

    resolved = {match.start(): path for match, path in _targets(source, markdown)}
    markdown = _LINK.sub(lambda m: point(m, resolved[m.start()]) if m.start() in resolved else m.group(0), markdown)
    return "\n".join(_unescape_pipes(line) if line.startswith("|") else line for line in markdown.split("\n"))


def _unescape_pipes(row: str) -> str:
    return _CODE.sub(lambda m: m.group(1) + m.group(2).replace("\\|", "|") + m.group(1), row)
