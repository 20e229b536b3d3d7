"""Managed databases for tests: the two engines' collection paths, bodies
that create a database, and an account that makes them (shared by
databases/ and server/test_concurrency.py)."""

import harness
from checks import assert_json

PG = "/databases/postgresql/instances"
MY = "/databases/mysql/instances"


def pg_body(label, **extra):
    body = {"label": label, "region": "us-east", "type": "g6-standard-2",
            "engine": "postgresql/16.4"}
    body.update(extra)
    return body


def my_body(label, **extra):
    body = {"label": label, "region": "us-east", "type": "g6-nanode-1",
            "engine": "mysql/8.0.30"}
    body.update(extra)
    return body


class Account(harness.Account):
    """A fresh account (harness.Account) with the helpers of these tests."""

    def __init__(self, backend, server):
        super().__init__(backend, server, stem="e2e-db-")

    def create(self, path=PG, client=None, **body):
        make = pg_body if path == PG else my_body
        r = (client or self.client).post(path, json=make(**body))
        assert r.status == 200, r
        return assert_json(r)

    def get(self, db, path=PG, client=None):
        r = (client or self.client).get(f"{path}/{db['id']}")
        assert r.status == 200, r
        return r.json

    def set_status(self, db, status, *extra):
        out = self.backend.admin("database", "set-status", db["id"], status, *extra)
        assert out == status
        return out

    def active(self, path=PG, **body):
        """A database already through provisioning (forced, clock untouched)."""
        db = self.create(path, **body)
        self.set_status(db, "active")
        return db
