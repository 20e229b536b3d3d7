"""tests/client: the npm packages of the public API's clients that the suite
runs (@linode/api-v4, @linode/validation), pinned by its package-lock.json
and installed with `npm ci` when missing or older than the lock file."""

import fcntl
import os
import shutil
import subprocess

import pytest

from harness import REPO

CLIENT_DIR = REPO / "tests" / "client"
NPM_TIMEOUT = 600


def installed_stale():
    """node_modules is missing, or older than the lock file npm installs from
    (npm ci writes node_modules/.package-lock.json)."""
    marker = CLIENT_DIR / "node_modules" / ".package-lock.json"
    lock = CLIENT_DIR / "package-lock.json"
    return not marker.exists() or lock.stat().st_mtime > marker.stat().st_mtime


def ensure_installed():
    """CLIENT_DIR, its packages installed; skips without node (scripts/deps
    installs it).  The check and the install hold a lock on CLIENT_DIR:
    scripts/test's parts run at once, and `npm ci` starts by removing
    node_modules, under another part's feet."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed (scripts/deps installs it)")
    fd = os.open(CLIENT_DIR, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if installed_stale():
            npm = shutil.which("npm")
            assert npm, "node is installed but npm is not (scripts/deps installs both)"
            p = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT_DIR,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=NPM_TIMEOUT)
            if p.returncode != 0:
                pytest.fail(f"npm ci in {CLIENT_DIR} failed (exit {p.returncode}):\n"
                            f"{p.stdout}", pytrace=False)
    finally:
        os.close(fd)
    return CLIENT_DIR
