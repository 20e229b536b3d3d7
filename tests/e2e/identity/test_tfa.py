"""Security questions and two-factor authentication, as a new user does it:
answer three questions, enable two-factor, compute the codes with the
standard library (RFC 6238), confirm, and turn it off again.  Also: what a
database dump shows of all that (nothing in clear)."""

import base64
import re
import secrets
import threading
import time

import pytest

from checks import assert_error, assert_headers, assert_json
from otp import server_now, totp
from tfaflow import B32, TIMESTAMP, answer_three, answers, enable  # noqa: F401

R_QUESTIONS = ("You must answer your security questions before enabling "
               "two-factor authentication.")
R_ENABLED = "Two-factor authentication is already enabled."
R_REPLAY = "This two-factor code has already been used; wait for the next one."


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def wrong_code(secret, when):
    """A well-formed code that no step of the accepted window gives."""
    window = {totp(secret, when, s) for s in (-2, -1, 0, 1, 2)}
    return next(c for c in ("000000", "111111", "222222", "333333") if c not in window)


def response_of(doc, qid):
    return next(item["response"] for item in doc["security_questions"] if item["id"] == qid)


@pytest.fixture
def user(make_user):
    """A client acting as a brand-new user with an all-scopes token (its
    .uid and .token)."""
    return make_user()


def confirm(user, code, **kw):
    return user.post("/profile/tfa-enable-confirm", json={"tfa_code": code}, **kw)


# --------------------------------------------------------------------------
# The test's own TOTP against RFC 6238 Appendix B (SHA-1 rows, 6 digits)
# --------------------------------------------------------------------------

@pytest.mark.parametrize("when,code", [
    (59, "287082"), (1111111109, "081804"), (1111111111, "050471"),
    (1234567890, "005924"), (2000000000, "279037"), (20000000000, "353130")])
def test_totp_helper_matches_rfc6238(when, code):
    secret = base64.b32encode(b"12345678901234567890").decode().rstrip("=")
    assert secret == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    assert totp(secret, when) == code


# --------------------------------------------------------------------------
# Security questions
# --------------------------------------------------------------------------

def test_questions_catalogue(user):
    r = user.get("/profile/security-questions")
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="account:read_only")
    doc = assert_json(r)
    assert list(doc) == ["security_questions"], doc
    items = doc["security_questions"]
    assert len(items) >= 18, doc
    assert [i["id"] for i in items] == sorted(i["id"] for i in items), doc
    for item in items:
        assert list(item) == ["id", "question", "response"], item
        assert isinstance(item["id"], int) and isinstance(item["question"], str), item
        assert item["response"] is None, item
    assert items[0] == {"id": 1, "question": "In what city were you born?",
                        "response": None}


def test_questions_validation(user):
    r = user.post("/profile/security-questions", json=answers((1, "abc"), (2, "abc")))
    assert_error(r, 400, "Exactly 3 security questions must be answered",
                 field="security_questions")

    r = user.post("/profile/security-questions",
                  json=answers((1, "abc"), (1, "abd"), (99999, "ab")))
    errs = assert_error(r, 400, field=None, only=False)
    assert [e["field"] for e in errs] == [
        "security_questions[1].question_id", "security_questions[2].question_id",
        "security_questions[2].response"], errs

    r = user.post("/profile/security-questions",
                  json=answers((1, "x" * 18), (2, "  ab  "), (3, "ok!")))
    errs = assert_error(r, 400, field=None, only=False)
    assert [e["field"] for e in errs] == [
        "security_questions[0].response", "security_questions[1].response"], errs

    # An answer's other keys are ignored, as a body's (docs/conventions.md,
    # "Today's clients").
    r = user.post("/profile/security-questions", json={"security_questions": [
        {"question_id": "1", "response": "abc"}, 7,
        {"question_id": 3, "response": "ab", "extra": 1}]})
    errs = assert_error(r, 400, field=None, only=False)
    assert [e["field"] for e in errs] == [
        "security_questions[0].question_id", "security_questions[1]",
        "security_questions[2].response"], errs

    # Nothing was stored by the refusals.
    doc = assert_json(user.get("/profile/security-questions"))
    assert all(i["response"] is None for i in doc["security_questions"]), doc


def answered(post_doc, get_doc):
    """The POST answer is the three answers just stored, by question id, in
    the public API's shape with GET's names beside (docs/conventions.md "Today's
    clients", Names); GET shows the same responses."""
    items = post_doc["security_questions"]
    assert [list(i) for i in items] == [
        ["question_id", "security_question", "response", "id", "question"]] * 3, items
    assert [i["id"] for i in items] == sorted(i["question_id"] for i in items), items
    catalogue = {i["id"]: i for i in get_doc["security_questions"]}
    for i in items:
        assert i["security_question"] == i["question"] == catalogue[i["id"]]["question"]
        assert i["response"] == catalogue[i["id"]]["response"], (i, catalogue[i["id"]])
    assert sum(i["response"] is not None for i in catalogue.values()) == 3, get_doc
    return {i["id"]: i["response"] for i in items}


def test_questions_answer_and_replace(user):
    r = user.post("/profile/security-questions",
                  json=answers((3, " Elm Street "), (1, "Zürich"), (17, "St. Mary's")))
    assert r.status == 200, r
    doc = assert_json(user.get("/profile/security-questions"))
    assert answered(assert_json(r), doc) == {
        1: "Zürich", 3: "Elm Street", 17: "St. Mary's"}   # blanks around are trimmed
    assert response_of(doc, 2) is None

    r = user.post("/profile/security-questions",
                  json=answers((2, "Rex"), (4, "Volvo"), (1, "Bern")))
    assert r.status == 200, r
    doc = assert_json(user.get("/profile/security-questions"))
    assert answered(assert_json(r), doc) == {1: "Bern", 2: "Rex", 4: "Volvo"}
    assert [response_of(doc, q) for q in (1, 2, 3, 4, 17)] == [
        "Bern", "Rex", None, "Volvo", None], doc


def test_questions_scopes(user, backend):
    uid = user.uid
    read_only = backend.mint_token(scopes="account:read_only", user=uid)
    r = user.get("/profile/security-questions", token=read_only)
    assert r.status == 200, r
    r = user.post("/profile/security-questions", token=read_only,
                  json=answers((1, "abc"), (2, "abc"), (3, "abc")))
    assert_error(r, 401, "Your OAuth token is not authorized to use this endpoint.")
    for path in ("/profile/tfa-enable", "/profile/tfa-disable"):
        assert_error(user.post(path, token=read_only), 401,
                     "Your OAuth token is not authorized to use this endpoint.")


# --------------------------------------------------------------------------
# Two-factor authentication
# --------------------------------------------------------------------------

def test_tfa_new_user_flow(user, backend):
    # Not before the security questions.
    assert_error(user.post("/profile/tfa-enable"), 400, R_QUESTIONS)
    answer_three(user)

    before = server_now(backend)
    r = user.post("/profile/tfa-enable")
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="account:read_write")
    doc = assert_json(r)
    secret = doc["secret"]
    assert B32.fullmatch(secret), doc
    # Ten minutes to confirm (server clock, whole seconds).
    lo = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(before) + 600 - 1))
    hi = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(server_now(backend)) + 600 + 1))
    assert lo <= doc["expiry"] <= hi, doc

    # A wrong code names the field; nothing changes.
    now = server_now(backend)
    assert_error(confirm(user, wrong_code(secret, now)), 400, field="tfa_code")
    assert_error(confirm(user, "12ab56"), 400, field="tfa_code")
    assert assert_json(user.get("/profile"))["two_factor_auth"] is False

    code = totp(secret, server_now(backend))
    r = confirm(user, code)
    assert r.status == 200, r
    doc = assert_json(r)
    assert list(doc) == ["scratch"], doc
    assert isinstance(doc["scratch"], str) and len(doc["scratch"]) >= 8, doc
    assert assert_json(user.get("/profile"))["two_factor_auth"] is True

    # The same code again is refused, and so is a second secret.
    r = confirm(user, code)
    assert_error(r, 400, field=None)
    assert_error(user.post("/profile/tfa-enable"), 400, R_ENABLED)
    assert assert_json(user.get("/profile"))["two_factor_auth"] is True

    r = user.post("/profile/tfa-disable")
    assert r.status == 200, r
    assert assert_json(r) == {}
    assert assert_json(user.get("/profile"))["two_factor_auth"] is False
    # Nothing is pending any more.
    assert_error(confirm(user, totp(secret, server_now(backend))), 400, field=None)


def test_tfa_parallel_confirmations_one_wins(user, server, backend):
    """Eight requests with the same code at once: exactly one succeeds."""
    answer_three(user)
    secret = enable(user)
    code = totp(secret, server_now(backend))
    clients = [server.client(token=user.token) for _ in range(8)]
    results = [None] * len(clients)
    barrier = threading.Barrier(len(clients))

    def go(i):
        barrier.wait()
        results[i] = confirm(clients[i], code)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for c in clients:
        c.close()
    statuses = sorted(r.status for r in results)
    assert statuses.count(200) == 1, results
    # Losers saw the winner's commit (already on), lost the conditional
    # UPDATE of the same step (already used), or - a replay counting as a
    # wrong attempt - found the attempts of the window used up (429).
    assert all(s in (400, 429) for s in statuses[1:]), results
    for r in results:
        if r.status == 400:
            reason = r.json["errors"][0]["reason"]
            assert reason in (R_ENABLED, R_REPLAY), r
    assert assert_json(user.get("/profile"))["two_factor_auth"] is True


def test_tfa_wrong_codes_throttled(user, backend):
    answer_three(user)
    secret = enable(user)
    bad = wrong_code(secret, server_now(backend))
    for _ in range(5):
        assert_error(confirm(user, bad), 400, "Invalid two-factor code.", field="tfa_code")
    # The allowance is used up, even for the right code, on every node.
    r = confirm(user, totp(secret, server_now(backend)))
    assert_error(r, 429, "Too many requests")
    assert re.fullmatch(r"\d+", r.headers.get("Retry-After", "")), r
    assert 1 <= int(r.headers["Retry-After"]) <= 300, r
    assert assert_json(user.get("/profile"))["two_factor_auth"] is False


def test_tfa_secret_expires(user, backend, clock):
    answer_three(user)
    enable(user)
    clock("advance", "11m")
    secret_is_gone = confirm(user, "000000")
    assert_error(secret_is_gone, 400, field=None)
    assert "start again" in secret_is_gone.json["errors"][0]["reason"]
    # Starting again works with the moved clock.
    secret = enable(user)
    r = confirm(user, totp(secret, server_now(backend)))
    assert r.status == 200, r


def test_tfa_confirm_without_enable(user):
    answer_three(user)
    r = confirm(user, "123456")
    assert_error(r, 400, field=None)
    assert "tfa-enable" in r.json["errors"][0]["reason"]


# --------------------------------------------------------------------------
# What the database holds
# --------------------------------------------------------------------------

def sealed_values(backend, uid):
    sql = (f"SELECT response_sealed FROM security_answers WHERE user_id = {uid} "
           f"UNION ALL SELECT secret_sealed FROM tfa_secrets WHERE user_id = {uid}")
    return [row[0] for row in backend.query(sql)]


def test_database_dump_has_no_secrets_in_clear(user, backend):
    tag = secrets.token_hex(3)
    responses = [r for _, r in answer_three(user, tag)]
    secret = enable(user)
    r = confirm(user, totp(secret, server_now(backend)))
    assert r.status == 200, r
    scratch = r.json["scratch"]
    # Still answered and on, as the user sees it.
    doc = assert_json(user.get("/profile/security-questions"))
    assert sorted(i["response"] for i in doc["security_questions"] if i["response"]) \
        == sorted(responses)

    sealed = sealed_values(backend, user.uid)
    assert len(sealed) == 4, sealed          # three responses and the secret
    assert all(s.startswith("v1:") for s in sealed), sealed
    text, raw = backend.dump()
    assert all(s in text for s in sealed)    # the dump does hold this user's rows
    for clear in responses + [secret, secret.lower(), scratch]:
        assert clear not in text, clear
        assert clear.encode() not in raw, clear
