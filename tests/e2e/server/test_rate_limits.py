"""Rate limits (AcctapiRateLimit): per user, whichever of their tokens is used
(minting tokens gains nothing), per client address without a valid token;
one budget for paginated list GETs and one for everything else; counters in
the database, so they are exact across connections, children and servers.

The windows are whole minutes of the servers' clock: each test first sets the
test clock to the fifth second of a minute, so its requests all fall in one
window however slow the machine."""

import itertools
import time

import pytest

import harness
from checks import assert_error

R_RATE = "Too many requests"
LISTS, OTHERS = 6, 9
# Each test gets a minute of its own (the address's budget is per window, and
# every test here comes from 127.0.0.1).
MINUTES = itertools.count(10, 2)


@pytest.fixture
def window(clock):
    """Puts the servers' clock at second 5 of a minute; returns the epoch of
    the window's end (what X-RateLimit-Reset must say)."""
    start = (int(time.time()) // 60 + next(MINUTES)) * 60   # a minute ahead
    clock("set", time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start + 5)))
    return start + 60


def scope_conf(scope):
    return f'<Location "/v4">\n    AcctapiRateLimitScope {scope}\n</Location>\n'


@pytest.fixture(scope="module", params=["node", "database"])
def scope(request):
    """Every behaviour holds with the counters in the server's shared memory
    (the default) and in the database."""
    return request.param


@pytest.fixture(scope="module")
def limited(backend, scope):
    """A server with small budgets, per counter scope, that the tests share:
    each spends the budgets of users of its own, or the address's budget in
    a minute of its own (every test that takes it takes `window`)."""
    with harness.serving(backend, name=f"rate-{scope}", **harness.SMALL_SERVER,
                         rate_limit=f"{LISTS} {OTHERS}", extra=scope_conf(scope)) as srv:
        yield srv


def user_token(backend):
    """A token of a fresh user: a budget of its own (the budget is the
    user's, so the suite's own user, whose tokens every test mints, will
    not do)."""
    uid, _ = backend.create_user()
    return backend.mint_token(scopes="*", user=uid)


@pytest.fixture
def token(backend):
    return user_token(backend)


def assert_rate_headers(r, limit, remaining, reset):
    assert r.headers.get("X-RateLimit-Limit") == str(limit), r
    assert r.headers.get("X-RateLimit-Remaining") == str(remaining), r
    assert r.headers.get("X-RateLimit-Reset") == str(reset), r


def test_budget_counts_down_then_refuses(limited, token, window):
    c = limited.client(token=token)
    for i in range(OTHERS):
        r = c.get("/profile")
        assert r.status == 200, r
        assert_rate_headers(r, OTHERS, OTHERS - i - 1, window)
    r = c.get("/profile")
    assert_error(r, 429, R_RATE)
    assert_rate_headers(r, OTHERS, 0, window)
    retry = r.headers.get("Retry-After")
    assert retry and retry.isdigit() and 1 <= int(retry) <= 60, r
    # Writes share the budget of other requests.
    assert_error(c.post("/tags", json={"label": "over-the-limit"}), 429, R_RATE)
    c.close()


def test_lists_have_their_own_budget(limited, token, window):
    c = limited.client(token=token)
    for _ in range(LISTS):
        r = c.get("/profile/tokens")
        assert r.status == 200, r
        assert r.headers["X-RateLimit-Limit"] == str(LISTS), r
    assert_error(c.get("/domains"), 429, R_RATE)
    # Single-object GETs and other requests still have theirs.
    r = c.get("/profile")
    assert r.status == 200, r
    assert_rate_headers(r, OTHERS, OTHERS - 1, window)
    c.close()


def test_exact_under_concurrency(limited, token, window):
    """L + 10 requests at once over separate connections: exactly L pass."""
    results = harness.race(limited, token, [("GET", "/profile", None)] * (OTHERS + 10))
    statuses = sorted(s for s, _ in results)
    assert statuses == [200] * OTHERS + [429] * 10, results


def test_shared_by_a_fleet(make_server, token, window):
    """AcctapiRateLimitScope database: two servers on one database count one
    budget: a token's requests spread over both get exactly L successes."""
    one, other = (make_server(name=f"rate-fleet{i}", rate_limit=f"{LISTS} {OTHERS}",
                              extra=scope_conf("database")) for i in (1, 2))
    a, b = one.client(token=token), other.client(token=token)
    statuses = [(a if i % 2 else b).get("/profile").status for i in range(OTHERS + 6)]
    assert statuses == [200] * OTHERS + [429] * 6, statuses
    a.close()
    b.close()


def test_node_scope_counts_per_server(make_server, token, window, backend):
    """AcctapiRateLimitScope node (the default): each server counts alone,
    exactly across its own children, and never writes rate_counters."""
    one, other = (make_server(name=f"rate-node{i}", rate_limit=f"{LISTS} {OTHERS}")
                  for i in (1, 2))
    before = backend.query("SELECT count(*) FROM rate_counters")
    a, b = one.client(token=token), other.client(token=token)
    statuses = [(a if i % 2 else b).get("/profile").status for i in range(2 * OTHERS + 4)]
    assert sorted(statuses) == [200] * (2 * OTHERS) + [429] * 4, statuses
    a.close()
    b.close()
    results = harness.race(one, user_token(backend),
                           [("GET", "/profile", None)] * (OTHERS + 10))
    assert sorted(s for s, _ in results) == [200] * OTHERS + [429] * 10, results
    assert backend.query("SELECT count(*) FROM rate_counters") == before


def test_scope_directive_refuses_other_values(make_server):
    with pytest.raises(harness.HarnessError) as e:
        make_server(name="rate-badscope", extra=scope_conf("everywhere"))
    assert "AcctapiRateLimitScope: node" in str(e.value)


def test_tokens_of_one_user_share_one_budget(limited, backend, window):
    """Two tokens of one user, used in turn, count down one budget; once it
    is spent, both are refused."""
    uid, _ = backend.create_user()
    a = limited.client(token=backend.mint_token(scopes="*", user=uid))
    b = limited.client(token=backend.mint_token(scopes="*", user=uid))
    for i in range(OTHERS):
        r = (a if i % 2 == 0 else b).get("/profile")
        assert r.status == 200, r
        assert_rate_headers(r, OTHERS, OTHERS - i - 1, window)
    for c in (a, b):
        r = c.get("/profile")
        assert_error(r, 429, R_RATE)
        assert_rate_headers(r, OTHERS, 0, window)
    a.close()
    b.close()


def test_users_have_separate_budgets(limited, backend, window):
    spent = limited.client(token=user_token(backend))
    other = limited.client(token=user_token(backend))
    for _ in range(OTHERS):
        assert spent.get("/profile").status == 200
    assert_error(spent.get("/profile"), 429, R_RATE)
    r = other.get("/profile")
    assert r.status == 200, r
    assert_rate_headers(r, OTHERS, OTHERS - 1, window)
    spent.close()
    other.close()


def test_minting_tokens_does_not_raise_the_budget(limited, backend, window):
    """The hostile-input attack: a token mints more tokens through the API to
    multiply its budget.  The new tokens spend the same budget: in the
    window, all the user's tokens together get exactly OTHERS requests
    (the creates included)."""
    minted = 4
    first = limited.client(token=user_token(backend))
    tokens = []
    for i in range(minted):
        r = first.post("/profile/tokens", json={"label": f"e2e-mint-{i}"})
        assert r.status == 200, r
        tokens.append(r.json["token"])
    clients = [first] + [limited.client(token=t) for t in tokens]
    statuses = [clients[i % len(clients)].get("/profile").status
                for i in range(OTHERS + len(clients))]
    assert statuses == [200] * (OTHERS - minted) + [429] * (minted + len(clients)), statuses
    for c in clients:
        assert_error(c.get("/profile"), 429, R_RATE)
        c.close()


def test_public_routes_count_the_client_address(limited, backend, window):
    """Without a token (or with a refused one) the client address pays;
    the Authorization header of a public route does not matter."""
    anon = limited.client()
    statuses = [anon.get("/regions/us-east").status for _ in range(OTHERS + 2)]
    assert statuses == [200] * OTHERS + [429] * 2, statuses
    r = anon.get("/profile", token="0" * 64)
    assert_error(r, 429, R_RATE)
    # A valid token has its own budget, even on a public route's neighbours.
    assert limited.client(token=backend.mint_token()).get("/profile").status == 200
    anon.close()


def test_refused_tokens_are_counted(limited, window):
    """Guessing tokens costs the address's budget: 401s until it is spent."""
    anon = limited.client()
    statuses = [anon.get("/profile", token=f"{i:064x}").status for i in range(OTHERS + 3)]
    assert statuses == [401] * OTHERS + [429] * 3, statuses
    anon.close()


def test_next_window_starts_afresh(limited, token, window, clock):
    c = limited.client(token=token)
    for _ in range(OTHERS):
        c.get("/profile")
    assert c.get("/profile").status == 429
    clock("advance", "60s")
    r = c.get("/profile")
    assert r.status == 200, r
    assert_rate_headers(r, OTHERS, OTHERS - 1, window + 60)
    c.close()


def test_defaults_are_the_public_apis(make_server, token):
    srv = make_server(name="rate-defaults", rate_limit=None)
    c = srv.client(token=token)
    assert c.get("/profile").headers.get("X-RateLimit-Limit") == "1600"
    assert c.get("/domains").headers.get("X-RateLimit-Limit") == "200"
    c.close()


def test_off(make_server, token):
    srv = make_server(name="rate-off", rate_limit="off")
    c = srv.client(token=token)
    r = c.get("/profile")
    assert r.status == 200, r
    assert not any(h.startswith("X-RateLimit") for h in r.headers), r
    c.close()


def test_headers_on_errors_too(limited, token, window):
    c = limited.client(token=token)
    r = c.get("/domains/999999999")
    assert_error(r, 404, "Not found")
    assert_rate_headers(r, OTHERS, OTHERS - 1, window)
    c.close()
