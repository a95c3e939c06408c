"""Talking to the store's remote with git itself (no shell, bounded in time, nothing left running)."""

from __future__ import annotations

import os
from pathlib import Path


_NETWORK = ("https://", "ssh://")  # with scp-like user@host:path: the transports a store URL may name
from vmem.store.gitenv import ALLOWED_PROTOCOLS as _ALLOWED_PROTOCOLS  # noqa: E402 - a leaf, standard library


def _scp_like(value: str) -> bool:
    import re

    return bool(re.match(r"[\w.-]+@[\w.-]+:", value))


def is_url(value: str) -> bool:
    """A URL (scheme://…, file:… or scp-like user@host:path), as opposed to a path on this machine; whether vmem
    fetches from it is check_url's question."""
    import re

    return bool(re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", value)) or value[:5].lower() == "file:" or _scp_like(value)


def check_url(value: str) -> str:
    """A store URL that git may fetch without running anything and without reading this machine's files: a
    network transport (https://, ssh://, scp-like user@host:path), so no file://, no local path and no ext::
    (a URL in a teammate's commit must not reach the user's other stores), no option smuggled as an argument,
    one line, no control characters. Mapping a URL to a local mirror stays the user's own choice, in their git
    config (url.<base>.insteadOf)."""
    from vmem.errors import UsageError

    import re

    hint = "use https://, ssh:// or user@host:path (your own git config may map it to a local mirror with " \
           "url.<base>.insteadOf)"
    if not isinstance(value, str):
        raise UsageError(f"store URL {value!r} is not one vmem fetches from", hint)
    if len(value) <= 2000 and (value[:5].lower() == "file:" or not (is_url(value) or "::" in value)):
        raise UsageError(f"store URL {value!r} names a place on this machine; vmem fetches a store only over the "
                         "network", hint)
    if (not (value.startswith(_NETWORK) or _scp_like(value)) or value.startswith("-") or len(value) > 2000
            or any(not ch.isprintable() or ch.isspace() for ch in value)
            # a user or host that reads as an option (ssh://-oProxyCommand=…): git blocks it too, refuse it first
            or any(part.startswith("-") for part in re.split(r"[@:]", value.split("://", 1)[-1].split("/", 1)[0]))):
        raise UsageError(f"store URL {value!r} is not one vmem fetches from", hint)
    if _climbs(value):
        raise UsageError(f"store URL {value!r} has a '.' or '..' segment in its path: after the user's own "
                         "url.<base>.insteadOf it could climb out of the place that names (to another store on "
                         "this machine)", "name the repository by its plain path, e.g. "
                         "https://git.example.com/team/memory.git")
    return value


def _climbs(value: str) -> bool:
    """VALUE, percent-decoded until nothing changes (git decodes a file: URL once; a mirror's server may again),
    has a '.' or '..' segment between '/', '\\' or ':' (scp-like host:path): git rewrites a URL by its prefix
    before anything normalises it, so `https://host/team/../../x` under `insteadOf = https://host/team/` is a path
    two levels above the user's mirror. The URL is judged as normalised, not rewritten: no such segment at all."""
    import re
    from urllib.parse import unquote

    for _ in range(8):
        decoded = unquote(value)
        if decoded == value:
            break
        value = decoded
    return any(part in (".", "..") for part in re.split(r"[/\\:]", value.split("://", 1)[-1]))


def _userinfo(value: str):
    import re

    return re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/@]*)@", value)


def has_credentials(value: str) -> bool:
    """A URL carrying a secret: any user part on http(s) (a token is often passed as the user name), a
    password on any transport."""
    found = _userinfo(value)
    return found is not None and (found.group(1).lower() in ("http", "https") or ":" in found.group(2))


def without_credentials(value: str) -> str:
    """VALUE with its secret removed: no user part on http(s), no password elsewhere (ssh://git@ stays)."""
    found = _userinfo(value)
    if found is None or not has_credentials(value):
        return value
    scheme, user, rest = found.group(1), found.group(2).split(":", 1)[0], value[found.end():]
    return f"{scheme}://{rest}" if scheme.lower() in ("http", "https") else f"{scheme}://{user}@{rest}"


def data_home() -> Path:
    """vmem's user data directory (platformdirs' answer on Linux without importing it)."""
    import sys

    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_DATA_HOME", "").strip()
        return Path(base if base else os.path.expanduser("~/.local/share")) / "vmem"
    from platformdirs import user_data_dir

    return Path(user_data_dir("vmem"))


def mirror_path(url: str) -> Path:
    import hashlib

    return data_home() / "stores" / hashlib.sha256(url.encode()).hexdigest()[:16]


def _git_env() -> dict[str, str]:
    """The scrubbed environment (vmem.store.gitenv), never prompting, limited to the network transports."""
    from vmem.store.gitenv import scrubbed_env

    return scrubbed_env({"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "",
                         "GIT_ALLOW_PROTOCOL": _ALLOWED_PROTOCOLS})


def mirror(url: str, timeout_s: float = 5.0) -> tuple[Path | None, str | None]:
    """The user's clone of the store at URL, fast-forwarded: (its path, a warning). Offline or failing: the
    last good state with a warning; never cloned yet and unreachable: (None, why)."""
    import shutil

    from vmem.process import run_bounded

    check_url(url)
    path = mirror_path(url)
    if (path / "vmem.yaml").is_file() and (path / ".git").is_dir():
        from vmem.store.deliver import catch_up  # what waits goes first; a diverged clone is replayed, never frozen

        return path, "; ".join(catch_up(path, path / ".git", timeout_s)) or None
    git = shutil.which("git")
    if git is None:
        return None, "git is not installed, so the store cannot be cloned"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    done = run_bounded([git, "-c", "protocol.ext.allow=never", "clone", "--quiet", "--", url, str(tmp)],
                       timeout_s=timeout_s * 3, env=_git_env(), max_output=256_000)
    if done.outcome != "exited" or done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines() if done.stderr else []
        return None, f"cannot clone the store from {url} ({(lines or [done.detail or done.outcome])[-1]})"
    if not (tmp / "vmem.yaml").is_file():  # e.g. the remote's HEAD names a branch nobody pushed
        shutil.rmtree(tmp, ignore_errors=True)
        return None, (f"cloned {url}, but its default branch holds no vmem.yaml (does the remote's HEAD name the "
                      "store's branch? push it: git push -u origin main)")
    _as_a_store_clone(tmp)
    try:
        os.rename(tmp, path)
    except OSError:  # another session cloned it meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
    return path, None


def _as_a_store_clone(path: Path) -> None:
    """What `vmem clone` does to a clone: vmem's merge driver registered (a replay settles two edits of one item),
    the store's identity pinned in the clone's own config (SPEC 12)."""
    import pygit2

    from vmem.store import mergedriver
    from vmem.store.attest import pin_identity

    try:
        repo = pygit2.Repository(str(path))
        mergedriver.register(repo)
        pin_identity(repo)
    except Exception:  # noqa: BLE001 - a clone that cannot be read is reported by the command that opens it
        pass


def origin_url(root: Path) -> str | None:
    """The store's origin URL, when it is one a teammate could clone from too (else None)."""
    import pygit2

    from vmem.errors import UsageError

    try:
        return check_url(pygit2.Repository(str(root)).remotes["origin"].url)
    except (KeyError, ValueError, TypeError, pygit2.GitError, UsageError):
        return None


def status(root: Path) -> dict:
    """Store, remote, ahead/behind (against the remote-tracking refs, which `vmem status` fetches first) and what
    waits for delivery."""
    from vmem.store.deliver import run_git, stdout_of, tracking, waiting, writer_branch

    found = tracking(root)
    if found is None:
        return {"remote": None, "branch": None, "ahead": 0, "behind": 0, "waiting": 0}
    remote, branch, _ = found
    counts = stdout_of(run_git(root, "rev-list", "--left-right", "--count", f"HEAD...refs/remotes/{remote}/{branch}"))
    ahead, behind = (int(n) for n in counts.split()) if len(counts.split()) == 2 else (0, 0)
    # as the team configured it: `git remote get-url` would show what a url.insteadOf rule rewrote it to
    url = stdout_of(run_git(root, "config", "--get", f"remote.{remote}.url"))
    return {"remote": remote, "url": without_credentials(url) if url else None, "branch": branch, "ahead": ahead,
            "behind": behind, "waiting": waiting(root, remote, branch), "proposals": writer_branch(root)}
