/* dataset_io.c - see dataset_io.h for the two formats. */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_io.h"

static int fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    int k = snprintf(err, errlen, "%s: ", path);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < errlen) vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

void dataset_free(dataset *d)
{
    free(d->data);
    d->data = NULL;
    d->n = 0;
    d->count = 0;
}

int dataset_format_parse(const char *s, dataset_format *out)
{
    if (!strcmp(s, "bin") || !strcmp(s, "binary")) {
        *out = DATASET_BINARY;
        return 0;
    }
    if (!strcmp(s, "txt") || !strcmp(s, "text")) {
        *out = DATASET_TEXT;
        return 0;
    }
    return -1;
}

/* n*n*count without overflow; 0 if it would not fit in size_t bytes of floats. */
static size_t checked_elems(uint64_t n, uint64_t count)
{
    uint64_t nn = n * n;
    if (n && nn / n != n) return 0;
    if (count && (nn * count) / count != nn) return 0;
    if (nn * count > (uint64_t)SIZE_MAX / sizeof(float)) return 0;
    return (size_t)(nn * count);
}

/* The first non-finite value, reported as matrix and element. */
static int check_finite(const char *path, const dataset *d, char *err, size_t errlen)
{
    size_t total = (size_t)d->n * (size_t)d->n * d->count;
    for (size_t k = 0; k < total; k++)
        if (!isfinite(d->data[k])) {
            size_t nn = (size_t)d->n * (size_t)d->n;
            return fail(err, errlen, path, "matrix %zu element (%zu, %zu) is %s; inputs must be finite", k / nn,
                        (k % nn) / (size_t)d->n, k % (size_t)d->n, isnan(d->data[k]) ? "NaN" : "Inf");
        }
    return 0;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = (v << 8) | p[k];
    return v;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static void put_u32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}

static int read_binary(const char *path, FILE *f, unsigned long long size, dataset *out, char *err, size_t errlen)
{
    unsigned char h[DATASET_HEADER_BYTES];
    if (size < DATASET_HEADER_BYTES || fread(h, 1, sizeof h, f) != sizeof h)
        return fail(err, errlen, path, "truncated header: %llu bytes, a header needs %d", size, DATASET_HEADER_BYTES);
    if (memcmp(h, DATASET_MAGIC, 8) != 0)
        return fail(err, errlen, path, "wrong magic: not a %s dataset file", DATASET_MAGIC);
    uint32_t version = get_u32(h + 8), type = get_u32(h + 12);
    uint64_t n = get_u64(h + 16), count = get_u64(h + 24);
    if (version != DATASET_VERSION)
        return fail(err, errlen, path, "unsupported version %u (this program reads version %u)", version,
                    DATASET_VERSION);
    if (type != DATASET_ELEM_FLOAT32)
        return fail(err, errlen, path, "unsupported element type %u (only 1 = float32)", type);
    if (n < 1 || n > DATASET_MAX_N)
        return fail(err, errlen, path, "bad header: n = %llu (must be 1..%d)", (unsigned long long)n, DATASET_MAX_N);
    if (count < 1) return fail(err, errlen, path, "bad header: count = 0");
    /* The payload must be exactly count*n*n floats; the sizes are compared in unsigned 64-bit
     * arithmetic, and a header whose payload would not fit in memory at all is refused first. */
    size_t elems = checked_elems(n, count);
    uint64_t payload = size - DATASET_HEADER_BYTES;
    if (!elems)
        return fail(err, errlen, path,
                    "header says count = %llu, n = %llu: more than 2^64 bytes, but the file has %llu bytes",
                    (unsigned long long)count, (unsigned long long)n, size);
    if ((uint64_t)elems * sizeof(float) != payload)
        return fail(
            err, errlen, path, "header says count = %llu, n = %llu (%llu bytes of data) but the file has %llu (%s)",
            (unsigned long long)count, (unsigned long long)n, (unsigned long long)elems * sizeof(float),
            (unsigned long long)payload, payload < (uint64_t)elems * sizeof(float) ? "truncated" : "trailing bytes");
    float *data = malloc(elems * sizeof(float));
    if (!data) return fail(err, errlen, path, "out of host memory for %zu bytes", elems * sizeof(float));
    if (fread(data, sizeof(float), elems, f) != elems) {
        free(data);
        return fail(err, errlen, path, "read error: %s",
                    ferror(f) ? strerror(errno) : "the file shrank while being read");
    }
    out->n = (int)n;
    out->count = (size_t)count;
    out->data = data;
    return 0;
}

/* ---- text ---------------------------------------------------------------------------------- */

/* Next whitespace-separated token of text[0..size) starting at *pos; '#' starts a comment that
 * runs to the end of its line. Tracks the line number. */
static const char *next_token(const char *text, size_t size, size_t *pos, int *line, size_t *len)
{
    size_t p = *pos;
    for (;;) {
        while (p < size && isspace((unsigned char)text[p])) {
            if (text[p] == '\n') (*line)++;
            p++;
        }
        if (p < size && text[p] == '#') {
            while (p < size && text[p] != '\n') p++;
            continue;
        }
        break;
    }
    if (p >= size) {
        *pos = p;
        return NULL;
    }
    size_t start = p;
    while (p < size && !isspace((unsigned char)text[p]) && text[p] != '#') p++;
    *len = p - start;
    *pos = p;
    return text + start;
}

/* A plain non-negative integer ("12", not "12.0" or "1e1"); 0 on success. */
static int parse_count(const char *tok, size_t len, unsigned long long *v)
{
    if (len == 0 || len > 20) return -1;
    unsigned long long x = 0;
    for (size_t k = 0; k < len; k++) {
        if (!isdigit((unsigned char)tok[k])) return -1;
        unsigned d = (unsigned)(tok[k] - '0');
        if (x > (ULLONG_MAX - d) / 10) return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

#define TEXT_MAX_COUNT ((unsigned long long)1 << 40)
#define SHOWN(len) (int)((len) < 40 ? (len) : 40)

/* Two header forms: "count\nn\n" then count*n rows of n numbers, or (a single matrix) "n\n" then
 * n rows of n numbers. The first is meant when lines 1 and 2 each hold one plain integer; a
 * single matrix of order n >= 2 has n numbers on line 2, so the two cannot be confused. */
static int read_text(const char *path, FILE *f, unsigned long long size, dataset *out, char *err, size_t errlen)
{
    char *text = malloc((size_t)size + 1);
    if (!text) return fail(err, errlen, path, "out of host memory for %llu bytes of text", size);
    if (fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        return fail(err, errlen, path, "read error: %s", strerror(errno));
    }
    text[size] = 0;
    int rc = -1;
    float *data = NULL;
    const char *nul = memchr(text, 0, (size_t)size);
    if (nul) {
        fail(err, errlen, path, "byte %zu is a NUL byte: not a text dataset (a text dataset holds only numbers)",
             (size_t)(nul - text));
        goto done;
    }
    size_t skip = (size >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) ? 3 : 0; /* a UTF-8 byte-order mark */

    /* Pass 1: count the tokens; remember the first two and their lines. */
    size_t pos = skip, len = 0, len0 = 0, len1 = 0, ntok = 0, on_line0 = 0, on_line1 = 0;
    int line = 1, line0 = 0, line1 = 0;
    const char *tok, *t0 = NULL, *t1 = NULL;
    while ((tok = next_token(text, (size_t)size, &pos, &line, &len))) {
        if (ntok == 0) {
            t0 = tok;
            len0 = len;
            line0 = line;
        }
        if (ntok == 1) {
            t1 = tok;
            len1 = len;
            line1 = line;
        }
        if (line == line0) on_line0++;
        if (t1 && line == line1) on_line1++;
        ntok++;
    }
    unsigned long long first, second = 0;
    if (!t0) {
        fail(err, errlen, path, "no numbers in the file (empty, or only comments)");
        goto done;
    }
    if (parse_count(t0, len0, &first) != 0 || first < 1) {
        fail(err, errlen, path, "line %d: expected a positive integer (count, or n for a single matrix), found '%.*s'",
             line0, SHOWN(len0), t0);
        goto done;
    }
    if (on_line0 != 1) {
        fail(err, errlen, path,
             "line %d: the first line must hold only the count (or n for a single matrix), found %zu numbers", line0,
             on_line0);
        goto done;
    }
    size_t count, n, header_tokens, elems;
    if (t1 && on_line1 == 1 && parse_count(t1, len1, &second) == 0) { /* count, then n */
        if (first > TEXT_MAX_COUNT) {
            fail(err, errlen, path, "line %d: count = %llu is too large (at most %llu)", line0, first, TEXT_MAX_COUNT);
            goto done;
        }
        if (second < 1 || second > DATASET_MAX_N) {
            fail(err, errlen, path, "line %d: n = %llu (must be 1..%d)", line1, second, DATASET_MAX_N);
            goto done;
        }
        elems = checked_elems(second, first);
        if (!elems) {
            fail(err, errlen, path, "header says count = %llu, n = %llu: too many values for this machine", first,
                 second);
            goto done;
        }
        if (ntok - 2 != elems) {
            fail(err, errlen, path, "header says count = %llu, n = %llu: expected %zu values, found %zu (%s)%s", first,
                 second, elems, ntok - 2, ntok - 2 < elems ? "missing values" : "extra values",
                 first == 1 && ntok == 2 ? "; a single 1 x 1 matrix is written '1' (count), '1' (n), then its value"
                                         : "");
            goto done;
        }
        count = (size_t)first;
        n = (size_t)second;
        header_tokens = 2;
    } else { /* a single matrix: n, then n rows of n numbers */
        if (first > DATASET_MAX_N) {
            fail(err, errlen, path, "line %d: n = %llu (single matrix) is too large (at most %d)", line0, first,
                 DATASET_MAX_N);
            goto done;
        }
        elems = (size_t)(first * first);
        if (ntok - 1 != elems) {
            fail(err, errlen, path, "header says n = %llu (single matrix): expected %zu values, found %zu (%s)", first,
                 elems, ntok - 1, ntok - 1 < elems ? "missing values" : "extra values");
            goto done;
        }
        count = 1;
        n = (size_t)first;
        header_tokens = 1;
    }

    /* Pass 2: parse the values. */
    data = malloc(elems * sizeof(float));
    if (!data) {
        fail(err, errlen, path, "out of host memory for %zu bytes", elems * sizeof(float));
        goto done;
    }
    pos = skip;
    line = 1;
    for (size_t k = 0; k < header_tokens; k++) next_token(text, (size_t)size, &pos, &line, &len);
    for (size_t k = 0; k < elems; k++) {
        tok = next_token(text, (size_t)size, &pos, &line, &len);
        char buf[64];
        if (len >= sizeof buf) {
            fail(err, errlen, path, "line %d: '%.*s...' is not a number (too long)", line, SHOWN(len), tok);
            goto done;
        }
        memcpy(buf, tok, len);
        buf[len] = 0;
        char *end;
        float v = strtof(buf, &end);
        if (*end || end == buf) {
            fail(err, errlen, path, "line %d: '%.*s' is not a number", line, SHOWN(len), tok);
            goto done;
        }
        data[k] = v;
    }
    out->n = (int)n;
    out->count = count;
    out->data = data;
    data = NULL;
    rc = 0;
done:
    free(data);
    free(text);
    return rc;
}

int dataset_read_opts(const char *path, dataset *out, unsigned flags, char *err, size_t errlen)
{
    out->n = 0;
    out->count = 0;
    out->data = NULL;
    struct stat st;
    if (stat(path, &st) != 0) return fail(err, errlen, path, "cannot open: %s", strerror(errno));
    if (S_ISDIR(st.st_mode)) return fail(err, errlen, path, "is a directory, not a dataset file");
    if (!S_ISREG(st.st_mode)) return fail(err, errlen, path, "not a regular file (a dataset is read from a file)");
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, errlen, path, "cannot open: %s", strerror(errno));
    unsigned long long size = (unsigned long long)st.st_size;
    unsigned char head[8] = {0};
    size_t got = fread(head, 1, sizeof head, f);
    rewind(f);
    size_t bom = got >= 3 && !memcmp(head, "\xEF\xBB\xBF", 3) ? 3 : 0;
    int c = got > bom ? head[bom] : EOF;
    int rc;
    if (got == 0) rc = fail(err, errlen, path, "empty file");
    else if (got >= 7 && !memcmp(head, DATASET_MAGIC, 7)) rc = read_binary(path, f, size, out, err, errlen);
    else if (c == EOF || isdigit(c) || isspace(c) || c == '+' || c == '-' || c == '.' || c == '#')
        rc = read_text(path, f, size, out, err, errlen);
    else
        rc = fail(err, errlen, path, "wrong magic: neither a %s binary dataset nor text (first byte 0x%02x)",
                  DATASET_MAGIC, c);
    fclose(f);
    if (rc == 0 && !(flags & DATASET_ALLOW_NONFINITE) && check_finite(path, out, err, errlen) != 0) {
        dataset_free(out);
        rc = -1;
    }
    return rc;
}

int dataset_read(const char *path, dataset *out, char *err, size_t errlen)
{
    return dataset_read_opts(path, out, 0, err, errlen);
}

int dataset_make_parent_dirs(const char *path, char *err, size_t errlen)
{
    char dir[4096];
    if (strlen(path) >= sizeof dir) return fail(err, errlen, path, "path too long");
    strcpy(dir, path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        struct stat st;
        if (stat(dir, &st) != 0) {
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                return fail(err, errlen, path, "cannot create the directory %s: %s", dir, strerror(errno));
        } else if (!S_ISDIR(st.st_mode)) return fail(err, errlen, path, "cannot create: %s is not a directory", dir);
        *p = '/';
    }
    return 0;
}

int dataset_write_header(const char *path, const dataset *d, FILE **f, char *err, size_t errlen)
{
    *f = NULL;
    if (dataset_make_parent_dirs(path, err, errlen) != 0) return -1;
    *f = fopen(path, "wb");
    if (!*f) return fail(err, errlen, path, "cannot create: %s", strerror(errno));
    unsigned char h[DATASET_HEADER_BYTES] = {0};
    memcpy(h, DATASET_MAGIC, 8);
    put_u32(h + 8, DATASET_VERSION);
    put_u32(h + 12, DATASET_ELEM_FLOAT32);
    put_u64(h + 16, (uint64_t)d->n);
    put_u64(h + 24, (uint64_t)d->count);
    if (fwrite(h, 1, sizeof h, *f) != sizeof h) {
        fclose(*f);
        *f = NULL;
        return fail(err, errlen, path, "write error: %s", strerror(errno));
    }
    return 0;
}

int dataset_write(const char *path, const dataset *d, dataset_format fmt, char *err, size_t errlen)
{
    size_t elems = (size_t)d->n * (size_t)d->n * d->count;
    FILE *f;
    int ok = 1;
    if (fmt == DATASET_BINARY) {
        if (dataset_write_header(path, d, &f, err, errlen) != 0) return -1;
        ok = fwrite(d->data, sizeof(float), elems, f) == elems;
    } else {
        if (dataset_make_parent_dirs(path, err, errlen) != 0) return -1;
        f = fopen(path, "w");
        if (!f) return fail(err, errlen, path, "cannot create: %s", strerror(errno));
        /* %.9g prints every float so that it reads back to the same bits. */
        ok = fprintf(f, "%zu\n%d\n", d->count, d->n) > 0;
        for (size_t r = 0; ok && r < d->count * (size_t)d->n; r++)
            for (int j = 0; ok && j < d->n; j++)
                ok = fprintf(f, j + 1 < d->n ? "%.9g " : "%.9g\n", (double)d->data[r * (size_t)d->n + (size_t)j]) > 0;
    }
    if (fclose(f) != 0) ok = 0;
    if (!ok) return fail(err, errlen, path, "write error: %s", strerror(errno));
    return 0;
}
