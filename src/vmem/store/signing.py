"""Commit signatures bound to reviewers (SPEC 12): vmem's own signing, as `git commit -S` signs, and whether a
commit's signature is by a key the attested policy lists for a reviewer (git's allowed-signers idea).

Git does the cryptography both ways (gpg for openpgp, gpgsm for x509, ssh-keygen for ssh, as gpg.format and the
signature itself say). This module only decides which key a good signature must be by: git reports the signing
key's fingerprint, and it must be one of `signing_keys` for the committer's e-mail. A good signature by any other
key in the keyring signs for nobody. Everything unexpected fails closed.
"""

from __future__ import annotations

import os
from pathlib import Path

from vmem.errors import VmemError
from vmem.policy import SSH_KEY_TYPES

VERIFY_TIMEOUT_S = 30
SIGN_TIMEOUT_S = 120
# %G? (G good; U good, trust unknown; B bad; X/Y expired; R revoked; E cannot check; N none), the signing key's
# fingerprint, the primary key's (openpgp subkeys), and the trust level behind U
_FORMAT = "%G?%x00%GF%x00%GP%x00%GT%x00"
_VERDICTS: dict[tuple, tuple[bool, str | None]] = {}  # one verification per commit, key list and process
_PROBLEMS = {"B": "the signature is bad", "X": "the signature has expired", "Y": "the signing key has expired",
             "R": "the signing key is revoked", "E": "the signature cannot be checked (the key is not in the keyring?)",
             "N": "the commit is not signed"}
_ARMOR = {"openpgp": b"-----BEGIN PGP SIGNATURE-----", "x509": b"-----BEGIN SIGNED MESSAGE-----",
          "ssh": b"-----BEGIN SSH SIGNATURE-----"}


def ssh_fingerprint(key: str) -> str:
    """What git (ssh-keygen) reports for an ssh public key `TYPE BASE64`: SHA256 of the key blob, unpadded."""
    import base64
    import hashlib

    digest = hashlib.sha256(base64.b64decode(key.split()[1])).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def listed_keys(policy: dict, email: str) -> list[str]:
    """The keys POLICY lets sign for EMAIL (canonical forms, see vmem.policy.signing_key)."""
    return list((policy.get("signing_keys") or {}).get(email.casefold(), ()))


def verify(root: Path, commit_id: str, email: str, policy: dict) -> tuple[bool, str | None]:
    """(True, None) when COMMIT_ID carries a good signature, checked by git, by a key POLICY lists for EMAIL;
    else (False, why)."""
    keys = listed_keys(policy, email)
    cache_key = (str(root), commit_id, email.casefold(), tuple(keys))
    if cache_key not in _VERDICTS:
        try:
            _VERDICTS[cache_key] = _verify(root, commit_id, email, keys)
        except Exception as exc:  # noqa: BLE001 - anything unexpected grants nothing
            _VERDICTS[cache_key] = (False, f"the signature could not be checked ({type(exc).__name__})")
    return _VERDICTS[cache_key]


def _verify(root: Path, commit_id: str, email: str, keys: list[str]) -> tuple[bool, str | None]:
    if not keys:
        return False, f"no signing key is listed for {email} (signing_keys in vmem.yaml)"
    ssh = [k for k in keys if k.split()[0] in SSH_KEY_TYPES]
    hexes = {k for k in keys if k not in ssh}
    fields = _git_verdict(root, commit_id, ssh)
    if isinstance(fields, str):
        return False, fields
    status, signer, primary, trust = fields
    if status in _PROBLEMS:
        return False, _PROBLEMS[status]
    if status not in ("G", "U"):
        return False, f"git reports signature status {status!r}"
    if signer.startswith("SHA256:"):
        # ssh: G only when the key is in the allowed-signers file written from EMAIL's keys; compared again here
        if status == "G" and signer in {ssh_fingerprint(k) for k in ssh}:
            return True, None
        return False, f"signed by ssh key {signer}, which is not listed for {email} in signing_keys"
    if not ({signer.upper(), primary.upper()} & hexes):
        return False, f"signed by key {signer or primary or '?'}, which is not listed for {email} in signing_keys"
    if status == "G":
        return True, None
    # U: a good signature whose owner the keyring does not vouch for. The policy pins the key, which is the trust
    # decision for openpgp; x509 keeps its certificate chain check (U there is a chain gpgsm could not validate).
    if trust == "undefined" and _signature_kind(root, commit_id) == "openpgp":
        return True, None
    return False, f"the signing key is not trusted (trust level {trust or 'unknown'})"


def _git(root: Path, args: list[str]):
    from vmem.process import run_bounded
    from vmem.store.lite import git_env, git_executable

    git = git_executable()
    if git is None:
        return "git is not installed: signatures cannot be checked"
    done = run_bounded([git, "--no-pager", "-C", str(root), *args], timeout_s=VERIFY_TIMEOUT_S, env=git_env())
    if done.outcome != "exited":
        return f"git did not finish checking the signature ({done.outcome})"
    if done.returncode != 0:
        return "git could not read the commit"
    return done.stdout


def _git_verdict(root: Path, commit_id: str, ssh: list[str]) -> tuple[str, str, str, str] | str:
    """git's (status, fingerprint, primary fingerprint, trust) for COMMIT_ID's signature, or why there is none.
    ssh signatures are checked against an allowed-signers file holding SSH (and only those keys)."""
    import tempfile

    handle, signers = tempfile.mkstemp(prefix="vmem-signers-")
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            # one principal for all: the file holds only this reviewer's keys, so the name carries nothing
            out.writelines(f'reviewer namespaces="git" {key}\n' for key in ssh)
        found = _git(root, ["-c", f"gpg.ssh.allowedSignersFile={signers}", "-c", "log.showSignature=false", "log",
                            "-1", "--no-walk", f"--format={_FORMAT}", commit_id, "--"])
    finally:
        os.unlink(signers)
    if isinstance(found, str):
        return found
    fields = found.decode("utf-8", "replace").split("\x00")
    if len(fields) != 5 or not fields[0]:
        return "git's answer about the signature was not understood"
    return fields[0], fields[1].strip(), fields[2].strip(), fields[3].strip()


def _signature_kind(root: Path, commit_id: str) -> str | None:
    """openpgp, x509 or ssh: what the commit's signature header holds (None: none, or unknown)."""
    found = _git(root, ["cat-file", "commit", commit_id])
    if isinstance(found, str):
        return None
    header = found.split(b"\n\n", 1)[0]
    start = header.find(b"\ngpgsig ")
    if start < 0:
        return None
    armor = header[start + len(b"\ngpgsig "):].split(b"\n", 1)[0].strip()
    return next((kind for kind, line in _ARMOR.items() if armor == line), None)


# -- signing -----------------------------------------------------------------------------------------------------


def sign(content: str, fmt: str, program: str | None, key: str | None) -> str:
    """A detached signature of the commit CONTENT, made as `git commit -S` makes it for gpg.format FMT (openpgp,
    x509 or ssh) with PROGRAM (gpg.<fmt>.program) and KEY (user.signingkey). VmemError if it cannot be made."""
    import shutil

    if fmt not in _ARMOR:
        raise VmemError(f"git's gpg.format is {fmt!r}, which vmem cannot sign with; nothing was written",
                        "set gpg.format to openpgp, x509 or ssh")
    program = program or {"openpgp": "gpg", "x509": "gpgsm", "ssh": "ssh-keygen"}[fmt]
    path = shutil.which(os.path.expanduser(program))
    if path is None:
        install = {"openpgp": "install gnupg, or set gpg.program", "x509": "install gpgsm, or set gpg.x509.program",
                   "ssh": "install OpenSSH's ssh-keygen, or set gpg.ssh.program"}[fmt]
        raise VmemError(f"this store signs its commits (require_signed / commit.gpgsign) but {program} is not "
                        "installed", f"{install} in git config")
    if fmt == "ssh":
        return _sign_ssh(content, path, key)
    from vmem.process import run_bounded

    command = [path, "--status-fd=2", "-bsa"] + (["-u", key] if key else [])
    done = run_bounded(command, input=content.encode("utf-8"), timeout_s=SIGN_TIMEOUT_S, max_output=1_000_000)
    return _signature(done, done.stdout, fmt, f"check user.signingkey and that {program} can sign without a prompt")


def _sign_ssh(content: str, program: str, key: str | None) -> str:
    import tempfile

    from vmem.process import run_bounded

    if not key:
        raise VmemError("this store signs its commits with ssh (gpg.format=ssh) but user.signingkey is not set; "
                        "nothing was written", "git config user.signingkey ~/.ssh/id_ed25519.pub")
    hint = "check user.signingkey and that ssh-keygen can sign without a prompt (a key in ssh-agent)"
    with tempfile.TemporaryDirectory(prefix="vmem-sign-") as folder:
        buffer = Path(folder) / "commit"
        buffer.write_bytes(content.encode("utf-8"))
        literal = key[len("key::"):] if key.startswith("key::") else key if key.startswith("ssh-") else None
        if literal is not None:  # a public key given inline, as git allows: its private half is in ssh-agent
            keyfile, agent = Path(folder) / "key.pub", ["-U"]
            keyfile.write_text(literal.strip() + "\n")
        else:
            keyfile, agent = Path(os.path.expanduser(key)), []
        command = [program, "-Y", "sign", "-n", "git", "-f", str(keyfile), *agent, str(buffer)]
        done = run_bounded(command, timeout_s=SIGN_TIMEOUT_S, max_output=1_000_000)
        signature = Path(str(buffer) + ".sig")
        data = signature.read_bytes() if done.outcome == "exited" and signature.is_file() else b""
        return _signature(done, data, "ssh", hint)


def _signature(done, data: bytes, fmt: str, hint: str) -> str:
    if done.outcome != "exited" or done.returncode != 0 or not data.lstrip().startswith(_ARMOR[fmt]):
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = done.detail or next((line for line in reversed(lines) if "[GNUPG:]" not in line), "no signature")
        raise VmemError(f"could not sign the commit ({reason}); nothing was written", hint)
    return data.decode("ascii", "replace")
