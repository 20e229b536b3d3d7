"""Counting each request's exchanges with the database, from the trace line
LogLevel acctapi:debug writes once a request is answered (PostgreSQL: round
trips, a pipeline counting once; SQLite: statements), and of them those
that set a connection up (PostgreSQL prepares a statement the first time a
connection meets it).

The server runs one child (TRACED_ONE_CHILD): what a process does once (the
schema check, a token's account hint) is then done once, even when the
client's keep-alive connection is closed (KeepAliveTimeout on a loaded
machine) and opened again, which on two children may land on the other
one.  Each request waits for its trace line before the next is sent: httpd
writes a request's line after its answer has gone, and an answer that
closes the connection (a 400) lets the next request start on another
connection, and another thread, before that line is written."""

import re

import harness

# The trace lines, and one child process with the threads of a small
# server's two (harness.SMALL_SERVER: make_server's; httpd -X, under the
# sanitizers, is one process).
_THREADS = 2 * harness.SMALL_SERVER["threads"]
TRACED_ONE_CHILD = "LogLevel warn acctapi:debug\n" + (
    "" if harness.SANITIZE else
    f"StartServers 1\nServerLimit 1\nThreadLimit {_THREADS}\nThreadsPerChild {_THREADS}\n"
    f"MaxRequestWorkers {_THREADS}\nMinSpareThreads 25\nMaxSpareThreads {_THREADS}\n")


def trace_pattern(request):
    """The trace line of requests matching `request` (a regular expression
    of the method and path, "GET /v4/profile"): principal, status,
    exchanges, exchanges that set a connection up."""
    return re.compile(r"ACCT00059: " + request + r": route \S+, principal (\S+) "
                      r"\(user \d+, token \d+\), status (\d+), \d+ us, \d+ database "
                      r"connection\(s\), (\d+) database exchange\(s\) "
                      r"\((\d+) to set a connection up\)")


class ExchangeCount:
    """The requests a test sends to `srv`, each with the principal and
    status its trace line must show and the exchanges it must cost."""

    def __init__(self, srv, backend, request):
        self.srv, self.kind = srv, backend.kind
        self.trace = trace_pattern(request)
        self.start = srv.log_size()
        self.expected, self.exchanges = [], []
        self.first = 0

    def _lines(self):
        return [m.groups() for m in map(self.trace.search,
                                         self.srv.log_text(self.start).splitlines()) if m]

    def note(self, response, principal, status, cost):
        """After a request: its trace line will name `principal` and
        `status`, and count cost[0] exchanges on PostgreSQL, cost[1] on
        SQLite, besides the read of the test clock (AcctapiTestClock On,
        which the suite's servers run with) that opens each request's
        lease.  Returns the response once its status is checked."""
        self.expected.append((principal, str(status)))
        self.exchanges.append(cost[0] if self.kind == "pgsql" else cost[1])
        assert response.status == status, response
        harness.wait_for(lambda: len(self._lines()) >= len(self.expected), 10,
                         what="the request's trace line")
        return response

    def count_from_here(self):
        """Exchanges are compared from the next request on: a child checks
        the schema on its first request, and the first meeting of each
        statement is a connection's setup."""
        self.first = len(self.expected)

    def check(self):
        """Once the server has stopped (every trace line written)."""
        traces = self._lines()
        assert [t[:2] for t in traces] == self.expected, traces
        got = [int(t[2]) - int(t[3]) - 1 for t in traces[self.first:]]
        assert got == self.exchanges[self.first:], \
            list(zip(self.expected[self.first:], got, self.exchanges[self.first:]))
