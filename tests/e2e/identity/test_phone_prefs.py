"""Phone verification and preferences, as a user does it: send a code to a
number, read it from the SMS sink (server.sms_log, one line per message:
time, number, text), verify it, see it on the profile, delete it.  Also the
limits (resend, wrong codes, expiry, other users, parallel verifies), what
the database holds of a code (only its hash), and preferences kept per
OAuth client."""

import json
import re
import secrets
import threading

import pytest
import requests

from checks import assert_error, assert_headers, assert_json

R_NO_PENDING = "No verification code is pending; request one first"
R_EXPIRED = "The verification code has expired; request a new one"
R_WRONG = "Invalid verification code"
R_HAS_NUMBER = "A verified phone number is already set; delete it before adding another"
R_PREFS_SIZE = "Preferences may not exceed 65535 characters"
SMS_LINE = re.compile(r"^\S+ (\+\d+) Your verification code is (\d{6})\b")


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

@pytest.fixture
def user(make_user):
    """A client acting as a brand-new user with an all-scopes token (its
    .uid and .token)."""
    return make_user()


def new_number():
    """A UK mobile number of the range set aside for drama, unique enough:
    (what to send, its E.164 form)."""
    rest = f"{secrets.randbelow(10**6):06d}"
    return f"07700 9{rest[:2]} {rest[2:]}", f"+4477009{rest}"


def send(client, national):
    return client.post("/profile/phone-number",
                       json={"iso_code": "gb", "phone_number": national})


def verify(client, code):
    return client.post("/profile/phone-number/verify", json={"otp_code": code})


def codes_sent(server, e164):
    """The codes texted to `e164`, oldest first."""
    out = []
    for line in server.sms_log.read_text().splitlines():
        m = SMS_LINE.match(line)
        if m and m.group(1) == e164:
            out.append(m.group(2))
    return out


def sent_code(client, server, national, e164):
    """Sends a code and returns it, read from the SMS sink."""
    before = len(codes_sent(server, e164))
    r = send(client, national)
    assert r.status == 200, r
    assert assert_json(r) == {}, r
    codes = codes_sent(server, e164)
    assert len(codes) == before + 1, codes
    return codes[-1]


def other_code(code):
    return f"{(int(code) + 1) % 10**6:06d}"


def profile_number(client):
    r = client.get("/profile")
    assert r.status == 200, r
    return r.json["verified_phone_number"]


# --------------------------------------------------------------------------
# Phone verification
# --------------------------------------------------------------------------

def test_send_verify_delete(user, server):
    national, e164 = new_number()
    assert profile_number(user) is None
    r = send(user, national)
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="account:read_write")
    assert assert_json(r) == {}
    code = codes_sent(server, e164)[-1]

    r = verify(user, code)
    assert r.status == 200, r
    assert assert_json(r) == {}
    assert profile_number(user) == e164

    # Used up; changing the number takes a delete first.
    assert_error(verify(user, code), 400, R_NO_PENDING)
    other, _ = new_number()
    assert_error(send(user, other), 400, R_HAS_NUMBER, field="phone_number")

    r = user.delete("/profile/phone-number")
    assert r.status == 200, r
    assert assert_json(r) == {}
    assert profile_number(user) is None
    # Deleting nothing is still {}.
    assert user.delete("/profile/phone-number").json == {}


def test_forms_of_a_number(user, server):
    _, e164 = new_number()
    digits = e164[3:]                      # national significant number
    for iso, text in [("GB", "0" + digits), ("gb", "+44 " + digits),
                      ("GB", f"+44 (0){digits[:4]} {digits[4:]}"),
                      ("GB", "0044-" + digits), ("JE", "0" + digits)]:
        r = user.post("/profile/phone-number",
                      json={"iso_code": iso, "phone_number": text})
        assert r.status == 200, (iso, text, r)
    # One pending code for one number: every message carried the same code.
    codes = codes_sent(server, e164)
    assert len(codes) == 5 and len(set(codes)) == 1, codes


def test_send_validation(user, server):
    errs = assert_error(user.post("/profile/phone-number", json={}), 400, None, None,
                        only=False)
    assert [(e["field"], e["reason"]) for e in errs] == [
        ("iso_code", "iso_code is required"),
        ("phone_number", "phone_number is required")]
    errs = assert_error(user.post("/profile/phone-number",
                                  json={"iso_code": "XK", "phone_number": "12-ab"}),
                        400, None, None, only=False)
    assert [e["field"] for e in errs] == ["iso_code", "phone_number"]
    assert_error(user.post("/profile/phone-number",
                           json={"iso_code": "US", "phone_number": "+44 20 7946 0018"}),
                 400, "Phone number does not begin with the calling code of iso_code",
                 field="phone_number")
    assert_error(user.post("/profile/phone-number",
                           json={"iso_code": "US", "phone_number": "12"}),
                 400, "Phone number must have 4 to 15 digits including the country code",
                 field="phone_number")
    assert_error(verify(user, "12345"), 400, "otp_code must be 6 digits", field="otp_code")
    assert_error(verify(user, "123456"), 400, R_NO_PENDING)


def test_resend_before_expiry_is_the_same_code(user, server, clock):
    national, e164 = new_number()
    first = sent_code(user, server, national, e164)
    clock("advance", "9m")
    assert sent_code(user, server, national, e164) == first
    r = verify(user, first)
    assert r.status == 200, r
    assert profile_number(user) == e164


def test_another_number_replaces_the_pending_one(user, server):
    national_a, e164_a = new_number()
    national_b, e164_b = new_number()
    code_a = sent_code(user, server, national_a, e164_a)
    code_b = sent_code(user, server, national_b, e164_b)
    if code_a != code_b:
        assert_error(verify(user, code_a), 400, R_WRONG, field="otp_code")
    assert verify(user, code_b).status == 200
    assert profile_number(user) == e164_b


def test_wrong_codes_are_limited(user, server):
    national, e164 = new_number()
    code = sent_code(user, server, national, e164)
    for _ in range(5):
        assert_error(verify(user, other_code(code)), 400, R_WRONG, field="otp_code")
    # Locked, the right code included, until the code expires.
    r = verify(user, code)
    assert_error(r, 429, "Too many requests")
    assert re.fullmatch(r"[0-9]+", r.headers.get("Retry-After", "")), r
    assert 1 <= int(r.headers["Retry-After"]) <= 600, r
    # A resend is the same code and stays locked.
    assert sent_code(user, server, national, e164) == code
    assert_error(verify(user, code), 429, "Too many requests")
    assert profile_number(user) is None


def test_expiry(user, server, clock):
    national, e164 = new_number()
    old = sent_code(user, server, national, e164)
    clock("advance", "11m")
    assert_error(verify(user, old), 400, R_EXPIRED)
    new = sent_code(user, server, national, e164)
    if new != old:
        assert_error(verify(user, old), 400, R_WRONG, field="otp_code")
    r = verify(user, new)
    assert r.status == 200, r
    assert profile_number(user) == e164


def test_lock_lifts_with_expiry(user, server, clock):
    national, e164 = new_number()
    code = sent_code(user, server, national, e164)
    for _ in range(5):
        assert verify(user, other_code(code)).status == 400
    assert verify(user, code).status == 429
    clock("advance", "10m")
    fresh = sent_code(user, server, national, e164)
    assert verify(user, fresh).status == 200


def test_another_user_cannot_use_the_code(user, server, backend):
    uid, _ = backend.create_user()
    intruder = server.client(token=backend.mint_token(scopes="*", user=uid))
    try:
        national, e164 = new_number()
        code = sent_code(user, server, national, e164)
        assert_error(verify(intruder, code), 400, R_NO_PENDING)
        assert profile_number(intruder) is None
        # The intruder's try cost the owner nothing.
        rows = backend.query("SELECT failed_attempts FROM phone_verifications"
                                f" WHERE user_id = {user.uid}")
        assert rows == [["0"]], rows
        assert verify(user, code).status == 200
        assert profile_number(user) == e164
        assert profile_number(intruder) is None
    finally:
        intruder.close()


def test_parallel_verifies_succeed_once(user, server):
    national, e164 = new_number()
    code = sent_code(user, server, national, e164)
    results = []
    lock = threading.Lock()
    start = threading.Barrier(6)

    def worker():
        s = requests.Session()
        try:
            start.wait(timeout=30)
            r = s.post(server.base_url + "/profile/phone-number/verify",
                       json={"otp_code": code}, timeout=30,
                       headers={"Authorization": f"Bearer {user.token}"})
            with lock:
                results.append((r.status_code, r.content[:200]))
        finally:
            s.close()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    statuses = sorted(s for s, _ in results)
    assert statuses == [200, 400, 400, 400, 400, 400], results
    assert profile_number(user) == e164


def test_no_code_in_clear_in_the_database(user, server, backend):
    national, e164 = new_number()
    code = sent_code(user, server, national, e164)
    rows = backend.query("SELECT iso_code, phone_number, code_hash, issued, expires,"
                            " failed_attempts FROM phone_verifications"
                            f" WHERE user_id = {user.uid}")
    assert len(rows) == 1, rows
    iso, number, code_hash, issued, expires, attempts = rows[0]
    assert (iso, number, attempts) == ("GB", e164, "0")
    assert re.fullmatch(r"[0-9a-f]{64}", code_hash), code_hash
    assert int(expires) - int(issued) == 600
    assert code not in rows[0]
    # Nowhere in the whole database as a value of its own.
    alone = re.compile(rf"(?<![0-9A-Za-z]){code}(?![0-9A-Za-z])")
    assert not alone.search(backend.dump()[0]), code


def test_failed_send_keeps_the_code(user, server, backend, make_server, expect_log):
    """A gateway failure is a 503, and the code issued stays: a retry
    through a working gateway sends that same code."""
    down = make_server(name="smsdown", extra=(
        '<Location "/v4">\n'
        '    AcctapiSmsCommand "/bin/false"\n'
        f'    AcctapiSecretKeyFile "{server.root / "secret.key"}"\n'
        '</Location>\n'))
    expect_log(r"text message to \+\d+: /bin/false exited with status 1")
    expect_log(r"answering 503 to POST /v4/profile/phone-number")
    national, e164 = new_number()
    c = down.client(token=user.token)
    try:
        assert_error(send(c, national), 503, "Service Unavailable")
    finally:
        c.close()
    issued = backend.query("SELECT issued FROM phone_verifications"
                              f" WHERE user_id = {user.uid}")
    assert len(issued) == 1, issued
    code = sent_code(user, server, national, e164)
    assert backend.query("SELECT issued FROM phone_verifications"
                            f" WHERE user_id = {user.uid}") == issued
    assert verify(user, code).status == 200


# --------------------------------------------------------------------------
# Preferences
# --------------------------------------------------------------------------

def test_preferences_per_token(user, server, backend):
    second = server.client(token=backend.mint_token(scopes="*", user=user.uid))
    try:
        r = user.get("/profile/preferences")
        assert r.status == 200, r
        assert_headers(r, accepted="account:read_only")
        assert assert_json(r) == {}

        doc = {"theme": "dark", "sizes": [1, 2.5, None], "nested": {"ok": True},
               "name": "Zoë"}
        r = user.put("/profile/preferences", json=doc)
        assert r.status == 200, r
        assert r.json == doc
        assert list(r.json) == list(doc)           # order kept
        assert user.get("/profile/preferences").json == doc

        # Another token of the same user is another client.
        assert second.get("/profile/preferences").json == {}
        assert second.put("/profile/preferences", json={"theme": "light"}).status == 200
        assert second.get("/profile/preferences").json == {"theme": "light"}
        assert user.get("/profile/preferences").json == doc

        # PUT overwrites the whole document.
        assert user.put("/profile/preferences", json={"only": 1}).json == {"only": 1}
        assert user.get("/profile/preferences").json == {"only": 1}
    finally:
        second.close()


def test_preferences_read_only_token(user, server, backend):
    ro = server.client(token=backend.mint_token(scopes="account:read_only", user=user.uid))
    try:
        r = ro.get("/profile/preferences")
        assert r.status == 200 and r.json == {}, r
        assert_error(ro.put("/profile/preferences", json={"a": 1}), 401,
                     "Your OAuth token is not authorized to use this endpoint.")
    finally:
        ro.close()


def compact(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def test_preferences_size_limit(user):
    fill = "x" * (65535 - len(compact({"p": ""})))
    doc = {"p": fill}
    assert len(compact(doc)) == 65535
    r = user.put("/profile/preferences", json=doc)
    assert r.status == 200, r
    assert r.json == doc

    big = {"p": fill + "x"}
    assert len(compact(big)) == 65536
    assert_error(user.put("/profile/preferences", json=big), 400, R_PREFS_SIZE)
    assert user.get("/profile/preferences").json == doc

    # Characters, not bytes.
    wide = {"p": "é" * (65535 - len(compact({"p": ""})))}
    assert user.put("/profile/preferences", json=wide).status == 200
    assert user.get("/profile/preferences").json == wide


def test_preferences_must_be_an_object(user):
    r = user.put("/profile/preferences", data="[1,2]",
                 headers={"Content-Type": "application/json"})
    assert r.status == 400, r
    assert user.get("/profile/preferences").json == {}
