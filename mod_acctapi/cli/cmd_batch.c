/*
 * acctapi-admin batch: many commands in one process.  Each line of standard
 * input is one command line as a JSON array of its words (what would follow
 * "acctapi-admin", global options included); each is run exactly as that
 * command line would run, in order, and answered by one line of standard
 * output: {"status": N, "stdout": "...", "stderr": "..."}, the exit status
 * and the two outputs that process would have given.
 *
 * For provisioning scripts and test harnesses that run hundreds of
 * commands: a process start (linking, opening the driver, connecting) costs
 * far more than most commands.  Every command runs in its own transaction,
 * so a batch behaves as the same commands run one after another, including
 * when the database restarts between two (see `kept`).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <apr_strings.h>
#include <jansson.h>

#include "acct_migrate.h"
#include "acct_store.h"
#include "acct_text.h"

#include "admin.h"

/* Set while a batch runs: a batch line may not start another batch.
 * Lifetime: the process; one thread. */
static int admin_in_batch;

/*
 * The PostgreSQL connection the last command used, kept for the next
 * command with the same parameters: opening one starts a server process,
 * which costs more than most commands.  It is checked before each reuse
 * (a read of the schema version) and opened again when the server went
 * away meanwhile.  SQLite files are opened by each command: that is cheap,
 * and a file replaced between two commands is then the new file.
 * Lifetime: one batch; one thread.
 */
static struct {
    apr_pool_t *pool;       /* the connection's own: destroying it closes it */
    acct_store *st;
    const char *params;
} kept;

static void forget_kept(void)
{
    if (kept.pool) {
        apr_pool_destroy(kept.pool);
    }
    kept.pool = NULL;
    kept.st = NULL;
    kept.params = NULL;
}

acct_store_rc admin_store_open(acct_store **st, apr_pool_t *pool,
                               const char *driver, const char *params,
                               const char **error)
{
    acct_store_rc rc;
    int version;

    if (!admin_in_batch || strcmp(driver, "pgsql") != 0) {
        return acct_store_open(st, pool, driver, params, error);
    }
    if (kept.st && strcmp(kept.params, params) == 0) {
        admin_log_mute(1);
        rc = acct_schema_version(kept.st, pool, &version);
        admin_log_mute(0);
        if (rc == ACCT_STORE_OK) {
            *st = kept.st;
            return ACCT_STORE_OK;
        }
    }
    forget_kept();
    apr_pool_create(&kept.pool, NULL);
    rc = acct_store_open(&kept.st, kept.pool, driver, params, error);
    if (rc != ACCT_STORE_OK) {
        /* The error text lives in the connection's pool: copy it out. */
        *error = *error ? apr_pstrdup(pool, *error) : NULL;
        forget_kept();
        return rc;
    }
    kept.params = apr_pstrdup(kept.pool, params);
    *st = kept.st;
    return ACCT_STORE_OK;
}

/* A command's captured output: the file its descriptor was pointed at. */
typedef struct capture {
    int fd;          /* 1 or 2 */
    FILE *stream;    /* stdout or stderr */
    int saved;       /* the descriptor it had before the batch */
    FILE *file;      /* where it writes while a command runs */
} capture;

static int capture_open(capture *k, int fd, FILE *stream)
{
    k->fd = fd;
    k->stream = stream;
    k->file = tmpfile();
    k->saved = dup(fd);
    return k->file && k->saved >= 0 ? 0 : -1;
}

static void capture_start(capture *k)
{
    fflush(k->stream);
    if (ftruncate(fileno(k->file), 0) == 0) {
        rewind(k->file);
    }
    dup2(fileno(k->file), k->fd);
}

/* Restores the descriptor; the bytes written since capture_start, in pool
 * memory, as valid UTF-8 (a byte that is not becomes U+FFFD). */
static const char *capture_end(capture *k, apr_pool_t *pool, size_t *len)
{
    struct stat sb;
    char *raw;
    acct_text t;
    size_t n = 0, i = 0, seq;

    fflush(k->stream);
    dup2(k->saved, k->fd);
    if (fstat(fileno(k->file), &sb) == 0 && sb.st_size > 0) {
        n = (size_t)sb.st_size;
    }
    raw = apr_palloc(pool, n + 1);
    if (n && pread(fileno(k->file), raw, n, 0) != (ssize_t)n) {
        n = 0;
    }
    raw[n] = '\0';
    acct_text_init(&t, pool, n + 16);
    while (i < n) {
        if ((unsigned char)raw[i] < 0x80) {
            acct_text_put(&t, raw + i, 1);
            i++;
        }
        else if ((seq = acct_utf8_sequence((const unsigned char *)raw + i)) > 0) {
            acct_text_put(&t, raw + i, seq);
            i += seq;
        }
        else {
            acct_text_put(&t, "\xEF\xBF\xBD", 3);
            i++;
        }
    }
    *len = t.len;
    return t.data;
}

/* The words of one line: argv with "acctapi-admin" first, or NULL with
 * *error set when the line is not a JSON array of strings. */
static const char **line_words(apr_pool_t *pool, const char *line, int *argc,
                               const char **error)
{
    json_error_t jerr;
    json_t *doc = json_loads(line, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
                             &jerr), *w;
    const char **argv = NULL;
    size_t i;

    *error = NULL;
    if (!json_is_array(doc)) {
        *error = "a line must be a JSON array of strings";
    }
    else {
        argv = apr_pcalloc(pool, (json_array_size(doc) + 2) * sizeof(*argv));
        argv[0] = NAME;
        json_array_foreach(doc, i, w) {
            const char *s = json_string_value(w);

            if (!s) {
                *error = "a line must be a JSON array of strings";
                break;
            }
            if (strlen(s) != json_string_length(w)) {
                *error = "a word of a command line cannot hold NUL";
                break;
            }
            argv[i + 1] = apr_pstrdup(pool, s);
        }
        *argc = (int)json_array_size(doc) + 1;
    }
    json_decref(doc);
    return *error ? NULL : argv;
}

static int answer(FILE *out, int status, const char *o, size_t olen,
                  const char *e, size_t elen)
{
    json_t *doc = json_pack("{s:i, s:s%, s:s%}", "status", status,
                            "stdout", o, olen, "stderr", e, elen);
    int rc = doc ? json_dumpf(doc, out, JSON_COMPACT) : -1;

    json_decref(doc);
    if (rc != 0 || fputc('\n', out) == EOF || fflush(out) != 0) {
        return -1;
    }
    return 0;
}

int cmd_batch(admin_ctx *c)
{
    capture out, err;
    apr_pool_t *answer_pool;
    FILE *answers;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int status = ADMIN_OK;

    if (admin_in_batch) {
        return admin_usage_error("batch", "a batch cannot run a batch");
    }
    if (capture_open(&out, 1, stdout) != 0 || capture_open(&err, 2, stderr) != 0
        || !(answers = fdopen(dup(1), "w"))) {
        return admin_failure("cannot capture the commands' output");
    }
    admin_in_batch = 1;
    apr_pool_create(&answer_pool, c->pool);
    while ((got = getline(&line, &cap, stdin)) > 0) {
        apr_pool_t *p;
        const char **argv, *error, *o, *e;
        size_t olen, elen;
        int argc = 0, rc;

        /* The command's pool holds its connection: it is gone (an SQLite
         * file closed, its -wal checkpointed) before the answer is written,
         * as when the command's process has exited. */
        apr_pool_create(&p, c->pool);
        argv = line_words(p, line, &argc, &error);
        capture_start(&out);
        capture_start(&err);
        if (argv) {
            rc = admin_run_words(p, argc, argv);
            if ((fflush(stdout) != 0 || ferror(stdout)) && rc == ADMIN_OK) {
                rc = admin_failure("cannot write to standard output");
            }
            clearerr(stdout);
        }
        else {
            rc = admin_usage_error("batch", "%s", error);
        }
        if (kept.st && acct_store_in_tx(kept.st)
            && acct_store_rollback(kept.st, p) != ACCT_STORE_OK) {
            forget_kept();   /* a command left it in a transaction */
        }
        apr_pool_destroy(p);
        o = capture_end(&out, answer_pool, &olen);
        e = capture_end(&err, answer_pool, &elen);
        if (answer(answers, rc, o, olen, e, elen) != 0) {
            status = admin_failure("cannot write to standard output");
            break;
        }
        apr_pool_clear(answer_pool);
    }
    admin_in_batch = 0;
    forget_kept();
    free(line);
    fclose(answers);
    fclose(out.file);
    fclose(err.file);
    close(out.saved);
    close(err.saved);
    c->out = "";
    return status;
}
