"""scripts/deps decides what to install and upgrade: against fake dpkg-query,
apt-cache, apt-get, ldd and apache2 on PATH, over a package state held in
files, so that no real package is touched.

The state: installed/<pkg> and candidate/<pkg> hold versions (no file: not
installed / no candidate); after-update/<pkg> the candidate once apt-get
update has run; mod_ssl.so carries the OpenSSL version it was compiled
against and libcrypto.so.3 the one it carries, which the fake apt-get
rewrites when it installs libssl3 (and apr-loaded, what the fake apache2 -V
reports as loaded, when it installs libapr1).
"""

import os
import shutil
import subprocess

import pytest

from harness import REPO

DEPS = REPO / "scripts" / "deps"

pytestmark = pytest.mark.skipif(shutil.which("dpkg") is None,
                                reason="dpkg --compare-versions is needed")

FAKES = {
    "dpkg-query": r'''#!/bin/bash
# dpkg-query -W -f=FORMAT PKG...: prints "PKG=installed " for installed ones.
shift 2
rc=0
for p in "$@"; do
    if [ -f "$STATE/installed/$p" ]; then printf '%s=installed ' "$p"
    else echo "dpkg-query: no packages found matching $p" >&2; rc=1; fi
done
exit $rc
''',
    "apt-cache": r'''#!/bin/bash
# apt-cache [-o OPTION]... policy PKG...  (read, not $(cat ...): scripts/deps
# asks about every package at once, and two processes a package cost more
# than the rest of the test)
echo "$*" >> "$STATE/apt-cache.log"
while [ "$1" = -o ]; do shift 2; done
shift
for p in "$@"; do
    inst='(none)' cand='(none)'
    [ -f "$STATE/installed/$p" ] && read -r inst < "$STATE/installed/$p"
    [ -f "$STATE/candidate/$p" ] && read -r cand < "$STATE/candidate/$p"
    printf '%s:\n  Installed: %s\n  Candidate: %s\n' "$p" "$inst" "$cand"
done
''',
    "apt-get": r'''#!/bin/bash
echo "$*" >> "$STATE/apt.log"
args=()
for a in "$@"; do case "$a" in -*) ;; *) args+=("$a") ;; esac; done
case "${args[0]}" in
    update)
        [ -d "$STATE/after-update" ] && cp "$STATE"/after-update/* "$STATE/candidate/"
        exit 0 ;;
    install)
        for p in "${args[@]:1}"; do
            v=1.0-1
            [ -f "$STATE/candidate/$p" ] && read -r v < "$STATE/candidate/$p"
            echo "$v" > "$STATE/installed/$p"
            if [ "$p" = libssl3 ]; then
                printf '\0OpenSSL %s 1 Jan 2026\0' "${v%%-*}" > "$STATE/libcrypto.so.3"
            fi
            [ "$p" != libapr1 ] || echo "${v%%-*}" > "$STATE/apr-loaded"
        done ;;
esac
''',
    "ldd": r'''#!/bin/bash
printf '\tlibssl.so.3 => /nonexistent/libssl.so.3 (0x0)\n'
printf '\tlibcrypto.so.3 => %s (0x0)\n' "$STATE/libcrypto.so.3"
''',
    "apache2": r'''#!/bin/bash
echo "Server version: Apache/2.4.71 (Debian)"
echo "Server loaded:  APR $(cat "$STATE/apr-loaded"), APR-UTIL 1.6.3, PCRE 10.42 2022-12-11"
echo "Compiled using: APR $(cat "$STATE/apr-built"), APR-UTIL 1.6.3, PCRE 10.42 2022-12-11"
''',
    "npm": "#!/bin/sh\nexit 0\n",
    "sudo": '#!/bin/sh\nexec "$@"\n',
}


class FakeApt:
    def __init__(self, base):
        self.state = base / "state"
        self.bin = base / "bin"
        self.mods = base / "modules"
        for d in (self.state / "installed", self.state / "candidate", self.bin, self.mods):
            d.mkdir(parents=True)
        for name, text in FAKES.items():
            f = self.bin / name
            f.write_text(text)
            f.chmod(0o755)
        self.set_apr("1.7.2", "1.7.2")

    def packages(self, groups):
        """The package names scripts/deps lists in the given arrays."""
        out = subprocess.run(
            ["bash", "-c", 'ACCTAPI_SKIP_DEPS=1 deps=$0; groups=("$@"); set --; . "$deps"; '
             'for g in "${groups[@]}"; do '
             'declare -n a="$g"; printf "%s\\n" "${a[@]}"; unset -n a; done',
             str(DEPS)] + groups, check=True, capture_output=True, text=True).stdout
        return out.split()

    def install_all(self, groups, version="1.0-1"):
        for p in self.packages(groups):
            self.pkg(p, version, version)

    def pkg(self, name, installed=None, candidate=None, after_update=None):
        for sub, v in (("installed", installed), ("candidate", candidate),
                       ("after-update", after_update)):
            f = self.state / sub / name
            if v is None:
                f.unlink(missing_ok=True)
            else:
                f.parent.mkdir(exist_ok=True)
                f.write_text(v + "\n")

    def openssl(self, built, loaded):
        """mod_ssl compiled against `built`; the libcrypto it loads is `loaded`."""
        if built is None:
            (self.mods / "mod_ssl.so").unlink(missing_ok=True)
        else:
            (self.mods / "mod_ssl.so").write_bytes(
                b"\x7fELF\0junk\0OpenSSL " + built.encode() + b" 25 Aug 2026\0more")
        (self.state / "libcrypto.so.3").write_bytes(
            b"\0OpenSSL " + loaded.encode() + b" 27 Jan 2026\0")

    def set_apr(self, built, loaded):
        (self.state / "apr-built").write_text(built)
        (self.state / "apr-loaded").write_text(loaded)

    def run(self, *args, apt_cache=None):
        """scripts/deps ARGS over the fakes; apt_cache: ACCTAPI_APT_CACHE
        (unset otherwise, whatever the suite's environment holds)."""
        env = dict(os.environ, STATE=str(self.state),
                   PATH=f"{self.bin}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                   ACCTAPI_HTTPD=str(self.bin / "apache2"),
                   ACCTAPI_HTTPD_MODULES=str(self.mods))
        env.pop("ACCTAPI_SKIP_DEPS", None)
        env.pop("ACCTAPI_APT_CACHE", None)
        if apt_cache is not None:
            env["ACCTAPI_APT_CACHE"] = str(apt_cache)
        p = subprocess.run([str(DEPS)] + list(args), env=env, capture_output=True,
                           text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr

    def apt_calls(self):
        log = self.state / "apt.log"
        return log.read_text().splitlines() if log.exists() else []

    def apt_cache_calls(self):
        log = self.state / "apt-cache.log"
        return log.read_text().splitlines() if log.exists() else []

    def installed(self, name):
        f = self.state / "installed" / name
        return f.read_text().strip() if f.exists() else None


ALL = ["ACCTAPI_DEB_BUILD", "ACCTAPI_DEB_RUN", "ACCTAPI_DEB_POSTGRESQL", "ACCTAPI_DEB_TEST",
       "ACCTAPI_DEB_LIBS_RUN", "ACCTAPI_DEB_LIBS_TEST"]


@pytest.fixture
def apt(tmp_path):
    a = FakeApt(tmp_path)
    a.install_all(ALL)
    a.pkg("libssl3", "3.0.22-1~deb12u2", "3.0.22-1~deb12u2")
    a.openssl("3.0.22", "3.0.22")
    return a


def install_line(calls):
    lines = [c for c in calls if " install " in f" {c} "]
    assert len(lines) == 1, calls
    return lines[0].split()


def test_in_order_quiet_and_no_apt(apt):
    for args in ([], ["--postgresql"], ["--test"]):
        rc, out = apt.run(*args)
        assert (rc, out) == (0, ""), (args, out)
    assert apt.apt_calls() == []


def test_libssl3_older_than_mod_ssl_was_built_against(apt):
    """The issue: everything installed, libssl3 3.0.19 under a mod_ssl built
    against 3.0.22, apt's candidate 3.0.22."""
    apt.pkg("libssl3", "3.0.19-1~deb12u2", "3.0.22-1~deb12u2")
    apt.openssl("3.0.22", "3.0.19")
    rc, out = apt.run()
    assert rc == 0, out
    assert "mod_ssl was built against OpenSSL 3.0.22, loads 3.0.19" in out, out
    calls = apt.apt_calls()
    assert calls[0].split()[-1] == "update", calls
    assert install_line(calls)[-1:] == ["libssl3"], calls
    assert apt.installed("libssl3") == "3.0.22-1~deb12u2"
    # Then in order: quiet, nothing more.
    rc, out = apt.run()
    assert (rc, out) == (0, ""), out
    assert len(apt.apt_calls()) == 2


def test_stale_lists_mod_ssl_check_alone_triggers_update(apt):
    """apt's lists predate the new libssl3 (candidate == installed): only the
    version compiled into mod_ssl shows it; after apt-get update the
    candidate is there."""
    apt.pkg("libssl3", "3.0.19-1~deb12u2", "3.0.19-1~deb12u2", after_update="3.0.22-1~deb12u2")
    apt.openssl("3.0.22", "3.0.19")
    rc, out = apt.run()
    assert rc == 0, out
    calls = apt.apt_calls()
    assert calls[0].split()[-1] == "update" and "libssl3" in install_line(calls), calls
    assert apt.installed("libssl3") == "3.0.22-1~deb12u2"


def test_library_behind_candidate_without_a_compiled_check(apt):
    """libpq5 behind its candidate (postgresql built against the new one):
    apt-get install of the installed name upgrades it."""
    apt.pkg("libpq5", "15.18-0+deb12u1", "15.20-0+deb12u1")
    rc, out = apt.run()
    assert rc == 0, out
    assert "libpq5 15.18-0+deb12u1 installed, 15.20-0+deb12u1 available" in out, out
    assert install_line(apt.apt_calls())[-1:] == ["libpq5"]
    # A library newer than the candidate (local build) is left alone.
    apt.pkg("libjansson4", "2.14-3", "2.14-2")
    rc, out = apt.run()
    assert (rc, out) == (0, ""), out


def test_apr_loaded_older_than_compiled(apt):
    apt.set_apr("1.7.4", "1.7.2")
    apt.pkg("libapr1", "1.7.2-3", "1.7.2-3", after_update="1.7.4-1")
    rc, out = apt.run()
    assert rc == 0, out
    assert "httpd was built against APR 1.7.4, loads 1.7.2" in out, out
    assert install_line(apt.apt_calls())[-1:] == ["libapr1"]
    assert apt.installed("libapr1") == "1.7.4-1"


def test_apt_cache_kept_where_asked(apt, tmp_path):
    """ACCTAPI_APT_CACHE=DIR: apt-cache is told to keep its package cache
    in DIR, made if missing; unset, apt's own configuration stands."""
    cache = tmp_path / "kept" / "apt"
    rc, out = apt.run(apt_cache=cache)
    assert (rc, out) == (0, ""), out
    assert cache.is_dir()
    words = apt.apt_cache_calls()[-1].split()
    assert words[:5] == ["-o", f"Dir::Cache::pkgcache={cache}/pkgcache.bin",
                         "-o", f"Dir::Cache::srcpkgcache={cache}/srcpkgcache.bin",
                         "policy"], words
    rc, out = apt.run()
    assert (rc, out) == (0, ""), out
    assert apt.apt_cache_calls()[-1].split()[0] == "policy"


@pytest.mark.skipif(shutil.which("apt-cache") is None, reason="Debian's apt-cache is needed")
def test_real_apt_cache_answers_alike_with_a_kept_cache(tmp_path):
    """The options scripts/deps gives the real apt-cache are accepted: the
    cache is written where asked, then read, and the answer is the same as
    without them (a refused option would leave no library ever found
    behind, apt-cache's errors being ignored)."""
    cache = tmp_path / "apt"
    cache.mkdir()
    libs = ["libssl3", "libapr1", "libpq5"]

    def policy(*opts):
        return subprocess.run(["apt-cache", *opts, "policy", *libs], capture_output=True,
                              text=True, check=True, timeout=60).stdout

    kept = ("-o", f"Dir::Cache::pkgcache={cache}/pkgcache.bin",
            "-o", f"Dir::Cache::srcpkgcache={cache}/srcpkgcache.bin")
    first = policy(*kept)
    assert (cache / "pkgcache.bin").stat().st_size > 0
    assert "Installed:" in first, first
    assert policy(*kept) == first == policy()


def test_nothing_newer_available_fails_loudly(apt):
    apt.pkg("libssl3", "3.0.19-1~deb12u2", "3.0.19-1~deb12u2")
    apt.openssl("3.0.22", "3.0.19")
    rc, out = apt.run()
    assert rc == 1, out
    assert "still behind: libssl3" in out and "apt offers nothing newer" in out, out


def test_fresh_machine_installs_missing_and_upgrades_old_libssl3(tmp_path):
    """Nothing of ours installed, but an older libssl3 (the base image's):
    the install that brings apache2 brings libssl3 to the candidate too."""
    apt = FakeApt(tmp_path)
    apt.openssl(None, "3.0.19")
    apt.pkg("libssl3", "3.0.19-1~deb12u2", "3.0.19-1~deb12u2", after_update="3.0.22-1~deb12u2")
    rc, out = apt.run()
    assert rc == 0, out
    calls = apt.apt_calls()
    assert calls[0].split()[-1] == "update", calls
    line = install_line(calls)
    assert "apache2" in line and "libssl3" in line and "libldns-dev" in line, line
    assert apt.installed("libssl3") == "3.0.22-1~deb12u2"


@pytest.mark.parametrize("args,wanted,unwanted", [
    ([], {"apache2", "apache2-dev", "libldns-dev", "libcmocka-dev", "sqlite3",
          "libaprutil1-dbd-sqlite3"},
     {"postgresql", "bind9", "chromium", "clang", "prometheus-apache-exporter", "wrk",
      "python3-pytest", "nodejs", "gdb", "jq"}),
    (["--postgresql"], {"apache2", "postgresql", "libaprutil1-dbd-pgsql"},
     {"bind9", "chromium", "clang", "prometheus-apache-exporter"}),
    (["--test"], {"apache2", "postgresql", "bind9", "bind9-dnsutils", "chromium", "clang", "jq",
                  "prometheus-apache-exporter", "python3-pytest", "wrk", "gdb"}, set()),
])
def test_sets(tmp_path, args, wanted, unwanted):
    """The quickstart's set holds what building and running need; --test adds
    the rest.  --dry-run changes nothing."""
    apt = FakeApt(tmp_path)
    apt.openssl(None, "3.0.19")
    rc, out = apt.run(*args, "--dry-run")
    assert rc == 0, out
    assert apt.apt_calls() == []
    line = [ln for ln in out.splitlines() if "would run: apt-get install" in ln]
    assert line, out
    names = set(line[0].split()[6:])
    assert wanted <= names, (wanted - names, out)
    assert not (unwanted & names), (unwanted & names, out)
