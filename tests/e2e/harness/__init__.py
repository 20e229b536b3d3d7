"""Mechanics of the end-to-end suite, one module per concern:

  base      paths of the build and the repository, settings of the run
            (ACCTAPI_BUILD_DIR, ACCTAPI_SANITIZE ...), run(), ports, temporary
            directories, waiting, the figures printed at the end of the run
  postgres  a private PostgreSQL cluster (PgCluster)
  pgbouncer a private PgBouncer in transaction mode in front of one
            (PgBouncer)
  backend   a prepared database on SQLite or PostgreSQL and acctapi-admin
            (Backend), accounts of their own for tests (Account), run_all()
            and race() for concurrent requests
  server    httpd started from scripts/httpd-conf with the module of the
            build tree (Httpd), its error log checked after every test
  client    the HTTP client of the tests (Client, Resp)
  wire      its transport: requests' request preparation and response
            object over http.client (Http, request_once)
  openapi_doc  every response checked against the OpenAPI document
  tls       a private CA and a server certificate it signed (make_tls)

Tests import names from the package (`from harness import Client`,
`harness.SANITIZE`).  Nothing here asserts API behaviour; the tests do.
"""

from .base import *  # noqa: F401,F403
from .postgres import *  # noqa: F401,F403
from .pgbouncer import *  # noqa: F401,F403
from .openapi_doc import *  # noqa: F401,F403
from .client import *  # noqa: F401,F403
from .backend import *  # noqa: F401,F403
from .server import *  # noqa: F401,F403
from .tls import *  # noqa: F401,F403
