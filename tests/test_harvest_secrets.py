"""No credential survives harvest (SPEC 16): generated credentials of every common form, inside the kinds of
sentences people type, are redacted before anything is shown, queued or proposed. In-process over many examples
(the redaction itself), and end to end through the console script, the queue file and the store's history."""

from __future__ import annotations

import json
import os
import string
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_harvest import VMEM, Claude, project  # noqa: F401 - project is a fixture

from vmem.harvest.secrets import clean_statement, redact

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits


def _text(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=size, max_size=size)


def _password() -> st.SearchStrategy[str]:
    """A password as people pick them: letters with at least one digit or sign somewhere."""
    return st.tuples(st.text(string.ascii_letters, min_size=4, max_size=12), st.text(string.digits + "!#%&*@^",
                                                                                     min_size=1, max_size=4),
                     st.text(ALNUM, max_size=6)).map("".join)


def _jwt(parts: tuple[str, int, str]) -> tuple[str, str]:
    import base64

    def b64(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    token = f"{b64({'alg': 'HS256', 'typ': 'JWT'})}.{b64({'sub': parts[0], 'exp': parts[1]})}.{parts[2]}"
    return token, token.split(".", 1)[1]


# (what the credential looks like in text, the part of it that must never be seen again)
CREDENTIALS = st.one_of(
    _text(UPPER, 16).map(lambda s: ("AKIA" + s, s)),  # AWS access key id
    _text(ALNUM, 36).map(lambda s: ("ghp_" + s, s)),  # GitHub personal access token
    _text(ALNUM, 24).map(lambda s: ("sk_live_" + s, s)),  # Stripe secret key
    st.tuples(_text(string.digits, 12), _text(string.digits, 13), _text(ALNUM, 24)).map(
        lambda p: ("xoxb-" + "-".join(p), p[2])),  # Slack bot token
    st.tuples(_text(ALNUM, 20), _text(ALNUM, 20)).map(
        lambda p: (f"sk-{p[0]}T3BlbkFJ{p[1]}", p[0] + "T3BlbkFJ" + p[1])),  # OpenAI key
    st.tuples(_text(ALNUM, 12), st.integers(1_700_000_000, 1_900_000_000), _text(ALNUM + "-_", 43)).map(
        _jwt),  # JWT
    st.tuples(st.sampled_from(["postgres", "mysql", "mongodb", "redis", "amqp"]), _password()).map(
        lambda p: (f"{p[0]}://svc_user:{p[1]}@db.internal.example:5432/prod", p[1])),  # connection string
    st.tuples(st.sampled_from(["password: ", "password=", "PASSWORD=", "the staging password is ",
                               "db password is ", "api key: ", "client_secret=", "token = "]), _password()).map(
        lambda p: (p[0] + p[1], p[1])),  # keyword and value
)
SENTENCES = st.sampled_from([
    "FYI, {} is what the nightly export uses for `orders`.",
    "no, the refunds job reads {} and lags by 3 days",
    "note that `invoices.amount_due` is in cents; to reproduce use {}",
    "heads up: {} -- and ARR excludes one-time implementation fees.",
    "we always query the replica with {} because the primary is for writes only",
])


def _core_hidden(text: str, core: str) -> bool:
    return core not in text


@settings(max_examples=int(os.environ.get("VMEM_PROP_EXAMPLES", 60)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(credential=CREDENTIALS, sentence=SENTENCES)
def test_redaction_leaves_nothing_of_a_credential(credential, sentence):
    shown, core = credential
    text = sentence.format(shown)
    redacted, kinds = redact(text)
    assert kinds and _core_hidden(redacted, core), (text, redacted)
    statement, _ = clean_statement(text)
    assert statement is None or ("[redacted" not in statement and _core_hidden(statement, core)), statement


@settings(max_examples=max(3, int(os.environ.get("VMEM_PROP_EXAMPLES", 60)) // 12), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(credential=CREDENTIALS, sentence=SENTENCES)
def test_no_credential_reaches_output_the_queue_or_the_store(project, seeded, tmp_path_factory, credential, sentence):
    shown, core = credential
    folder = tmp_path_factory.mktemp("s")
    session = (Claude(session=os.urandom(8).hex(), cwd=str(project)).user("export the refunds")
               .assistant("I'll read the refunds from `raw.refunds`.")
               .user(sentence.format(shown))
               .user("careful: `raw.refunds` is deduplicated on (refund_id, line) and the token is " + shown)
               .write(folder / "leaky.jsonl"))
    env = {**os.environ}
    listed = subprocess.run([str(VMEM), "harvest", str(session), "--json"], cwd=project, capture_output=True,
                            text=True, env=env, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert core not in listed.stdout + listed.stderr
    ids = [c["id"] for c in json.loads(listed.stdout)["data"]["candidates"]]
    if ids:
        accepted = subprocess.run([str(VMEM), "harvest", *sum((["--accept", i] for i in ids), []), "--json"],
                                  cwd=project, capture_output=True, text=True, env=env, timeout=120)
        assert accepted.returncode == 0, accepted.stderr
        assert core not in accepted.stdout + accepted.stderr
    queue = Path(os.environ["HOME"]) / ".local" / "share" / "vmem" / "harvest"
    for state in queue.glob("*.json"):
        assert core not in state.read_text()
    history = subprocess.run(["git", "-C", str(seeded.root), "log", "-p", "--all"], capture_output=True,
                             text=True).stdout
    assert core not in history
