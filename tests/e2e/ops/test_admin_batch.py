"""acctapi-admin batch: one command line per input line (a JSON array of its
words), each answered by one output line {"status", "stdout", "stderr"}
holding exactly what that command line gives when it runs as a process of
its own.  The suite's harness runs its admin commands this way
(harness.AdminSession), so these tests hold the batch to the program."""

import json
import subprocess

from harness import ADMIN, run, wait_for
from outage import pg  # noqa: F401  (the fixture)


def batch(lines):
    """Runs the batch on `lines` (each a list of words, or raw text): its
    answers, parsed, and its exit status."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                   for line in lines)
    p = subprocess.run([str(ADMIN), "batch"], input=text, capture_output=True,
                       text=True, timeout=60)
    answers = [json.loads(line) for line in p.stdout.splitlines()]
    return answers, p


def alone(words):
    p = run([ADMIN] + words, check=False)
    return {"status": p.returncode, "stdout": p.stdout, "stderr": p.stderr}


def test_each_answer_is_what_the_command_alone_gives(backend):
    db = ["--db-driver", backend.driver, "--db-params", backend.params]
    name = backend.unique("e2e-batch-")
    lines = [
        db + ["migrate"],                               # success
        db + ["account", "create", "--name", name],     # a write
        db + ["user", "create", "--account", "999999999", "--username", name,
              "--email", "a@example.com"],              # a failure (1)
        db + ["user", "create", "--account", "x"],      # a usage error (2)
        ["no-such-command"],                            # another
        ["--help"],                                     # help
        ["account", "create", "--help"],
        ["routes"],                                     # no database
        ["clock", "show"],                              # no driver given
    ]
    answers, p = batch(lines)
    assert p.returncode == 0 and p.stderr == "", p
    assert len(answers) == len(lines)
    for words, got in zip(lines, answers):
        if words[-2:] == ["--name", name]:
            # The account ids differ: the one alone made the next one.
            assert got["status"] == 0 and got["stderr"] == ""
            assert int(got["stdout"]) > 0
            continue
        assert got == alone(words), words
    # Statuses 0, 1 and 2 all appeared.
    assert {a["status"] for a in answers} == {0, 1, 2}


def test_the_write_of_a_batch_line_is_committed(backend):
    db = ["--db-driver", backend.driver, "--db-params", backend.params]
    name = backend.unique("e2e-batch-")
    answers, _ = batch([db + ["account", "create", "--name", name]])
    account = int(answers[0]["stdout"])
    assert backend.query(f"SELECT name FROM accounts WHERE id = {account}") == [[name]]


def test_refuses_what_is_not_a_command_line_and_goes_on():
    answers, p = batch(['{"not": "an array"}', "[1, 2]", "not json", "[]",
                        '["batch"]', '["routes"]'])
    assert p.returncode == 0
    assert [a["status"] for a in answers] == [2, 2, 2, 2, 2, 0]
    assert answers[0]["stderr"] == ("acctapi-admin: a line must be a JSON array of strings;"
                                    " see 'acctapi-admin batch --help'\n")
    assert answers[1]["stderr"] == answers[0]["stderr"]
    assert answers[2]["stderr"] == answers[0]["stderr"]
    assert answers[3] == alone([])                              # no command given
    assert answers[4]["stderr"] == ("acctapi-admin: a batch cannot run a batch;"
                                    " see 'acctapi-admin batch --help'\n")
    assert answers[5] == alone(["routes"])
    assert all(a["stdout"] == "" for a in answers[:5])


def test_a_word_holding_nul_is_refused():
    answers, _ = batch(['["routes\\u0000x"]'])
    assert answers[0]["status"] == 2
    assert answers[0]["stderr"] == ("acctapi-admin: a word of a command line cannot hold NUL;"
                                    " see 'acctapi-admin batch --help'\n")


def test_empty_input_answers_nothing():
    answers, p = batch([])
    assert answers == [] and p.returncode == 0 and p.stderr == ""


def test_help_describes_it():
    out = run([ADMIN, "batch", "--help"]).stdout
    assert "JSON array" in out and '{"status": N' in out
    assert "batch" in run([ADMIN, "--help"]).stdout


class Batch:
    """A batch kept open, to send it lines one at a time."""

    def __init__(self):
        self.proc = subprocess.Popen([str(ADMIN), "batch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def send(self, words):
        self.proc.stdin.write(json.dumps(words) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0


def admin_connections(b):
    """The server processes of the module's role's connections."""
    return set(b.cluster.psql("SELECT pid FROM pg_stat_activity"
                              " WHERE usename = 'acctapi'", raw=True).split())


def test_keeps_one_postgresql_connection_and_survives_a_restart(pg):
    b, _ = pg
    db = ["--db-driver", b.driver, "--db-params", b.params]
    others = admin_connections(b)      # the harness's own batch setting it up
    batch = Batch()
    try:
        first = batch.send(db + ["migrate"])
        assert first["status"] == 0, first
        for _ in range(5):
            assert batch.send(db + ["clock", "show"])["status"] == 0
        # One connection served them all, and is still open for the next.
        assert len(admin_connections(b) - others) == 1
        b.cluster.restart()
        # The kept connection died with the server: the next command opens
        # another and answers as if nothing had happened, with no word of it.
        assert batch.send(db + ["migrate"]) == first
        assert len(admin_connections(b)) == 1
        answer = batch.send(db + ["account", "create", "--name", "after-restart"])
        assert answer["status"] == 0 and answer["stderr"] == "", answer
        assert b.query(f"SELECT name FROM accounts WHERE id = {int(answer['stdout'])}") \
            == [["after-restart"]]
    finally:
        batch.close()
    # Closed with the batch (the server notices within moments).
    wait_for(lambda: not admin_connections(b), 10, what="the batch's connection to close")
