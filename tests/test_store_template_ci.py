"""The git host is the server (SPEC 15, issue 27): every store `vmem init` makes carries CI for GitHub Actions and
GitLab CI that runs `vmem check --governance` on pushes and pull/merge requests with full history, and the
protected-branch recipe in its README. The CI files are not only parsed: the shell lines each one runs are executed
(the install line swapped for the vmem already installed) in a fresh clone of a real store, as a runner would, and
must pass a clean store and fail one where a non-reviewer hand-committed an approval."""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ALICE, REVIEWER, git
from ruamel.yaml import YAML

from vmem import DISTRIBUTION, model
from vmem.ops.init import template_dir

RITA = f"{REVIEWER[0]} <{REVIEWER[1]}>"
GITHUB = ".github/workflows/vmem.yml"
GITLAB = ".gitlab-ci.yml"
INSTALL = re.compile(r"\bpipx? install\b|\bpip install\b")  # the lines a runner needs to get vmem at all
VMEM_BIN = Path(sys.executable).parent  # where the vmem under test is installed: CI's `pipx install` stands for it


def _load(path: Path) -> dict:
    # YAML 1.2, as GitHub and GitLab read it (PyYAML's 1.1 would turn the key `on` into True)
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def _github_job(store: Path) -> dict:
    jobs = _load(store / GITHUB)["jobs"]
    assert len(jobs) == 1
    return next(iter(jobs.values()))


def _gitlab_job(store: Path) -> dict:
    config = _load(store / GITLAB)
    jobs = {name: job for name, job in config.items() if isinstance(job, dict) and "script" in job}
    assert len(jobs) == 1
    return next(iter(jobs.values()))


def _github_runs(store: Path) -> list[tuple[str, dict]]:
    """(script, env) of every `run:` step of the job, in order."""
    return [(step["run"], step.get("env") or {}) for step in _github_job(store)["steps"] if "run" in step]


def _gitlab_script(store: Path) -> list[str]:
    return list(_gitlab_job(store)["script"])


@pytest.fixture
def fresh(tmp_path, vmem) -> Path:
    """A store as `vmem init --reviewer` makes it; Rita is its reviewer, Alice (the git identity) is not."""
    path = tmp_path / "store"
    vmem("init", str(path), "--reviewer", REVIEWER[1])
    return path


def _propose(vmem, store: Path, text: str) -> str:
    return vmem.json("propose", text, "--store", str(store), who=f"{ALICE[0]} <{ALICE[1]}>")["data"]["item"]["id"]


def _hand_approve(store: Path, item_id: str) -> str:
    """What an analyst could do in any clone: sed the status to approved and `git commit` it (as Alice)."""
    path = store / model.item_path(item_id)
    path.write_text(re.sub(r"(?m)^status: \S+$", "status: approved", path.read_text()))
    env = {**os.environ, "GIT_AUTHOR_NAME": ALICE[0], "GIT_AUTHOR_EMAIL": ALICE[1], "GIT_COMMITTER_NAME": ALICE[0],
           "GIT_COMMITTER_EMAIL": ALICE[1]}
    subprocess.run(["git", "-C", str(store), "commit", "-qam", "approve"], check=True, env=env)
    return subprocess.run(["git", "-C", str(store), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def _checkout(store: Path, where: Path) -> Path:
    """What a runner has: a full clone (fetch-depth 0 / GIT_DEPTH 0), HEAD detached, no merge driver registered."""
    subprocess.run(["git", "clone", "-q", "--no-local", str(store), str(where)], check=True)
    subprocess.run(["git", "-C", str(where), "checkout", "-q", "--detach"], check=True)
    return where


def _run_ci(lines: list[str], checkout: Path, tmp_path: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the CI's own shell lines in CHECKOUT as a runner would (bash -e: the first failing line fails the job),
    in a machine of its own: an empty HOME (no git identity, no keys), a fresh cache, vmem on PATH."""
    home = tmp_path / f"runner-home-{len(list(tmp_path.glob('runner-home-*')))}"
    home.mkdir()
    runner = {"PATH": os.pathsep.join([str(VMEM_BIN), os.environ["PATH"]]), "HOME": str(home),
              "XDG_CACHE_HOME": str(home / ".cache"), "XDG_CONFIG_HOME": str(home / ".config"),
              "XDG_DATA_HOME": str(home / ".local" / "share"), "GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1",
              "VMEM_WIDTH": "200", "LANG": "C.UTF-8"}
    return subprocess.run(["bash", "-eo", "pipefail", "-c", "\n".join(lines)], cwd=checkout, text=True,
                          capture_output=True, env={**runner, **{k: str(v) for k, v in (env or {}).items()}},
                          timeout=120)


def _ci_variants(store: Path) -> dict[str, tuple[list[str], dict]]:
    """Each CI file's shell lines without the install line, and the environment it sets for them."""
    github_lines, github_env = [], {}
    for script, env in _github_runs(store):
        if INSTALL.search(script):
            continue
        github_lines.append(script)
        github_env.update(env)
    gitlab = _gitlab_job(store)
    gitlab_lines = [line for line in _gitlab_script(store) if not INSTALL.search(line)]
    return {"github": (github_lines, github_env), "gitlab": (gitlab_lines, dict(gitlab.get("variables") or {}))}


# -- what vmem init ships ------------------------------------------------------------------------------------------


def test_init_commits_both_ci_files_and_the_recipe_and_check_stays_clean(fresh, vmem):
    files = set(subprocess.run(["git", "-C", str(fresh), "ls-files"], check=True, capture_output=True,
                               text=True).stdout.split())
    assert {GITHUB, GITLAB} <= files  # in vmem init's one commit, not left untracked
    assert subprocess.run(["git", "-C", str(fresh), "status", "--porcelain", "--untracked-files=all"],
                          check=True, capture_output=True, text=True).stdout == ""
    readme = (fresh / "README.md").read_text()
    recipe = readme[readme.index("## Protected branch recipe"):]
    for phrase in (GITHUB, GITLAB, "vmem check --governance", f"pipx install\n{DISTRIBUTION}", "vmem/proposals/*",
                   "vmem/proposals/<writer>", "vmem review", "Require status checks to pass", "Block force pushes",
                   "Protected branches", "Allowed to push and merge", "Maintainers", "Pipelines\n  must succeed",
                   "require_signed: true", "signing_keys:", "gpg.format", "`ssh`", "`openpgp`", "`x509`"):
        assert phrase in recipe, phrase
    # the new top-level files are nothing vmem reads: check (and its audit) has nothing to say about them
    for args in (["check"], ["check", "--governance"]):
        data = vmem.json(*args, "--store", str(fresh))["data"]
        assert data["errors"] == [] and data["warnings"] == []


def test_the_ci_audits_pushes_and_review_requests_with_full_history(fresh):
    # GitHub Actions: on every push (every branch, vmem/proposals/* included) and pull request
    workflow = _load(fresh / GITHUB)
    triggers = workflow["on"]
    assert {"push", "pull_request"} <= set(triggers)
    for event in ("push", "pull_request"):  # not narrowed to some branches or paths
        assert not (triggers[event] or {}), event
    job = _github_job(fresh)
    assert job["name"] == "vmem check --governance"  # the status check the README says to require
    assert not job.get("continue-on-error") and "if" not in job
    steps = job["steps"]
    uses = [step.get("uses") for step in steps]
    assert uses[:2] == ["actions/checkout@v4", "actions/setup-python@v5"]  # pinned by major version
    assert steps[0]["with"]["fetch-depth"] == 0  # full history: the audit replays it
    version = str(steps[1]["with"]["python-version"])
    assert tuple(int(part) for part in version.split(".")[:2]) >= (3, 11)
    runs = [script for script, _ in _github_runs(fresh)]
    # the project's real install line, before the check; a repository variable pins or replaces it
    assert runs[0] == f'pipx install "${{VMEM_INSTALL:-{DISTRIBUTION}}}"'
    assert _github_runs(fresh)[0][1]["VMEM_INSTALL"] == "${{ vars.VMEM_INSTALL }}"
    assert len(runs) == 2 and runs[1].startswith("vmem check --governance --store .")
    assert not any(step.get("continue-on-error") for step in steps)

    # GitLab CI: merge request pipelines, and branch pipelines for every other push
    config = _load(fresh / GITLAB)
    sources = [rule.get("if", "") for rule in config["workflow"]["rules"] if rule.get("when") != "never"]
    assert any('$CI_PIPELINE_SOURCE == "merge_request_event"' in rule for rule in sources)
    assert "$CI_COMMIT_BRANCH" in sources  # a bare branch rule: every branch push
    job = _gitlab_job(fresh)
    assert not {"rules", "only", "except", "allow_failure", "when"} & set(job)  # runs in every pipeline, and counts
    assert str(job["variables"]["GIT_DEPTH"]) == "0"  # full history
    image = re.fullmatch(r"python:(\d+)\.(\d+)", job["image"])
    assert image and (int(image[1]), int(image[2])) >= (3, 11)
    script = _gitlab_script(fresh)
    assert job["variables"]["VMEM_INSTALL"] == DISTRIBUTION  # a project CI/CD variable of that name overrides it
    assert 'pipx install "$VMEM_INSTALL"' in script
    assert script.index('pipx install "$VMEM_INSTALL"') < len(script) - 1
    assert script[-1].startswith("vmem check --governance --store .")
    assert "before_script" not in job and "after_script" not in job


# -- the lines they run, run: the CI fails closed --------------------------------------------------------------


@pytest.mark.parametrize("host", ["github", "gitlab"])
def test_the_ci_lines_pass_a_clean_store_and_fail_a_hand_made_approval(fresh, vmem, tmp_path, host):
    lines, env = _ci_variants(fresh)[host]
    assert lines and all("vmem check --governance" in line for line in lines)
    assert not any("${{" in line for line in lines)  # nothing the host would have to expand first

    # clean: an analyst's proposal, and an approval Rita made with vmem itself
    approved = _propose(vmem, fresh, "invoices are issued in UTC")
    vmem("approve", approved, "--store", str(fresh), who=RITA)
    _propose(vmem, fresh, "orders ship from Rotterdam")
    done = _run_ci(lines, _checkout(fresh, tmp_path / f"{host}-clean"), tmp_path, env)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "store is valid" in done.stdout

    # an analyst seds a proposal to approved and commits it: the job fails, naming the file and the commit
    forged_item = _propose(vmem, fresh, "refunds post within 2 days")
    forged = _hand_approve(fresh, forged_item)
    done = _run_ci(lines, _checkout(fresh, tmp_path / f"{host}-forged"), tmp_path, env)
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert f"{model.item_path(forged_item)}: status approved is not attested" in done.stdout
    assert forged[:10] in done.stdout


def test_the_ci_audits_the_checkout_even_when_a_committed_project_config_names_another_store(fresh, vmem,
                                                                                            tmp_path):
    """A `.vmem.yaml` committed into the store (a project config naming another store, e.g. a clean one by URL)
    must not move the audit elsewhere: the CI lines check the checkout itself (`--store .`)."""
    forged_item = _propose(vmem, fresh, "refunds post within 2 days")
    _hand_approve(fresh, forged_item)
    (fresh / ".vmem.yaml").write_text("store:\n  path: ../clean\n")
    git_env = {**os.environ, "GIT_COMMITTER_NAME": ALICE[0], "GIT_COMMITTER_EMAIL": ALICE[1]}
    subprocess.run(["git", "-C", str(fresh), "add", ".vmem.yaml"], check=True, env=git_env)
    subprocess.run(["git", "-C", str(fresh), "commit", "-qm", "project config"], check=True, env=git_env)
    for host, (lines, env) in _ci_variants(fresh).items():
        checkout = _checkout(fresh, tmp_path / host / "checkout")
        vmem("init", str(checkout.parent / "clean"), "--reviewer", REVIEWER[1])  # the decoy beside the checkout
        done = _run_ci(lines, checkout, tmp_path, env)
        assert done.returncode != 0, (host, done.stdout, done.stderr)
        assert f"{model.item_path(forged_item)}: status approved is not attested" in done.stdout


# -- what the installed package ships ------------------------------------------------------------------------


def test_the_package_data_globs_ship_every_template_file():
    """`vmem init` from an installed wheel copies what setuptools packaged, which is what package-data's globs
    match (glob.glob, recursive: `**` does not enter hidden directories)."""
    root = Path(__file__).resolve().parents[1]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["vmem"]
    package = root / "src" / "vmem"
    shipped = {Path(found).relative_to(package).as_posix()
               for pattern in patterns for found in glob.glob(str(package / pattern), recursive=True)
               if os.path.isfile(found)}
    template = template_dir()
    wanted = {("store_template" / path.relative_to(template)).as_posix()
              for path in template.rglob("*") if path.is_file()}
    assert f"store_template/{GITHUB}" in wanted and f"store_template/{GITLAB}" in wanted
    assert wanted <= shipped, sorted(wanted - shipped)


@pytest.mark.parametrize("host", ["github", "gitlab"])
def test_the_install_line_takes_the_teams_pin_and_defaults_to_the_distribution(fresh, tmp_path, host):
    """The install line, run by bash with a stand-in pipx that records what it was asked to install: the
    distribution by default, the CI variable VMEM_INSTALL where the team set one."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pipx").write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$PIPX_ARGS"\n')
    (bin_dir / "pipx").chmod(0o755)
    if host == "github":
        line, env = _github_runs(fresh)[0]
        env = {key: "" for key in env}  # an unset repository variable expands to the empty string
    else:
        job = _gitlab_job(fresh)
        line, env = next(s for s in job["script"] if "pipx install" in s), dict(job["variables"])
    for pin in (None, "vmem-cli==0.1.0"):
        got = tmp_path / f"args-{host}-{pin}"
        run_env = {**env, **({"VMEM_INSTALL": pin} if pin else {})}
        subprocess.run(["bash", "-c", line], check=True, env={"PATH": f"{bin_dir}:{os.environ['PATH']}",
                                                               "PIPX_ARGS": str(got), **run_env})
        assert got.read_text().split("\n")[:2] == ["install", pin or DISTRIBUTION]
