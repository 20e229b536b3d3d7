"""A restricted user's grants document: what it creates with its global
grants becomes its read_write entity, listed under the entity's kind;
entities of the account it holds no grant on are listed with null."""

import secrets

import harness
from checks import assert_json


def test_creator_grants_listed(backend, server):
    acct = harness.Account(backend, server, stem="e2e-grants-")
    try:
        other = acct.client.post("/domains", json={
            "domain": f"owner-{secrets.token_hex(4)}.example", "type": "master",
            "soa_email": "hostmaster@example.com"})
        assert other.status == 200, other
        uid, limited = acct.user(restricted=True)
        backend.execute("INSERT INTO user_global_grants (user_id, add_domains, add_databases)"
                        f" VALUES ({uid}, 1, 1)")
        domain = limited.post("/domains", json={
            "domain": f"mine-{secrets.token_hex(4)}.example", "type": "master",
            "soa_email": "hostmaster@example.com"})
        assert domain.status == 200, domain
        database = limited.post("/databases/mysql/instances", json={
            "label": f"mine-{secrets.token_hex(3)}", "region": "us-east",
            "type": "g6-nanode-1", "engine": "mysql/8.0.30"})
        assert database.status == 200, database

        grants = assert_json(limited.get("/profile/grants"))
        assert grants["global"]["add_domains"] is True
        assert grants["global"]["add_databases"] is True
        assert {"id": domain.json["id"], "label": domain.json["domain"],
                "permissions": "read_write"} in grants["domain"]
        assert {"id": other.json["id"], "label": other.json["domain"],
                "permissions": None} in grants["domain"]
        assert {"id": database.json["id"], "label": database.json["label"],
                "permissions": "read_write"} in grants["database"]
        # What it may see follows: its own domain, not the owner's.
        listed = [d["id"] for d in limited.all_pages("/domains")]
        assert listed == [domain.json["id"]], listed
    finally:
        acct.close()
