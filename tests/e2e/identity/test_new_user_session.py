"""A new user's first session, as the README tour's quickstart user would script it:
security questions, two-factor with a TOTP computed from the secret, a phone
verified with the code from the SMS sink, a read-only token refused on a
write and then revoked.  Afterwards no secret is in the database in clear."""

import re
import secrets

from checks import assert_error, assert_json
from otp import code_in, server_now, totp

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."


def last_sms_code(server, number):
    codes = [m.group(1) for line in server.sms_log.read_text().splitlines()
             if number in line for m in [re.search(r"\b(\d{6})\b", line)] if m]
    assert codes, f"no text message to {number} in {server.sms_log}"
    return codes[-1]


def test_new_user_session(server, backend):
    uid, username = backend.create_user()
    login_token = backend.mint_token(scopes="*", user=uid)
    me = server.client(token=login_token)
    tag = secrets.token_hex(3)

    # 1. Three security questions.
    questions = assert_json(me.get("/profile/security-questions"))["security_questions"]
    chosen = [q["id"] for q in questions[:3]]
    answers = [f"answer-{tag}-{i}" for i in range(3)]
    r = me.post("/profile/security-questions", json={"security_questions": [
        {"question_id": q, "response": a} for q, a in zip(chosen, answers)]})
    assert r.status == 200, r

    # 2. Two-factor: secret, TOTP from it, confirmation, scratch code.
    r = me.post("/profile/tfa-enable")
    assert r.status == 200, r
    secret = r.json["secret"]
    r = me.post("/profile/tfa-enable-confirm",
                json={"tfa_code": totp(secret, server_now(backend))})
    assert r.status == 200, r
    scratch = r.json["scratch"]
    assert assert_json(me.get("/profile"))["two_factor_auth"] is True

    # 3. Phone: the code arrives through the SMS sink.
    number = "+1555" + str(secrets.randbelow(10 ** 7)).zfill(7)
    r = me.post("/profile/phone-number", json={"iso_code": "US", "phone_number": number})
    assert r.status == 200, r
    code = last_sms_code(server, number)
    r = me.post("/profile/phone-number/verify", json={"otp_code": code})
    assert r.status == 200, r
    assert assert_json(me.get("/profile"))["verified_phone_number"] == number

    # 4. A read-only token: reads, is refused a write, is revoked, is gone.
    r = me.post("/profile/tokens", json={"label": f"ro-{tag}", "scopes": "account:read_only"})
    assert r.status == 200, r
    ro_id, ro_token = r.json["id"], r.json["token"]
    ro = server.client(token=ro_token)
    assert ro.get("/profile/sshkeys").status == 200
    assert_error(ro.post("/profile/sshkeys", json={"ssh_key": "x"}), 401, SCOPE_REASON)
    assert me.delete(f"/profile/tokens/{ro_id}").status == 200
    assert_error(ro.get("/profile"), 401, "Invalid Token")
    ro.close()

    # 5. The database holds none of it in clear (the token prefix is meant to be there).
    text, raw = backend.dump()
    for clear in answers + [secret, scratch, login_token, ro_token]:
        assert clear not in text, clear
        assert clear.encode() not in raw, clear
    assert not code_in(text, code), code
    me.close()
