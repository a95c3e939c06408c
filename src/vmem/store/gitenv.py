"""The one environment every git process vmem starts gets: the caller's, without what points git elsewhere.

vmem names its repository itself (`git -C ROOT`, `--git-dir`), and libgit2 (pygit2) ignores these variables
altogether, so a git child must ignore them too, or it reads and writes another repository than the one vmem
means: a GIT_INDEX_FILE left set by a hook stages vmem's files into someone else's index, a GIT_OBJECT_DIRECTORY
makes `git update-index --add` or `git pull` write the store's objects elsewhere (a pull that did would leave the
store's branch on a commit whose objects it lacks), a GIT_DIR turns every call to another repository.

REDIRECTS is git's own list of the variables local to a repository (`git rev-parse --local-env-vars`, what git
clears before it starts a git process in another repository), less GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT and
GIT_NO_REPLACE_OBJECTS, plus GIT_NAMESPACE and GIT_QUARANTINE_PATH:
- GIT_CONFIG_PARAMETERS / GIT_CONFIG_COUNT (`git -c`, or GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n as a CI sets them
  for credentials) are settings the user means for every repository, and point nowhere: dropping them would lose
  a credential helper or an auth header that `vmem sync --pull` needs. GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM and
  GIT_CONFIG_NOSYSTEM stay for the same reason. GIT_CONFIG itself goes: it replaces the repository's own config
  file for `git config`, which is how vmem reads the store's configuration without pygit2.
- GIT_NO_REPLACE_OBJECTS can only make git read the objects that are really there; callers that read objects
  set it (EXTRA) so git reads what libgit2 reads.
- GIT_NAMESPACE moves every ref (HEAD included) into a namespace; GIT_QUARANTINE_PATH (set in a pre-receive hook)
  names a temporary object directory and makes git refuse to update refs.
- GIT_CEILING_DIRECTORIES and GIT_DISCOVERY_ACROSS_FILESYSTEM stay: they only limit the search upwards for a
  repository, and vmem always names the store's root, where git finds .git before it searches.

Standard library only (`os`): vmem.store.stage loads it when it runs as `python -I -S stage.py`.
"""

from __future__ import annotations

import os

REDIRECTS = frozenset((
    "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_PREFIX",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH",
    "GIT_NAMESPACE", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE", "GIT_REPLACE_REF_BASE",
    "GIT_CONFIG", "GIT_INTERNAL_SUPER_PREFIX",
))


# the transports git may use for a store's remote, after the user's own url.<base>.insteadOf rewrites (never ext::)
ALLOWED_PROTOCOLS = "https:http:ssh:git:file"


def scrubbed_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without REDIRECTS, then EXTRA set on top: what every git child of vmem gets."""
    env = {k: v for k, v in os.environ.items() if k not in REDIRECTS}
    if extra:
        env.update(extra)
    return env
