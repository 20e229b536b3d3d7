"""Exact header values on every kind of /v4 response."""

import pytest

from harness import NO_STORE, VARY


def vary_tokens(value):
    return [t.strip() for t in (value or "").split(",")]


# httpd's header filter re-joins Vary values with "," (no space) on every
# response; the field lists the same two tokens, which is all HTTP caches and
# clients read (RFC 9110, 12.5.5).  The tokens and their order are checked.
@pytest.mark.parametrize("path,token", [
    ("/regions", False), ("/compute/types", False), ("/databases/engines", False),
    ("/profile", True), ("/profile", False), ("/nope", False),
])
def test_vary(anon, backend, path, token):
    r = anon.get(path, token=backend.token if token else None)
    assert vary_tokens(r.headers.get("Vary")) == vary_tokens(VARY), r


def test_vary_405(anon):
    r = anon.delete("/regions")
    assert r.status == 405, r
    assert vary_tokens(r.headers.get("Vary")) == vary_tokens(VARY), r


@pytest.mark.parametrize("path", ["/regions/xx-nowhere-9", "/regions?page=0",
                                  "/regions?page_size=10"])
def test_errors_not_cacheable(anon, path):
    """Only region data may be cached (max-age=900); an error on a region
    route must not be."""
    r = anon.get(path)
    assert r.status in (400, 404), r
    assert r.headers.get("Cache-Control") == NO_STORE, r
