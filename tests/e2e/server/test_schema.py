"""The module serves only the schema version it was built for: against any
other it answers 503 JSON and says why in the error log, without crashing."""

import re
import shutil
import subprocess

import pytest

from checks import assert_error
from harness import HTTPD_USER, IS_ROOT, SMALL_SERVER, Httpd, make_tmpdir


class OtherDatabase:
    """A copy of the SQLite backend's database whose recorded schema version
    is not this build's."""

    driver = "sqlite3"
    pooled = False

    @property
    def server_params(self):
        return self.params

    def __init__(self, base, source, version):
        self.dir = make_tmpdir(f"{base}/schema-")
        self.params = str(self.dir / "acct.db")
        subprocess.run(["sqlite3", str(source), f".backup {self.params}"], check=True)
        subprocess.run(["sqlite3", self.params,
                        f"UPDATE schema_version SET version = {version}"], check=True)
        if IS_ROOT:
            for p in [self.dir] + list(self.dir.iterdir()):
                shutil.chown(p, HTTPD_USER, HTTPD_USER)


@pytest.mark.parametrize("version", [1, 999])
def test_schema_mismatch_is_503(backend, version, expect_log):
    if backend.kind != "sqlite":
        pytest.skip("the version check is the same code on both drivers")
    expected = [r"database schema is at version \d+, this module needs \d+",
                r"answering 503 to GET"]
    for regex in expected:
        expect_log(regex)
    db = OtherDatabase(backend.base, backend.db_file, version)
    srv = Httpd(db, db.dir, name="schema", **SMALL_SERVER).start(
        allowed=[re.compile(regex) for regex in expected])
    try:
        c = srv.client(token=backend.token)
        assert_error(c.get("/profile"), 503, "Service Unavailable")
        assert_error(c.get("/regions"), 503, "Service Unavailable")
        log = srv.log_text()
        assert f"database schema is at version {version}" in log
        assert "Segmentation fault" not in log and "exit signal" not in log
    finally:
        srv.stop()
