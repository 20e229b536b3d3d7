"""Session fixtures of the end-to-end suite.

Every test that uses `backend` (directly or through `server`, `api`, `anon`)
runs twice: on SQLite and on a private PostgreSQL cluster.  After each test
the new part of every server's error log is scanned: any [warn] or worse
fails the test unless the test declared it with the `expect_log` fixture or
the `@pytest.mark.expect_log(regex, ...)` marker; a crash ("Segmentation
fault", "exit signal", AH00052) fails it in any case.

Every response a test receives through harness.Client (and harness.race)
is checked against mod_acctapi/api/openapi.json: a response the document does
not allow fails the test that made the request (harness.check_response).

Environment:
  ACCTAPI_BUILD_DIR   build directory (default: the repository root)
  ACCTAPI_NO_OPENAPI_CHECK  skip the response checks (debugging only)
  ACCTAPI_KEEP_TMP    keep the temporary directories (logs, configs)
  ACCTAPI_SKIP_QUICKSTART  skip the quickstart smoke test
  ACCTAPI_TEST_CLOCK_START  start the servers' test clock at this UTC instant
                      (YYYY-MM-DDTHH:MM:SS), and every test that moves the
                      clock from it (harness.SuiteClock)
  ACCTAPI_E2E_BACKENDS  what to run, comma-separated (default
                      sqlite,pgsql,none): the tests on each backend named
                      (sqlite, pgsql, pgbouncer), and with "none" the
                      tests that use no backend of the suite's (they start
                      servers, PostgreSQL clusters or quickstarts of their
                      own).  pgbouncer is PostgreSQL through a PgBouncer
                      1.18 in transaction mode, for the modules of
                      POOLED_SUBSET only.
  ACCTAPI_E2E_PART    one of the parts scripts/test runs side by side, which
                      share nothing (harness.PARTS: sqlite, server, pgsql,
                      pgbouncer, none): the backends and the areas of
                      tests/e2e it runs; not with ACCTAPI_E2E_BACKENDS.
"""

import os
import re
import shutil
from pathlib import Path

import pytest

import harness
from harness import Backend, Httpd, make_tmpdir


PART = os.environ.get("ACCTAPI_E2E_PART")
if PART is not None:
    if PART not in harness.PARTS:
        raise pytest.UsageError(f"ACCTAPI_E2E_PART: one of {', '.join(harness.PARTS)}, "
                                f"not {PART!r}")
    if "ACCTAPI_E2E_BACKENDS" in os.environ:
        raise pytest.UsageError("ACCTAPI_E2E_PART chooses the backends: "
                                "not with ACCTAPI_E2E_BACKENDS")
    # (backend, area) pairs: harness.PARTS.
    SELECTED = list(harness.PARTS[PART])
else:
    SELECTED = [(b, None) for b in
                os.environ.get("ACCTAPI_E2E_BACKENDS", "sqlite,pgsql,none").split(",") if b]
CHOSEN = list(dict.fromkeys(b for b, _ in SELECTED))
if not CHOSEN or set(CHOSEN) - {"sqlite", "pgsql", "pgbouncer", "none"}:
    raise pytest.UsageError(f"ACCTAPI_E2E_BACKENDS: sqlite, pgsql, pgbouncer and/or none, "
                            f"not {CHOSEN}")
BACKENDS = [b for b in CHOSEN if b != "none"]

# The tests that also run through PgBouncer in transaction mode (the
# "pgbouncer" backend, AcctapiPreparedStatements Off): together they send
# every route a request that passes authorization and reaches the database
# (the authorization matrix: every non-public route; the catalogue: the
# public ones), the clients' own flows and every route and key they use,
# and the races that must keep one winner when each transaction may run on
# another server connection.
POOLED_SUBSET = {
    "protocol/test_authz_matrix.py",
    "catalog/test_catalog.py",
    "public/test_client_facts.py",
    "clients/test_linode_api4.py",
    "clients/test_terraform.py",
    "clients/test_linode_cli.py",
    "databases/test_databases.py",
    "dns/test_domain_records.py",
    "events/test_event_routes.py",
    "server/test_concurrency.py",
    "server/test_pooler.py",
}
# Modules about the pooler itself: on the pgbouncer backend only.
POOLED_ONLY = {"server/test_pooler.py"}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "expect_log(*regexes): error-log lines this test may cause")
    harness.unblock_signals()


def pytest_collection_modifyitems(config, items):
    """Only the tests of the backends chosen (on the pgbouncer backend, only
    those of POOLED_SUBSET), and the tests that use no backend if "none" is
    chosen; of a part's (backend, area) pairs only (harness.PARTS)."""
    def kept(item):
        module = Path(str(item.fspath)).relative_to(Path(__file__).parent).as_posix()
        area = "server" if module.split("/")[0] == "server" else "api"
        if "backend" in item.fixturenames:
            on = getattr(item, "callspec", None) and item.callspec.params.get("backend")
        else:
            on = "none"
        # on is None for a test of the backend fixture when no backend is
        # chosen (its tests are then not parametrized): never kept.
        if not any(b == on and a in (None, area) for b, a in SELECTED):
            return False
        if on == "pgbouncer":
            return module in POOLED_SUBSET
        return module not in POOLED_ONLY
    dropped = [i for i in items if not kept(i)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if kept(i)]


def pytest_terminal_summary(terminalreporter):
    """The figures tests measured (harness.report_figure), and what checking
    every response against the OpenAPI document cost."""
    if harness.FIGURES:
        terminalreporter.section("figures")
        for line in harness.FIGURES:
            terminalreporter.write_line(line)
    doc = harness.openapi_loaded()
    if doc is not None and doc.checked:
        terminalreporter.write_line(
            f"OpenAPI: {doc.checked} responses checked against "
            f"{doc.path.name} in {doc.seconds:.1f}s "
            f"({1000 * doc.seconds / doc.checked:.2f} ms each)")


@pytest.fixture(scope="session")
def build():
    missing = [str(p) for p in (harness.MODULE, harness.ADMIN) if not p.exists()]
    if missing:
        pytest.fail("not built: " + ", ".join(missing) +
                    " (run scripts/test, or build and set ACCTAPI_BUILD_DIR)", pytrace=False)
    return harness.BUILD


@pytest.fixture(scope="session")
def e2e_tmp():
    d = make_tmpdir("acctapi-e2e-")
    yield d
    if not os.environ.get("ACCTAPI_KEEP_TMP"):
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request, build, e2e_tmp):
    pooled = request.param == "pgbouncer"
    b = Backend("pgsql" if pooled else request.param, e2e_tmp / request.param, pooled=pooled)
    b.base.mkdir()
    b.base.chmod(0o755)
    try:
        b.setup()
        yield b
    finally:
        b.destroy()


@pytest.fixture(scope="session")
def server(backend, e2e_tmp):
    """The shared server of a backend: HTTP, AcctapiTestClock On, defaults."""
    with harness.serving(backend, name="httpd") as srv:
        yield srv


# The public service's own values, the ones today's clients' tests assert
# (nameservers ns1..ns5.linode.com, database hosts named
# a<id>-akamai-prod-<n>-default under g2a.akamaidb.net, administrator
# akmadmin), as docs/emulator.md's quickstart section shows them: the server of the
# client suites and of the client facts' check.
PUBLIC_VALUES = """<LocationMatch "^/v4(beta)?(/|$)">
    AcctapiNameservers ns1.linode.com ns2.linode.com ns3.linode.com ns4.linode.com ns5.linode.com
    AcctapiDatabaseHostSuffix g2a.akamaidb.net
    AcctapiDatabaseHostNames public
    AcctapiDatabaseAdminUser akmadmin
</LocationMatch>
"""


@pytest.fixture(scope="session")
def public_server(backend):
    """A server of `backend` with the public service's values (above)."""
    with harness.serving(backend, name="httpd-public-values", extra=PUBLIC_VALUES) as srv:
        yield srv


@pytest.fixture
def api(server, backend):
    """Client of the shared server with the all-scopes token."""
    c = server.client(token=backend.token)
    yield c
    c.close()


@pytest.fixture
def anon(server):
    """Client of the shared server without a token."""
    c = server.client()
    yield c
    c.close()


@pytest.fixture
def make_account(backend, server):
    """Fresh accounts for a test: make_account(cls=harness.Account, **kw)
    makes one of `cls` (a harness.Account: an unrestricted owner and its
    client) on the shared server; each is closed after the test."""
    made = []

    def make(cls=harness.Account, **kw):
        made.append(cls(backend, server, **kw))
        return made[-1]

    yield make
    for a in made:
        a.close()


@pytest.fixture
def make_user(backend, server):
    """Fresh users of the e2e account for a test: make_user(scopes="*",
    restricted=False) is a client of the shared server with a token of a new
    user (its .uid, .username, .token); each is closed after the test."""
    made = []

    def make(**kw):
        made.append(backend.fresh_user(server, **kw))
        return made[-1]

    yield make
    for c in made:
        c.close()


@pytest.fixture
def make_server(backend):
    """Starts extra servers on the current backend; stops them after the
    test.  They are of harness.SMALL_SERVER's size unless the test names
    another (size=None: the generated configuration's); a test may still
    set one of its parts (dbd_max=1)."""
    started = []

    def start(size=harness.SMALL_SERVER, **opts):
        for part, value in (size or {}).items():
            opts.setdefault(part, value)
        srv = Httpd(backend, backend.base, **opts)
        started.append(srv)
        return srv.start()

    yield start
    errors = []
    for srv in started:
        try:
            srv.stop()
        except Exception as e:  # stop every server even if one fails
            errors.append(str(e))
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)


@pytest.fixture
def clock(backend):
    """acctapi-admin clock, starting where the suite starts every test that
    moves the clock (harness.SuiteClock: the machine's time, or
    ACCTAPI_TEST_CLOCK_START), put back after the test whatever happens."""
    def admin_clock(*args):
        if args == ("reset",):
            return backend.start_test_clock()
        return backend.admin("clock", *args)
    try:
        yield admin_clock
    finally:
        backend.reset_clock()


@pytest.fixture(autouse=True)
def clock_start(request):
    """With ACCTAPI_TEST_CLOCK_START, a test that takes `clock` starts at the
    chosen instant: set here, before any of the test's own fixtures make
    data (autouse fixtures come first), so that nothing the test made lies
    ahead of the instant it starts from, as with the machine's clock."""
    if harness.CLOCK.start is not None and "clock" in request.fixturenames:
        request.getfixturevalue("backend").start_test_clock()
    yield


@pytest.fixture
def expect_log(request):
    """expect_log(regex): lines matching regex are expected in this test."""
    patterns = request.node.__dict__.setdefault("_acctapi_expected", [])

    def add(regex):
        patterns.append(re.compile(regex))
    return add


@pytest.fixture(autouse=True)
def log_guard(request):
    yield
    allowed = list(request.node.__dict__.get("_acctapi_expected", []))
    for m in request.node.iter_markers("expect_log"):
        allowed += [re.compile(a) for a in m.args]
    problems = []
    for srv in harness.SERVERS:
        bad = srv.scan_log(allowed)
        if bad:
            problems.append(f"{srv.error_log}:\n  " + "\n  ".join(bad))
    if problems:
        pytest.fail("unexpected error-log lines:\n" + "\n".join(problems), pytrace=False)
