"""README's five-minute tour, run as a reader runs it: every ```sh block of
README.md marked `<!-- tour -->` (or `<!-- tour: text -->`), in order, in one
bash, from a directory whose `run` is the home of a quickstart started for
the test.  Each block must succeed; a `tour` block must print nothing but
JSON documents, a `tour: text` block something.  The last block shows the
database the tour created, which the moved clock has made active.

Skipped when ACCTAPI_SKIP_QUICKSTART is set, or when the build directory is
not the repository (the quickstart builds in the repository).
"""

import json
import os
import re
import shutil
import subprocess

import pytest

import harness
from harness import REPO, free_port, make_tmpdir
from harness.quickstart import Quickstart, check_error_log

pytestmark = [
    pytest.mark.skipif(bool(os.environ.get("ACCTAPI_SKIP_QUICKSTART")),
                       reason="ACCTAPI_SKIP_QUICKSTART is set"),
    # The quickstart's httpd cannot load a module built with AddressSanitizer.
    pytest.mark.skipif(harness.SANITIZE, reason="scripts/test --sanitize"),
]

MARK = re.compile(r"^<!-- tour(?:: (json|text))? -->\n```sh\n(.*?)^```$", re.M | re.S)
SEPARATOR = "@@acctapi-tour-block@@"


def tour_blocks(readme):
    """(kind, script) of every marked block, in order; kind json or text."""
    return [(m.group(1) or "json", m.group(2)) for m in MARK.finditer(readme)]


def json_documents(text):
    """Every JSON document of text, one after the other; ValueError if
    anything else is there."""
    docs, decoder, i = [], json.JSONDecoder(), 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return docs
        doc, i = decoder.raw_decode(text, i)
        docs.append(doc)


def test_tour_blocks_are_marked():
    """The tour has its blocks, and no ```sh block hides a mark by a typo."""
    readme = (REPO / "README.md").read_text()
    blocks = tour_blocks(readme)
    assert len(blocks) >= 5, blocks
    marks = re.findall(r"^<!--\s*tour.*-->$", readme, re.M)
    assert len(marks) == len(blocks), marks


@pytest.fixture
def tour_dir():
    if harness.BUILD != REPO:
        pytest.skip("the build directory is not the repository")
    d = make_tmpdir("acctapi-tour-")
    yield d
    if not os.environ.get("ACCTAPI_KEEP_TMP"):
        shutil.rmtree(d, ignore_errors=True)


def test_readme_tour(tour_dir):
    blocks = tour_blocks((REPO / "README.md").read_text())
    home = tour_dir / "run"
    qs = Quickstart(home, free_port())
    try:
        qs.start()
        script = "set -eo pipefail\n" + "".join(
            f"{body}\nprintf '\\n{SEPARATOR}\\n'\n" for _, body in blocks)
        proc = subprocess.run(["bash", "-c", script], cwd=str(tour_dir), capture_output=True,
                              text=True, timeout=120,
                              env={k: v for k, v in os.environ.items()
                                   if not k.startswith("ACCTAPI_")
                                   or k in ("ACCTAPI_E2E_TMPDIR",)})
    finally:
        qs.stop()
    outputs = proc.stdout.split(f"\n{SEPARATOR}\n")
    done = len(outputs) - 1
    assert proc.returncode == 0 and done == len(blocks), (
        f"block {done + 1} of {len(blocks)} failed (exit {proc.returncode}):\n"
        f"{blocks[min(done, len(blocks) - 1)][1]}\n--- stdout:\n{proc.stdout[-3000:]}\n"
        f"--- stderr:\n{proc.stderr[-3000:]}")
    last = None
    for (kind, body), out in zip(blocks, outputs):
        if kind == "text":
            assert out.strip(), f"no output from:\n{body}"
            continue
        try:
            docs = json_documents(out)
        except ValueError as e:
            raise AssertionError(f"not JSON ({e}) from:\n{body}\n--- output:\n{out}")
        assert docs, f"no JSON from:\n{body}"
        assert all(isinstance(d, (dict, list)) for d in docs), docs
        assert not any(isinstance(d, dict) and "errors" in d for d in docs), docs
        last = docs
    # The tour's last answer: the database, active once the clock has moved.
    assert last and last[-1].get("status") == "active", last
    assert last[-1].get("hosts", {}).get("primary"), last
    check_error_log(home)
