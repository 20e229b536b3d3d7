/*
 * The fuzz targets without libFuzzer: make check links each target with this
 * main(), which feeds it every input of its corpus, so the corpora are
 * replayed by every build (with gcc, and instrumented under
 * scripts/test --sanitize).  scripts/fuzz links the same targets with
 * libFuzzer to find new inputs.
 *
 *   tests/fuzz/fuzz_NAME            replays $top_srcdir/tests/fuzz/corpus/NAME
 *                                   (top_srcdir: "." unless set, as make
 *                                   check does)
 *   tests/fuzz/fuzz_NAME PATH...    replays these files, or every file of
 *                                   these directories (a crash-* input)
 *
 * Fails (exit 1) when the corpus holds no input, an input cannot be read or
 * the target returns nonzero; a crash or a sanitizer report ends the
 * process itself.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a target, as with libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static const char *self;

/* Feeds one file to the target; 0 when it returned 0. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL, *exact;
    size_t size = 0, cap = 0, n;
    int rc;

    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", self, path, strerror(errno));
        return -1;
    }
    /* Exactly the input's size, so a read past its end is out of bounds
     * for AddressSanitizer, as under libFuzzer. */
    do {
        if (size == cap) {
            uint8_t *more;

            cap = cap ? cap * 2 : 4096;
            if (!(more = realloc(data, cap))) {
                fprintf(stderr, "%s: %s: out of memory\n", self, path);
                free(data);
                fclose(f);
                return -1;
            }
            data = more;
        }
        n = fread(data + size, 1, cap - size, f);
        size += n;
    } while (n > 0);
    if (ferror(f)) {
        fprintf(stderr, "%s: %s: read error\n", self, path);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    if ((exact = realloc(data, size ? size : 1)) != NULL) {
        data = exact;
    }
    rc = LLVMFuzzerTestOneInput(data, size);
    free(data);
    if (rc != 0) {
        fprintf(stderr, "%s: %s: the target returned %d\n", self, path, rc);
        return -1;
    }
    return 0;
}

static int only_files(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* Replays a file, or every file of a directory in name order; counts the
 * inputs replayed.  0 when every one passed. */
static int replay_path(const char *path, int *count)
{
    struct dirent **names = NULL;
    struct stat st;
    int i, n, failed = 0;

    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s: %s\n", self, path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*count;
        return replay_file(path);
    }
    if ((n = scandir(path, &names, only_files, alphasort)) < 0) {
        fprintf(stderr, "%s: %s: %s\n", self, path, strerror(errno));
        return -1;
    }
    for (i = 0; i < n; i++) {
        size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
        char *file = malloc(len);

        if (!file) {
            failed = -1;
        }
        else {
            snprintf(file, len, "%s/%s", path, names[i]->d_name);
            if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
                ++*count;
                failed |= replay_file(file);
            }
            free(file);
        }
        free(names[i]);
    }
    free(names);
    return failed;
}

int main(int argc, char **argv)
{
    const char *base, *top = getenv("top_srcdir");
    char *corpus = NULL;
    int i, count = 0, failed = 0;

    self = argv[0];
    if (LLVMFuzzerInitialize) {
        LLVMFuzzerInitialize(&argc, &argv);
    }
    if (argc > 1) {
        for (i = 1; i < argc; i++) {
            failed |= replay_path(argv[i], &count);
        }
    }
    else {
        /* fuzz_NAME: corpus/NAME. */
        base = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
        if (strncmp(base, "fuzz_", 5) != 0) {
            fprintf(stderr, "%s: not named fuzz_NAME: give the inputs\n", self);
            return 1;
        }
        base += 5;
        top = top && *top ? top : ".";
        corpus = malloc(strlen(top) + strlen(base) + sizeof("/tests/fuzz/corpus/"));
        if (!corpus) {
            return 1;
        }
        sprintf(corpus, "%s/tests/fuzz/corpus/%s", top, base);
        failed |= replay_path(corpus, &count);
    }
    if (!failed && count == 0) {
        fprintf(stderr, "%s: no input to replay\n", self);
        failed = 1;
    }
    printf("%s: %d inputs replayed%s%s, %s\n", self, count,
           corpus ? " from " : "", corpus ? corpus : "",
           failed ? "FAILED" : "each returned 0");
    free(corpus);
    return failed ? 1 : 0;
}
