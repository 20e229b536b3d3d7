"""Assertions shared by the tests, exact per docs/conventions.md."""

from harness import CACHEABLE, NO_STORE, SPEC_VERSION, VARY

ABSENT = object()


def assert_json(r):
    assert r.ctype == "application/json", f"Content-Type {r.ctype!r}: {r}"
    return r.json


def assert_headers(r, *, cache=NO_STORE, scopes=None, accepted=None):
    """The headers every /v4 response carries.  scopes/accepted: the exact
    X-OAuth-Scopes / X-Accepted-OAuth-Scopes, or None to require presence only."""
    h = r.headers
    assert h.get("X-Spec-Version") == SPEC_VERSION, r
    # Token-wise: httpd re-joins Vary with "," (see test_headers.py).
    vary = [t.strip() for t in h.get("Vary", "").split(",")]
    assert vary == [t.strip() for t in VARY.split(",")], r
    if cache is not None:
        assert h.get("Cache-Control") == cache, r
    assert "X-OAuth-Scopes" in h, r
    if scopes is not None:
        assert h["X-OAuth-Scopes"] == scopes, r
    assert "X-Accepted-OAuth-Scopes" in h or accepted is None, r
    if accepted is not None:
        assert h.get("X-Accepted-OAuth-Scopes") == accepted, r


def assert_error(r, status, reason=None, field=ABSENT, *, only=True):
    """An error response: status, application/json, the errors envelope.
    reason None: any non-empty reason.  field ABSENT: the key must be absent;
    None: do not check.  only: exactly one error item."""
    assert r.status == status, r
    doc = assert_json(r)
    assert isinstance(doc, dict) and list(doc) == ["errors"], r
    errs = doc["errors"]
    assert isinstance(errs, list) and errs, r
    if only:
        assert len(errs) == 1, r
    e = errs[0]
    assert isinstance(e.get("reason"), str) and e["reason"], r
    if reason is not None:
        assert e["reason"] == reason, r
    if field is ABSENT:
        assert "field" not in e, r
    elif field is not None:
        assert e.get("field") == field, r
    assert set(e) <= {"reason", "field"}, r
    return errs


def assert_envelope(doc):
    assert isinstance(doc, dict), doc
    assert set(doc) == {"data", "page", "pages", "results"}, doc
    assert isinstance(doc["data"], list)
    for k in ("page", "pages", "results"):
        assert isinstance(doc[k], int) and not isinstance(doc[k], bool), doc
    assert doc["pages"] >= 1, doc
    assert doc["results"] >= 0, doc
    return doc["data"]


def pages_for(results, page_size):
    return max(1, -(-results // page_size))


__all__ = ["ABSENT", "CACHEABLE", "NO_STORE", "assert_json", "assert_headers",
           "assert_error", "assert_envelope", "pages_for"]
