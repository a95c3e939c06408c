"""A signature binds to a reviewer (SPEC 12): with require_signed, only a key the attested policy lists for the
reviewer (signing_keys) signs for them. Issue 28, attack 3: a hand-set approval with the reviewer's e-mail as
committer, signed with an analyst's own (good, known) key, must grant nothing. Each test makes the attack with
real keys and real git first, then checks what sync, recall and check make of it."""

from __future__ import annotations

import contextlib
import shutil
import subprocess

from pathlib import Path

import pytest
from conftest import ALICE, REVIEWER, commit_count, commit_file, git, gnupg_home
from test_trust import RITA, _hand_commit, _policy, _set_status, _synced

from vmem import model

ALICE_WHO = f"{ALICE[0]} <{ALICE[1]}>"


def _approve_message(claim: str) -> str:
    return f"vmem: approve {claim}\n\nVmem-Action: approve\nVmem-Item: {claim}\n"


@contextlib.contextmanager
def _git_config(monkeypatch, **config):
    """Config for the `git` that _hand_commit runs (GIT_CONFIG_COUNT), as `git -c key=value` would give it."""
    with monkeypatch.context() as patch:
        patch.setenv("GIT_CONFIG_COUNT", str(len(config)))
        for n, (key, value) in enumerate(config.items()):
            patch.setenv(f"GIT_CONFIG_KEY_{n}", key.replace("_", "."))
            patch.setenv(f"GIT_CONFIG_VALUE_{n}", value)
        yield


def _signed_by(monkeypatch, key: str, fmt: str = "openpgp"):
    return _git_config(monkeypatch, commit_gpgsign="true", user_signingkey=key, gpg_format=fmt)


def _refused(vmem) -> list[dict]:
    return [e for e in vmem.json("check", "--governance", code=1)["data"]["errors"] if e["path"].startswith("commit ")]


# -- keys ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def ssh_keys(tmp_path):
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    folder = tmp_path / "ssh"
    folder.mkdir(mode=0o700)

    def make(name: str) -> tuple[str, str]:
        """(private key path, public key line)"""
        path = folder / name
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{name}@laptop", "-f", str(path)],
                       check=True, capture_output=True)
        return str(path), (folder / f"{name}.pub").read_text().strip()
    return make


# -- the attack, per signature format ----------------------------------------------------------------------------


def test_openpgp_a_good_signature_by_an_analysts_key_does_not_sign_for_the_reviewer(seeded, vmem, tmp_path, gnupg,
                                                                                    monkeypatch):
    rita, alice = gnupg(RITA), gnupg(ALICE_WHO)
    git(seeded, "config", "user.signingkey", alice)  # vmem signs Alice's own commits with her key
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={REVIEWER[1]: [rita]}),
                 who=RITA)
    claim = vmem.json("propose", "refunds post within two days", store=seeded)["data"]["item"]["id"]
    # attack: Rita's e-mail as committer, Alice's key (a good signature, her key is in the keyring)
    with _signed_by(monkeypatch, alice):
        forged = _set_status(seeded, claim, "approved", who=RITA, message=_approve_message(claim))
    assert "Good signature" in subprocess.run(["git", "-C", str(seeded.root), "verify-commit", forged],
                                              capture_output=True, text=True).stderr
    assert "refunds post within two days" not in _synced(vmem, tmp_path)
    ids = [row["id"] for row in vmem.json("recall", "refunds post within two days", "-k", "20")["data"]["results"]]
    assert claim not in ids
    assert vmem.json("show", claim)["data"]["computed"]["attested_status"] == "proposed"
    refused = _refused(vmem)
    assert [e["path"] for e in refused] == [f"commit {forged[:10]}"]
    assert "approve committed by rita@example.com" in refused[0]["message"]
    # Rita's own approval, signed by vmem with her key, is served
    git(seeded, "config", "user.signingkey", rita)
    other = vmem.json("propose", "invoices are numbered per year", store=seeded)["data"]["item"]["id"]
    vmem("approve", other, who=RITA, store=seeded)
    assert "invoices are numbered per year" in _synced(vmem, tmp_path)
    assert [e["path"] for e in _refused(vmem)] == [f"commit {forged[:10]}"]  # nothing new refused


def test_a_forged_policy_change_cannot_list_the_analysts_own_key(seeded, vmem, tmp_path, gnupg, monkeypatch):
    """Once require_signed is on, a policy change is a reviewer's decision too: it must be signed by their key."""
    rita, alice = gnupg(RITA), gnupg(ALICE_WHO)
    git(seeded, "config", "user.signingkey", alice)
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={REVIEWER[1]: [rita]}),
                 who=RITA)
    claim = vmem.json("propose", "quotes are valid for thirty days", store=seeded)["data"]["item"]["id"]
    with _signed_by(monkeypatch, alice):
        policy = _hand_commit(seeded, "vmem.yaml", _policy(seeded, signing_keys={REVIEWER[1]: [rita, alice]}),
                              who=RITA)
        forged = _set_status(seeded, claim, "approved", who=RITA, message=_approve_message(claim))
    assert "quotes are valid for thirty days" not in _synced(vmem, tmp_path)
    errors = vmem.json("check", "--governance", code=1)["data"]["errors"]
    assert any(e["path"] == "vmem.yaml" and policy[:10] in e["message"] for e in errors)
    assert f"commit {forged[:10]}" in [e["path"] for e in errors]


def test_openpgp_a_listed_key_the_keyring_does_not_vouch_for_still_signs(seeded, vmem, tmp_path, gnupg, monkeypatch):
    """A teammate's keyring holds Rita's public key, never certified (gpg: trust unknown, git: %G? U). The policy
    pins the key, and that is the trust decision."""
    rita = gnupg(RITA)
    git(seeded, "config", "user.signingkey", rita)
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={REVIEWER[1]: [rita]}),
                 who=RITA)
    claim = vmem.json("propose", "renewals are billed in advance", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    exported = subprocess.run(["gpg", "--export", rita], check=True, capture_output=True).stdout
    home = gnupg_home("teammate")
    monkeypatch.setenv("GNUPGHOME", str(home))
    try:
        subprocess.run(["gpg", "--batch", "--import"], input=exported, check=True, capture_output=True)
        assert git(seeded, "log", "-1", "--format=%G?%GT") == "Uundefined\n"
        assert "renewals are billed in advance" in _synced(vmem, tmp_path)
    finally:
        subprocess.run([shutil.which("gpgconf") or "gpgconf", "--kill", "all"], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def test_openpgp_a_signing_subkey_of_the_listed_primary_key_signs_for_the_reviewer(seeded, vmem, tmp_path, gnupg):
    rita = gnupg(RITA)
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-add-key", rita, "ed25519", "sign", "never"],
                   check=True, capture_output=True)
    listing = subprocess.run(["gpg", "--batch", "--with-colons", "--list-secret-keys", rita], check=True,
                             capture_output=True, text=True).stdout
    subkey = [line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:")][1]
    git(seeded, "config", "user.signingkey", f"{subkey}!")  # "!": exactly this subkey
    spaced = " ".join(rita[i:i + 4] for i in range(0, 40, 4))  # as gpg prints it: spaces are allowed
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={REVIEWER[1]: [spaced]}),
                 who=RITA)
    claim = vmem.json("propose", "trial seats are never billed", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    assert subkey in git(seeded, "log", "-1", "--format=%GF")
    assert "trial seats are never billed" in _synced(vmem, tmp_path)


def test_ssh_a_good_signature_by_an_analysts_key_does_not_sign_for_the_reviewer(seeded, vmem, tmp_path, ssh_keys,
                                                                                monkeypatch):
    (rita_key, rita_pub), (alice_key, alice_pub) = ssh_keys("rita"), ssh_keys("alice")
    git(seeded, "config", "gpg.format", "ssh")
    git(seeded, "config", "user.signingkey", alice_key)
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={REVIEWER[1]: [rita_pub]}),
                 who=RITA)
    claim = vmem.json("propose", "usage is metered hourly", store=seeded)["data"]["item"]["id"]
    with _signed_by(monkeypatch, alice_key, "ssh"):
        forged = _set_status(seeded, claim, "approved", who=RITA, message=_approve_message(claim))
    signers = tmp_path / "allowed"
    signers.write_text(f"{REVIEWER[1]} {alice_pub}\n")  # the signature is good: only the key is not Rita's
    assert subprocess.run(["git", "-C", str(seeded.root), "-c", f"gpg.ssh.allowedSignersFile={signers}",
                           "verify-commit", forged], capture_output=True).returncode == 0
    assert "usage is metered hourly" not in _synced(vmem, tmp_path)
    assert [e["path"] for e in _refused(vmem)] == [f"commit {forged[:10]}"]
    # Rita's own approval, signed by vmem through ssh-keygen with her key, is served
    git(seeded, "config", "user.signingkey", rita_key)
    other = vmem.json("propose", "exports run at midnight UTC", store=seeded)["data"]["item"]["id"]
    vmem("approve", other, who=RITA, store=seeded)
    assert "-----BEGIN SSH SIGNATURE-----" in git(seeded, "cat-file", "commit", "HEAD")
    assert "exports run at midnight UTC" in _synced(vmem, tmp_path)
    assert [e["path"] for e in _refused(vmem)] == [f"commit {forged[:10]}"]


def test_ssh_vmem_signs_with_a_public_key_file_whose_private_half_is_beside_it(seeded, vmem, tmp_path, ssh_keys):
    rita_key, rita_pub = ssh_keys("rita")
    git(seeded, "config", "gpg.format", "ssh")
    git(seeded, "config", "user.signingkey", f"{rita_key}.pub")
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={REVIEWER[1]: [rita_pub]}),
                 who=RITA)
    claim = vmem.json("propose", "credits expire after a year", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)
    assert "credits expire after a year" in _synced(vmem, tmp_path)


def test_ssh_a_missing_signing_key_is_a_clear_error_and_nothing_is_written(seeded, vmem, tmp_path, ssh_keys):
    _, rita_pub = ssh_keys("rita")
    git(seeded, "config", "gpg.format", "ssh")
    git(seeded, "config", "user.signingkey", str(tmp_path / "nowhere"))
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={REVIEWER[1]: [rita_pub]}),
                 who=RITA)
    before = git(seeded, "rev-parse", "HEAD")
    payload = vmem.json("propose", "a fact never written", code=1)
    assert payload["error"].startswith("could not sign the commit (") and "nothing was written" in payload["error"]
    assert "user.signingkey" in payload["hint"] and "\n" not in payload["error"]
    assert git(seeded, "rev-parse", "HEAD") == before
    git(seeded, "config", "--unset", "user.signingkey")
    payload = vmem.json("propose", "a fact never written", code=1)
    assert "user.signingkey is not set" in payload["error"] and git(seeded, "rev-parse", "HEAD") == before


# -- fail closed -------------------------------------------------------------------------------------------------


def test_a_reviewer_with_no_listed_key_grants_nothing_under_require_signed(seeded, vmem, tmp_path, gnupg):
    rita = gnupg(RITA)
    dara = gnupg("Dara Reviewer <dara@example.com>")
    git(seeded, "config", "user.signingkey", rita)
    # keys listed for someone else (and for an e-mail that is no reviewer: allowed, grants nothing)
    _hand_commit(seeded, "vmem.yaml", _policy(seeded, require_signed=True, signing_keys={"dara@example.com": [dara]}),
                 who=RITA)
    claim = vmem.json("propose", "discounts need a second approver", store=seeded)["data"]["item"]["id"]
    vmem("approve", claim, who=RITA, store=seeded)  # signed with her key, which the policy does not list
    assert "discounts need a second approver" not in _synced(vmem, tmp_path)
    refused = _refused(vmem)
    assert len(refused) == 1 and "signature does not verify" in refused[0]["message"]
    paths = [e["path"] for e in vmem.json("check", "--governance", code=1)["data"]["errors"]]
    assert model.item_path(claim) in paths


def test_the_refusal_says_why_the_signature_is_not_the_reviewers(seeded, gnupg):
    from vmem.store.attest import _Verifier

    rita, alice = gnupg(RITA), gnupg(ALICE_WHO)
    git(seeded, "config", "user.signingkey", alice)
    git(seeded, "commit", "-q", "-S", "--allow-empty", "-m", "signed by alice")
    head = git(seeded, "rev-parse", "HEAD").strip()
    verifier = _Verifier(seeded.root)
    policy = {"signing_keys": {REVIEWER[1]: [rita]}}
    assert verifier.signed(head, REVIEWER[1], policy) is False
    assert verifier.why(head) == f"signed by key {alice}, which is not listed for {REVIEWER[1]} in signing_keys"
    assert verifier.signed(head, "Rita@Example.com", {"signing_keys": {REVIEWER[1]: [alice]}}) is True
    assert verifier.why(head) is None
    assert verifier.signed(head, REVIEWER[1], {"signing_keys": {}}) is False
    assert "no signing key is listed for rita@example.com" in verifier.why(head)
    git(seeded, "commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", "unsigned")
    unsigned = git(seeded, "rev-parse", "HEAD").strip()
    assert verifier.signed(unsigned, REVIEWER[1], policy) is False
    assert verifier.why(unsigned) == "the commit is not signed"


def test_without_git_nothing_verifies(seeded, gnupg, monkeypatch):
    from vmem.store import signing

    rita = gnupg(RITA)
    git(seeded, "config", "user.signingkey", rita)
    git(seeded, "commit", "-q", "-S", "--allow-empty", "-m", "signed by rita")
    head = git(seeded, "rev-parse", "HEAD").strip()
    with monkeypatch.context() as patch:
        patch.setenv("PATH", "")
        found = signing.verify(seeded.root, head, REVIEWER[1], {"signing_keys": {REVIEWER[1]: [rita]}})
    assert found == (False, "git is not installed: signatures cannot be checked")


# -- the policy ----------------------------------------------------------------------------------------------------

_ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl rita@laptop"
_FPR = "7A3F" * 10


@pytest.mark.parametrize("text, message", [
    ("signing_keys: [rita@example.com]\n",
     "signing_keys must be a mapping of e-mail addresses to lists of keys, found a list"),
    (f"signing_keys:\n  rita: ['{_FPR}']\n", "signing_keys: 'rita' is not an e-mail address"),
    (f"signing_keys:\n  rita@example.com: '{_FPR}'\n", "signing_keys: rita@example.com must be a list of keys"),
    ("signing_keys:\n  rita@example.com: ['not a key']\n", "signing_keys: rita@example.com: 'not a key' is neither"),
    ("signing_keys:\n  rita@example.com: ['7A3F40AB12CD34EF']\n",  # a key id: too short to pin a key
     "signing_keys: rita@example.com: '7A3F40AB12CD34EF' is neither"),
    ("signing_keys:\n  rita@example.com: ['ssh-ed25519 AAAA!!!! rita@laptop']\n",
     "signing_keys: rita@example.com: 'ssh-ed25519 AAAA!!!! rita@laptop' is neither an ssh public key"),
    ("signing_keys:\n  rita@example.com: ['ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9"
     "GKJl']\n", "signing_keys: rita@example.com: 'ssh-rsa AAAAC3Nz"),  # the blob says ed25519
    ("signing_keys:\n  rita@example.com: [1234]\n", "signing_keys: rita@example.com: 1234 is neither"),
])
def test_malformed_signing_keys_are_a_one_line_error_naming_the_file_and_key(store, vmem, text, message):
    commit_file(store, "vmem.yaml", f"reviewers: [rita@example.com]\n{text}".encode())
    before = commit_count(store)
    error = vmem.json("check", code=1)["data"]["errors"][0]
    assert error["path"] == "vmem.yaml" and error["message"].startswith(f"line 2: {message}"), error
    payload = vmem.json("propose", "a fact", code=1)  # any command that reads the policy
    assert payload["error"].startswith(f"vmem.yaml:2: {message}") and "\n" not in payload["error"]
    assert "signing_keys" in payload["hint"]
    assert commit_count(store) == before


def test_signing_keys_are_read_in_one_canonical_form(store, vmem):
    from vmem.store.repo import Store

    spaced = " ".join(_FPR.lower()[i:i + 4] for i in range(0, 40, 4))
    text = (f"reviewers: [rita@example.com]\nsigning_keys:\n  Rita@Example.com: ['{_ED25519}', '{spaced}']\n"
            f"  dara@example.com:\n  sam@example.com: ['{'ab' * 32}']\n")
    commit_file(store, "vmem.yaml", text.encode())
    assert vmem.json("check")["data"]["errors"] == []
    assert Store.open(store.root).policy["signing_keys"] == {
        "rita@example.com": [" ".join(_ED25519.split()[:2]), _FPR], "dara@example.com": [], "sam@example.com":
            ["AB" * 32]}
