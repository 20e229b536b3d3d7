"""AcctapiMaxTokensPerUser: a user holds at most N active (unexpired,
unrevoked) personal access tokens; POST /profile/tokens beyond the cap is a
field-less 400 and stores nothing.  The token making the request counts too.
The cap holds under concurrency (the create locks the user's row first), and
the operator's acctapi-admin token create is not bound by it."""


import pytest

import harness
from checks import assert_error

CAP = 3


def r_cap(cap):
    return (f"You have reached the limit of {cap} active personal access tokens;"
            " revoke one to create another")


def capped_conf(cap):
    return f'<Location "/v4">\n    AcctapiMaxTokensPerUser {cap}\n</Location>\n'


@pytest.fixture(scope="module")
def capped(backend):
    """A server with a cap of CAP, which the tests share: each counts the
    tokens of users of its own.  The harness's own (huge) cap comes first
    in the configuration: the later one wins, as a more specific setting
    would."""
    with harness.serving(backend, name="token-cap", **harness.SMALL_SERVER,
                         extra=capped_conf(CAP)) as srv:
        yield srv


def new_user(backend):
    """A fresh user and an all-scopes token of theirs (minted by the
    operator: one active token already)."""
    uid, _ = backend.create_user()
    return uid, backend.mint_token(scopes="*", user=uid)


def stored_tokens(backend, uid):
    """Every token row of the user, revoked and expired ones included."""
    return int(backend.query(f"SELECT count(*) FROM tokens WHERE user_id = {uid}")[0][0])


def fill_to(client, have, cap):
    """Creates tokens through the API until the user holds `cap`."""
    made = []
    for i in range(cap - have):
        r = client.post("/profile/tokens", json={"label": f"e2e-cap-{i}"})
        assert r.status == 200, r
        made.append(r.json)
    return made


def test_create_up_to_the_cap_then_refused(capped, backend):
    uid, tok = new_user(backend)
    c = capped.client(token=tok)
    fill_to(c, 1, CAP)
    before = stored_tokens(backend, uid)
    r = c.post("/profile/tokens", json={"label": "e2e-one-too-many"})
    assert_error(r, 400, r_cap(CAP))
    assert stored_tokens(backend, uid) == before
    # Nothing listed either; the tokens held still work.
    r = c.get("/profile/tokens")
    assert r.status == 200 and r.json["results"] == CAP, r
    c.close()


def test_each_user_has_a_cap_of_their_own(capped, backend):
    _, full = new_user(backend)
    c = capped.client(token=full)
    fill_to(c, 1, CAP)
    assert_error(c.post("/profile/tokens", json={}), 400, r_cap(CAP))
    _, other = new_user(backend)
    o = capped.client(token=other)
    assert o.post("/profile/tokens", json={}).status == 200
    c.close()
    o.close()


def test_a_revoked_token_frees_a_slot(capped, backend):
    uid, tok = new_user(backend)
    c = capped.client(token=tok)
    made = fill_to(c, 1, CAP)
    assert_error(c.post("/profile/tokens", json={}), 400, r_cap(CAP))
    assert c.delete(f"/profile/tokens/{made[0]['id']}").status == 200
    r = c.post("/profile/tokens", json={"label": "e2e-after-revoke"})
    assert r.status == 200, r
    assert_error(c.post("/profile/tokens", json={}), 400, r_cap(CAP))
    c.close()


def test_an_expired_token_frees_a_slot(capped, backend, clock):
    uid, tok = new_user(backend)
    c = capped.client(token=tok)
    soon = harness.utc_ts(3600)
    r = c.post("/profile/tokens", json={"label": "e2e-expiring", "expiry": soon})
    assert r.status == 200, r
    fill_to(c, 2, CAP)
    assert_error(c.post("/profile/tokens", json={}), 400, r_cap(CAP))
    clock("advance", "2h")
    r = c.post("/profile/tokens", json={"label": "e2e-after-expiry"})
    assert r.status == 200, r
    assert_error(c.post("/profile/tokens", json={}), 400, r_cap(CAP))
    c.close()


def test_the_operator_is_not_bound(capped, backend):
    """acctapi-admin token create mints past the cap (the operator decides);
    its tokens count towards the cap the API applies."""
    uid, tok = new_user(backend)
    c = capped.client(token=tok)
    fill_to(c, 1, CAP)
    extra = backend.mint_token(scopes="*", user=uid)
    e = capped.client(token=extra)
    assert e.get("/profile").status == 200
    e.close()
    assert_error(c.post("/profile/tokens", json={}), 400, r_cap(CAP))
    c.close()


def test_parallel_creates_at_cap_minus_one(capped, backend):
    """50 creates at once with room for one: exactly one succeeds, on
    PostgreSQL (row lock) as on SQLite (serial writers).  Several rounds
    (a revoke makes room again between them): one round of a check-then-
    insert without the lock often comes out right by luck, several do not."""
    uid, tok = new_user(backend)
    c = capped.client(token=tok)
    fill_to(c, 1, CAP - 1)
    for _ in range(12):
        before = stored_tokens(backend, uid)
        results = harness.race(capped, tok,
                               [("POST", "/profile/tokens", {"label": "e2e-race"})] * 50)
        statuses = sorted(s for s, _ in results)
        assert statuses == [200] + [400] * 49, results
        for status, doc in results:
            if status == 400:
                assert doc == {"errors": [{"reason": r_cap(CAP)}]}, doc
        assert stored_tokens(backend, uid) == before + 1
        r = c.get("/profile/tokens")
        assert r.status == 200 and r.json["results"] == CAP, r
        won = [doc for status, doc in results if status == 200][0]
        assert c.delete(f"/profile/tokens/{won['id']}").status == 200
    c.close()


def test_the_default_is_100(make_server, backend):
    srv = make_server(name="token-cap-default", max_tokens=None)
    _, tok = new_user(backend)
    c = srv.client(token=tok)
    fill_to(c, 1, 100)
    assert_error(c.post("/profile/tokens", json={}), 400, r_cap(100))
    c.close()


@pytest.mark.parametrize("value", ["0", "-1", "1000001", "many"])
def test_directive_refuses_bad_values(make_server, value):
    with pytest.raises(harness.HarnessError) as e:
        make_server(name="token-cap-bad", extra=capped_conf(value))
    assert (f"AcctapiMaxTokensPerUser: '{value}' is not a whole number from 1 to 1000000"
            in str(e.value))
