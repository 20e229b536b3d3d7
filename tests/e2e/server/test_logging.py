"""Logs operators can use: every line of the module carries its own number
(ACCTnnnnn), LogLevel acctapi:debug traces each request (route template,
principal, status, time), the access log's %u is the acting username, and no
token ever reaches a log."""

import re

from harness import make_tmpdir

TRACE = re.compile(r"ACCT00059: (\S+) (\S+): route (\S+), principal (\S+) \(user (\d+), "
                   r"token (\d+)\), status (\d+), (\d+) us, (\d+) database connection\(s\), "
                   r"(\d+) database exchange\(s\) \((\d+) to set a connection up\)")


def test_debug_trace_and_access_log(make_server, backend):
    access = make_tmpdir(f"{backend.base}/access-") / "access.log"
    srv = make_server(name="traced", extra=(
        "LogLevel warn acctapi:debug\n"
        'LogFormat "%h %u \\"%r\\" %>s" acctapi_user\n'
        f'CustomLog "{access}" acctapi_user\n'))
    token = backend.mint_token(scopes="*")
    c, anon = srv.client(token=token), srv.client()
    start = srv.log_size()
    profile = c.get("/profile")
    assert profile.status == 200, profile
    username = profile.json["username"]
    assert c.get("/domains/999999999").status == 404
    assert anon.get("/profile").status == 401
    assert anon.get("/regions").status == 200
    c.close()
    anon.close()
    srv.stop()   # every line written

    text = srv.log_text(start)
    traces = [m for m in map(TRACE.search, text.splitlines()) if m]
    seen = {(m.group(1), m.group(2), m.group(7)): m for m in traces}
    ok = seen.get(("GET", "/v4/profile", "200"))
    assert ok, text[-3000:]
    assert ok.group(3) == "/profile" and ok.group(4) == username, ok.group(0)
    assert int(ok.group(5)) > 0 and int(ok.group(6)) > 0 and int(ok.group(9)) >= 1, ok.group(0)
    # The token lookup at least; setting up is part of the exchanges.
    assert int(ok.group(10)) >= 1 and int(ok.group(11)) <= int(ok.group(10)) - 1, ok.group(0)
    refused = seen.get(("GET", "/v4/profile", "401"))
    assert refused and refused.group(4) == "-" and refused.group(6) == "0", text[-3000:]
    missing = seen.get(("GET", "/v4/domains/999999999", "404"))
    assert missing and missing.group(3) == "/domains/{domainId}", text[-3000:]
    public = seen.get(("GET", "/v4/regions", "200"))
    assert public and public.group(4) == "-", text[-3000:]
    # Every line of the module carries its number; no token in any log.
    for line in text.splitlines():
        if "[acctapi:" in line:
            assert re.search(r"\] ACCT\d{5}: ", line), line
        assert token not in line and backend.token not in line, line
    lines = access.read_text().splitlines()
    assert any(f' {username} "GET /v4/profile HTTP/1.1" 200' in line for line in lines), lines
    assert any(' - "GET /v4/profile HTTP/1.1" 401' in line for line in lines), lines
    assert not any(token in line for line in lines), lines
