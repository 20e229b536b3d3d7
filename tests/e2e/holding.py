"""A transaction of the test's own that holds a write lock while a request
under test runs: what the request must wait out, and judge again once the
holder has committed (server/test_concurrency.py, dns/test_domain_records.py)."""

import threading
import time

import harness


def hold_write(backend, sql, seconds, held):
    """Runs `sql` in a transaction that stays open `seconds` before it
    commits, in another session: the row locks it takes are held meanwhile
    (PostgreSQL), or the database's write lock (SQLite).  Sets `held` once
    `sql` has run (SQLite); on PostgreSQL, start_holding watches the
    session instead."""
    if backend.kind == "pgsql":
        return backend.cluster.psql(f"BEGIN; {sql}; SELECT pg_sleep({seconds}); COMMIT;",
                                    db="acctapi")
    import sqlite3
    con = sqlite3.connect(backend.params, timeout=30, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute(sql)
        held.set()
        time.sleep(seconds)
        con.execute("COMMIT")
    finally:
        con.close()


def start_holding(backend, sql, seconds):
    """hold_write in a thread, returned once the lock is held: a fixed sleep
    would let the request under test go first on a busy machine."""
    held = threading.Event()
    holder = threading.Thread(target=hold_write, daemon=True,
                              args=(backend, sql, seconds, held))
    holder.start()
    if backend.kind == "pgsql":
        # The transaction's statements run in order: once its session sleeps
        # in pg_sleep, the UPDATE before it holds its row locks.
        harness.wait_for(lambda: backend.query(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")[0][0]
            not in (0, "0"), 10, what="the holding transaction's lock")
    else:
        assert held.wait(10), "the holding transaction never took the lock"
    return holder
