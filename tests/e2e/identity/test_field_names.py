"""The contract's names and the public API's names of the same fields
(docs/conventions.md, "Today's clients", Names): requests take either name (both
with different values: a 400 naming the public one); responses carry both
by default, and AcctapiFieldNames public or contract keeps one of them.  A
tagged object's type, a value, is the public API's (linode) except under
contract.  acctapi-admin takes the public names too."""

import secrets
from urllib.parse import quote

import pytest

import harness
from checks import assert_error, assert_json

# contract name: public name
PROFILE_PAIRS = {"shell_auth_method": "lish_auth_method"}
GRANT_PAIRS = {"instance": "linode", "monitoring": "longview"}
GLOBAL_PAIRS = {"add_instances": "add_linodes", "add_monitoring": "add_longview",
                "monitoring_subscription": "longview_subscription"}

# The keys the public API's schema allows (linode-api-docs v4.191.2: the
# profile, GrantsResponse and its global grants; additionalProperties false).
# The grants keys only the public API has (no contract name stands for them).
PUBLIC_ONLY_GRANTS = {"firewall", "placement_group"}
PUBLIC_ONLY_GLOBAL = {"add_placement_groups", "child_account_access"}
PUBLIC_PROFILE = {"authentication_type", "authorized_keys", "email", "email_notifications",
                  "ip_whitelist_enabled", "lish_auth_method", "referrals", "restricted",
                  "timezone", "two_factor_auth", "uid", "user_type", "username",
                  "verified_phone_number"}
PUBLIC_GRANTS = {"database", "domain", "firewall", "global", "image", "linode", "longview",
                 "nodebalancer", "placement_group", "stackscript", "volume", "vpc"}
PUBLIC_GLOBAL = {"account_access", "add_databases", "add_domains", "add_firewalls",
                 "add_images", "add_linodes", "add_longview", "add_nodebalancers",
                 "add_placement_groups", "add_stackscripts", "add_volumes", "add_vpcs",
                 "cancel_account", "child_account_access", "longview_subscription"}


def names_conf(mode, location):
    """The directive for the whole server, or (location) for /v4 only."""
    if location:
        return f'<Location "/v4">\n    AcctapiFieldNames {mode}\n</Location>\n'
    return f"AcctapiFieldNames {mode}\n"


def register(backend, account, kind, label):
    n = secrets.randbelow(2**40) + 1000
    assert backend.admin("entity", "add", "--account", str(account), "--type", kind,
                         "--id", str(n), "--label", label) == str(n)
    return n


class Scene:
    """An account whose restricted user holds grants under every renamed
    key, set through acctapi-admin with the public API's names, and a tag
    on one of its instances."""

    def __init__(self, backend, server):
        self.acct = harness.Account(backend, server, stem="e2e-names-")
        self.vm = register(backend, self.acct.id, "linode", "web-1")
        self.lv = register(backend, self.acct.id, "longview", "lv-1")
        self.uid, self.limited = self.acct.user(restricted=True)
        user = str(self.uid)
        backend.admin("grant", "global", "--user", user, "add_linodes=true",
                      "add_instances=true", "longview_subscription=true")
        backend.admin("grant", "entity", "--user", user, "--type", "linode",
                      "--id", str(self.vm), "--permissions", "read_write")
        backend.admin("grant", "entity", "--user", user, "--type", "monitoring",
                      "--id", str(self.lv), "--permissions", "read_only")
        self.tag = f"names {secrets.token_hex(3)}"
        r = self.acct.client.post("/tags", json={"label": self.tag, "linodes": [self.vm]})
        assert assert_json(r) == {"label": self.tag}

    def close(self):
        self.acct.close()

    def tagged_types(self):
        r = self.acct.client.get(f"/tags/{quote(self.tag)}")
        return [o["type"] for o in assert_json(r)["data"]]


@pytest.fixture
def scene(backend, server):
    s = Scene(backend, server)
    yield s
    s.close()


def grant_values(s, grants, name):
    """The instance or monitoring grants list, under `name`."""
    vm = {"id": s.vm, "label": "web-1", "permissions": "read_write"}
    lv = {"id": s.lv, "label": "lv-1", "permissions": "read_only"}
    return grants[name], vm if name in ("instance", "linode") else lv


def test_both_names_by_default(scene):
    profile = assert_json(scene.acct.client.get("/profile"))
    assert profile["lish_auth_method"] == profile["shell_auth_method"] == "password_keys"
    grants = assert_json(scene.limited.get("/profile/grants"))
    for contract, public in GRANT_PAIRS.items():
        listed, want = grant_values(scene, grants, public)
        assert listed == grants[contract] and want in listed, grants
    glob = grants["global"]
    assert glob["add_instances"] is glob["add_linodes"] is True, glob
    assert glob["add_monitoring"] is glob["add_longview"] is False, glob
    assert glob["monitoring_subscription"] is glob["longview_subscription"] is True, glob
    # The public name next to the contract's.
    keys = list(glob)
    for contract, public in GLOBAL_PAIRS.items():
        assert keys.index(public) == keys.index(contract) + 1, keys
    keys = list(grants)
    for contract, public in GRANT_PAIRS.items():
        assert keys.index(public) == keys.index(contract) + 1, keys
    # Keys only the public API has: the module has no firewalls, placement
    # groups or parent accounts.
    assert {k: grants[k] for k in PUBLIC_ONLY_GRANTS} == {"firewall": [],
                                                         "placement_group": []}, grants
    assert {k: glob[k] for k in PUBLIC_ONLY_GLOBAL} == {"add_placement_groups": False,
                                                       "child_account_access": None}, glob
    assert set(grants) == PUBLIC_GRANTS | set(GRANT_PAIRS), grants
    assert set(glob) == PUBLIC_GLOBAL | set(GLOBAL_PAIRS), glob
    assert scene.tagged_types() == ["linode"]


def test_profile_takes_either_name(scene):
    c = scene.acct.client
    r = c.put("/profile", json={"lish_auth_method": "keys_only"})
    assert r.status == 200, r
    assert r.json["shell_auth_method"] == r.json["lish_auth_method"] == "keys_only", r
    r = c.put("/profile", json={"shell_auth_method": "disabled",
                                "lish_auth_method": "disabled"})
    assert r.status == 200, r
    assert r.json["shell_auth_method"] == r.json["lish_auth_method"] == "disabled", r
    assert_error(c.put("/profile", json={"shell_auth_method": "keys_only",
                                         "lish_auth_method": "password_keys"}),
                 400, "lish_auth_method and shell_auth_method name the same setting "
                 "and must agree", "lish_auth_method")
    assert assert_json(c.get("/profile"))["lish_auth_method"] == "disabled"


@pytest.mark.parametrize("location", [False, True], ids=["server", "location"])
@pytest.mark.parametrize("mode", ["public", "contract"])
def test_one_name_only(backend, make_server, mode, location):
    """public: only the public API's names, every key one its schema allows;
    contract: only the contract's.  Requests take either name all the same."""
    srv = make_server(name=f"names-{mode}", extra=names_conf(mode, location))
    public = mode == "public"

    def kept(pairs):
        return set(pairs.values()) if public else set(pairs)

    def dropped(pairs):
        return set(pairs) if public else set(pairs.values())

    (shell,), (other,) = kept(PROFILE_PAIRS), dropped(PROFILE_PAIRS)
    s = Scene(backend, srv)
    try:
        for r in (s.acct.client.put("/profile", json={other: "keys_only"}),
                  s.acct.client.get("/profile")):
            profile = assert_json(r)
            assert profile[shell] == "keys_only" and other not in profile, profile
            assert set(profile) == PUBLIC_PROFILE if public else len(profile) == 13, profile
            # user_type is the public API's only: the contract's names leave it out.
            assert ("user_type" in profile) == public, profile
        grants = assert_json(s.limited.get("/profile/grants"))
        glob = grants["global"]
        assert not dropped(GRANT_PAIRS) & set(grants), grants
        assert not dropped(GLOBAL_PAIRS) & set(glob), grants
        if public:
            # Every key of the public shape, the public-only ones included.
            assert set(grants) == PUBLIC_GRANTS and set(glob) == PUBLIC_GLOBAL, grants
        else:
            # The contract's keys only: no key the public API alone has.
            assert len(grants) == 10 and len(glob) == 13, grants
            assert not (PUBLIC_ONLY_GRANTS & set(grants)
                        or PUBLIC_ONLY_GLOBAL & set(glob)), grants
        for name in kept(GRANT_PAIRS):
            listed, want = grant_values(s, grants, name)
            assert listed == [want], grants
        for contract, value in (("add_instances", True), ("add_monitoring", False),
                                ("monitoring_subscription", True)):
            assert glob[GLOBAL_PAIRS[contract] if public else contract] is value, glob
        r = s.acct.client.post("/tags", json={"label": f"more {secrets.token_hex(3)}",
                                              "linodes": [s.vm]})
        assert r.status == 200, r
        assert s.tagged_types() == ["linode" if public else "instance"]
    finally:
        s.close()


def test_directive_refuses_other_values(make_server):
    with pytest.raises(harness.HarnessError) as e:
        make_server(name="names-bad", extra=names_conf("linode", False))
    assert "AcctapiFieldNames: both (the default), public or contract" in str(e.value)


def admin_fails(backend, message, *args):
    p = backend.admin(*args, check=False)
    assert p.returncode == 2 and p.stdout == "", p
    assert message in p.stderr, p.stderr


def test_cli_takes_public_names(scene, backend):
    user = str(scene.uid)
    admin_fails(backend, "add_linodes and add_instances name the same grant and must agree",
                "grant", "global", "--user", user, "add_instances=true", "add_linodes=false")
    admin_fails(backend, "longview_subscription and monitoring_subscription name the same "
                "grant and must agree", "grant", "global", "--user", user,
                "longview_subscription=false", "monitoring_subscription=true")
    admin_fails(backend, "add_longview given twice", "grant", "global", "--user", user,
                "add_longview=true", "add_longview=true")
    admin_fails(backend, "invalid value 'yes' for add_linodes", "grant", "global",
                "--user", user, "add_linodes=yes")
    admin_fails(backend, "invalid type 'linodes'", "entity", "add", "--account",
                str(scene.acct.id), "--type", "linodes", "--id", "5", "--label", "x")
    # Nothing changed; then the public names set the grants.
    rows = backend.query("SELECT add_instances, add_monitoring, monitoring_subscription"
                         f" FROM user_global_grants WHERE user_id = {scene.uid}")
    assert rows == [["1", "0", "1"]]
    backend.admin("grant", "global", "--user", user, "add_longview=true",
                  "add_monitoring=true", "add_linodes=false")
    rows = backend.query("SELECT add_instances, add_monitoring, monitoring_subscription"
                         f" FROM user_global_grants WHERE user_id = {scene.uid}")
    assert rows == [["0", "1", "1"]]
    backend.admin("grant", "entity", "--user", user, "--type", "longview",
                  "--id", str(scene.lv), "--permissions", "none")
    assert backend.query("SELECT count(*) FROM entity_grants WHERE user_id ="
                         f" {scene.uid} AND entity_type = 'monitoring'") == [["0"]]
    assert backend.admin("entity", "remove", "--type", "linode", "--id", str(scene.vm)) == ""
    assert scene.tagged_types() == []
