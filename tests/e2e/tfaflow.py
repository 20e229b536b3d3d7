"""Steps of a user's way to two-factor authentication (answer the security
questions, enable), shared by identity/test_tfa.py and
server/test_concurrency.py."""

import re

from checks import assert_json

B32 = re.compile(r"[A-Z2-7]{32}")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def answers(*pairs):
    return {"security_questions": [{"question_id": q, "response": r} for q, r in pairs]}


def answer_three(user, tag=""):
    pairs = [(1, f"Paris{tag}"), (5, f"Oak Hill{tag}"), (12, f"Porto{tag}")]
    r = user.post("/profile/security-questions", json=answers(*pairs))
    assert r.status == 200, r
    return pairs


def enable(user):
    r = user.post("/profile/tfa-enable")
    assert r.status == 200, r
    doc = assert_json(r)
    assert set(doc) == {"secret", "expiry"}, doc
    assert B32.fullmatch(doc["secret"]), doc
    assert TIMESTAMP.fullmatch(doc["expiry"]), doc
    return doc["secret"]
