"""Secrets canary: plant one of every secret the service keeps (a personal
access token, a two-factor secret and its scratch code, a pending phone code,
security answers, managed-database root passwords), then look for them
everywhere an attacker or a careless operator could: a dump of the database
(SQLite's raw files too), every GET route of the build (`acctapi-admin
routes`) with the ids of the planted objects, the headers of those answers,
and the server's logs.  Each secret may appear only in its one reveal: the
token and the two-factor secret in their create answers (never fetched
again), the database password in the credentials view, the security answers
in their owner's own GET."""

import re
import secrets
import subprocess

import pytest

import harness
from checks import assert_json
from harness import ADMIN
from otp import code_in, server_now, totp

PROVISIONED = "31m"
SMS_LINE = re.compile(r"^\S+ (\+\d+) .*?code is (\d{6})")
# The reveals: the only GET answers that may carry a given kind of secret.
REVEALS = {
    "security_answer": {"/v4/profile/security-questions"},
    "db_password": {"/v4/databases/mysql/instances/{instanceId}/credentials",
                    "/v4/databases/postgresql/instances/{instanceId}/credentials"},
}


def get_routes():
    out = subprocess.run([str(ADMIN), "routes"], check=True, capture_output=True,
                         text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    return [path for method, path, *_ in rows if method == "GET"]


class Planted:
    """The secrets of one fresh account, and the ids of what holds them."""

    def __init__(self, backend, server, clock):
        self.acct = harness.Account(backend, server, stem="e2e-canary-")
        c = self.acct.client
        tag = secrets.token_hex(4)
        self.secrets = {}          # text -> kind
        self.ids = {}

        # A personal access token: the full value is shown once, at creation.
        r = c.post("/profile/tokens", json={"label": f"canary-{tag}", "scopes": "*"})
        assert r.status == 200, r
        token = assert_json(r)
        self.ids["tokenId"] = token["id"]
        self.secrets[token["token"]] = "token"

        # Security answers, then two-factor on.
        pairs = [(1, f"Cc{tag}"), (5, f"Cs{tag}"),
                 (12, f"Ck{tag}")]
        r = c.post("/profile/security-questions", json={"security_questions": [
            {"question_id": q, "response": a} for q, a in pairs]})
        assert r.status == 200, r
        for _, answer in pairs:
            self.secrets[answer] = "security_answer"
        r = c.post("/profile/tfa-enable")
        assert r.status == 200, r
        secret = assert_json(r)["secret"]
        r = c.post("/profile/tfa-enable-confirm",
                   json={"tfa_code": totp(secret, server_now(backend))})
        assert r.status == 200, r
        self.secrets[secret] = "tfa_secret"
        self.secrets[assert_json(r)["scratch"]] = "tfa_scratch"

        # A phone code, sent and left pending (it is stored hashed).
        rest = f"{secrets.randbelow(10**6):06d}"
        national, e164 = f"07700 9{rest[:2]} {rest[2:]}", f"+4477009{rest}"
        r = c.post("/profile/phone-number", json={"iso_code": "gb",
                                                  "phone_number": national})
        assert r.status == 200, r
        codes = [m.group(2) for m in map(SMS_LINE.match, server.sms_log.read_text().splitlines())
                 if m and m.group(1) == e164]
        assert codes, server.sms_log.read_text()[-500:]
        self.phone_code = codes[-1]

        # Managed databases of both engines, with their root passwords.
        for engine, body in (("mysql", {"engine": "mysql/8.0.30", "type": "g6-nanode-1"}),
                             ("postgresql", {"engine": "postgresql/16.4",
                                             "type": "g6-standard-2"})):
            r = c.post(f"/databases/{engine}/instances",
                       json={"label": f"canary-{engine[:2]}-{tag}", "region": "us-east", **body})
            assert r.status == 200, r
            self.ids[engine] = assert_json(r)["id"]
        clock("advance", PROVISIONED)
        for engine in ("mysql", "postgresql"):
            r = c.get(f"/databases/{engine}/instances/{self.ids[engine]}/credentials")
            assert r.status == 200, r
            self.secrets[assert_json(r)["password"]] = "db_password"

        # A domain with a record, an SSH key: ordinary objects to walk past.
        r = c.post("/domains", json={"domain": f"canary-{tag}.example", "type": "master",
                                     "soa_email": f"admin@canary-{tag}.example"})
        assert r.status == 200, r
        self.ids["domainId"] = assert_json(r)["id"]
        r = c.post(f"/domains/{self.ids['domainId']}/records",
                   json={"type": "A", "name": "www", "target": "192.0.2.10"})
        assert r.status == 200, r
        self.ids["recordId"] = assert_json(r)["id"]

    def concrete(self, path):
        """A GET route with the planted objects' ids in its parameters."""
        engine = "mysql" if "/mysql/" in path else "postgresql"
        values = {"instanceId": self.ids.get(engine), "tokenId": self.ids["tokenId"],
                  "domainId": self.ids["domainId"], "recordId": self.ids["recordId"]}

        def fill(m):
            name = m.group(1).rstrip(".")
            return str(values.get(name) or 1)
        return re.sub(r"\{([^}]+)\}", fill, path)[len("/v4"):]

    def found_in(self, text):
        """The planted secrets (kind, value) that `text` contains."""
        hits = [(kind, value) for value, kind in self.secrets.items() if value in text]
        if code_in(text, self.phone_code):
            hits.append(("phone_code", self.phone_code))
        return hits

    def close(self):
        self.acct.close()


@pytest.fixture
def planted(backend, server, clock):
    p = Planted(backend, server, clock)
    yield p
    p.close()


def test_no_secret_outside_its_reveal(planted, server):
    client = planted.acct.client
    log_start = server.log_size()
    seen_reveals = set()
    for route in get_routes():
        r = client.get(planted.concrete(route))
        text = r.text
        headers = "\n".join(f"{k}: {v}" for k, v in r.headers.items())
        assert not planted.found_in(headers), (route, headers)
        for kind, value in planted.found_in(text):
            assert route in REVEALS.get(kind, ()), \
                f"{kind} {value!r} in GET {route} ({r.status})"
            seen_reveals.add(kind)
    # The reveals do show what they reveal (the walk reached them).
    assert seen_reveals == {"security_answer", "db_password"}, seen_reveals
    # Nothing in the error log, including at debug level lines if any.
    assert not planted.found_in(server.log_text(log_start))


def test_database_dump_holds_no_secret(planted, backend):
    text, raw = backend.dump()
    assert not planted.found_in(text)
    for value in planted.secrets:
        assert value.encode() not in raw, planted.secrets[value]


def test_logs_hold_no_secret(planted, server):
    logs = [server.error_log] + sorted(server.root.glob("*access*"))
    for path in logs:
        assert not planted.found_in(path.read_text(errors="replace")), path
