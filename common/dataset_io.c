/* dataset_io.c - see dataset_io.h for the two formats. */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
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
    if (!strcmp(s, "bin") || !strcmp(s, "binary")) { *out = DATASET_BINARY; return 0; }
    if (!strcmp(s, "txt") || !strcmp(s, "text")) { *out = DATASET_TEXT; return 0; }
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
            return fail(err, errlen, path, "matrix %zu element (%zu, %zu) is %s; inputs must be finite",
                        k / nn, (k % nn) / (size_t)d->n, k % (size_t)d->n,
                        isnan(d->data[k]) ? "NaN" : "Inf");
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

static void put_u64(unsigned char *p, uint64_t v) { for (int k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k)); }
static void put_u32(unsigned char *p, uint32_t v) { for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k)); }

static int read_binary(const char *path, FILE *f, long long size, dataset *out, char *err, size_t errlen)
{
    unsigned char h[DATASET_HEADER_BYTES];
    if (size < DATASET_HEADER_BYTES || fread(h, 1, sizeof h, f) != sizeof h)
        return fail(err, errlen, path, "truncated header: %lld bytes, a header needs %d", size, DATASET_HEADER_BYTES);
    if (memcmp(h, DATASET_MAGIC, 8) != 0)
        return fail(err, errlen, path, "wrong magic: not a %s dataset file", DATASET_MAGIC);
    uint32_t version = get_u32(h + 8), type = get_u32(h + 12);
    uint64_t n = get_u64(h + 16), count = get_u64(h + 24);
    if (version != DATASET_VERSION)
        return fail(err, errlen, path, "unsupported version %u (this program reads version %u)", version, DATASET_VERSION);
    if (type != DATASET_ELEM_FLOAT32)
        return fail(err, errlen, path, "unsupported element type %u (only 1 = float32)", type);
    if (n < 1 || n > DATASET_MAX_N)
        return fail(err, errlen, path, "bad header: n = %llu (must be 1..%d)", (unsigned long long)n, DATASET_MAX_N);
    if (count < 1)
        return fail(err, errlen, path, "bad header: count = 0");
    size_t elems = checked_elems(n, count);
    if (!elems)
        return fail(err, errlen, path, "bad header: n = %llu, count = %llu is too large", (unsigned long long)n, (unsigned long long)count);
    long long want = DATASET_HEADER_BYTES + (long long)(elems * sizeof(float));
    if (size != want)
        return fail(err, errlen, path, "header says count = %llu, n = %llu (%lld bytes) but the file has %lld bytes (%s)",
                    (unsigned long long)count, (unsigned long long)n, want, size, size < want ? "truncated" : "trailing bytes");
    float *data = malloc(elems * sizeof(float));
    if (!data) return fail(err, errlen, path, "out of host memory for %zu bytes", elems * sizeof(float));
    if (fread(data, sizeof(float), elems, f) != elems) {
        free(data);
        return fail(err, errlen, path, "read error: %s", strerror(errno));
    }
    out->n = (int)n;
    out->count = (size_t)count;
    out->data = data;
    return 0;
}

/* ---- text ---------------------------------------------------------------------------------- */

/* Next whitespace-separated token of text starting at *pos; tracks the line number. */
static const char *next_token(const char *text, size_t *pos, int *line, size_t *len)
{
    size_t p = *pos;
    while (text[p] && isspace((unsigned char)text[p])) {
        if (text[p] == '\n') (*line)++;
        p++;
    }
    if (!text[p]) { *pos = p; return NULL; }
    size_t start = p;
    while (text[p] && !isspace((unsigned char)text[p])) p++;
    *len = p - start;
    *pos = p;
    return text + start;
}

static int parse_positive_int(const char *tok, size_t len, long long *v)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (*end || errno || x < 1) return -1;
    *v = x;
    return 0;
}

static int read_text(const char *path, FILE *f, long long size, dataset *out, char *err, size_t errlen)
{
    char *text = malloc((size_t)size + 1);
    if (!text) return fail(err, errlen, path, "out of host memory for %lld bytes", size);
    if (fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        return fail(err, errlen, path, "read error: %s", strerror(errno));
    }
    text[size] = 0;

    /* Pass 1: count tokens, remember the first two and how many tokens line 2 holds. */
    size_t pos = 0, len = 0, len0 = 0, len1 = 0, ntok = 0, on_line2 = 0;
    int line = 1;
    const char *tok, *t0 = NULL, *t1 = NULL;
    while ((tok = next_token(text, &pos, &line, &len))) {
        if (ntok == 0) { t0 = tok; len0 = len; }
        if (ntok == 1) { t1 = tok; len1 = len; }
        if (line == 2) on_line2++;
        ntok++;
    }
    long long first, second = 0;
    int rc = -1;
    if (!t0) { fail(err, errlen, path, "empty file"); goto done; }
    if (parse_positive_int(t0, len0, &first) != 0 || first > (long long)1 << 40) {
        fail(err, errlen, path, "line 1: expected a positive integer (count, or n for a single matrix), found '%.*s'", (int)(len0 < 40 ? len0 : 40), t0);
        goto done;
    }
    int batch_header = t1 && on_line2 == 1 && parse_positive_int(t1, len1, &second) == 0 && second <= DATASET_MAX_N;
    size_t count, n, header_tokens;
    if (batch_header && checked_elems((uint64_t)second, (uint64_t)first) &&
        ntok == 2 + checked_elems((uint64_t)second, (uint64_t)first)) {
        count = (size_t)first; n = (size_t)second; header_tokens = 2;
    } else if (first <= DATASET_MAX_N && ntok == 1 + (size_t)(first * first)) {
        count = 1; n = (size_t)first; header_tokens = 1;
    } else if (batch_header) {
        size_t want = checked_elems((uint64_t)second, (uint64_t)first);
        fail(err, errlen, path, "header says count = %lld, n = %lld: expected %zu values, found %zu (%s)",
             first, second, want, ntok - 2, ntok - 2 < want ? "missing values" : "extra values");
        goto done;
    } else {
        fail(err, errlen, path, "header says n = %lld (single matrix): expected %lld values, found %zu (%s)",
             first, first * first, ntok - 1, ntok - 1 < (size_t)(first * first) ? "missing values" : "extra values");
        goto done;
    }

    /* Pass 2: parse the values. */
    size_t elems = count * n * n;
    float *data = malloc(elems * sizeof(float));
    if (!data) { fail(err, errlen, path, "out of host memory for %zu bytes", elems * sizeof(float)); goto done; }
    pos = 0; line = 1;
    for (size_t k = 0; k < header_tokens; k++) next_token(text, &pos, &line, &len);
    for (size_t k = 0; k < elems; k++) {
        tok = next_token(text, &pos, &line, &len);
        char buf[64];
        size_t l = len < sizeof buf - 1 ? len : sizeof buf - 1;
        memcpy(buf, tok, l);
        buf[l] = 0;
        char *end;
        float v = strtof(buf, &end);
        if (*end || len >= sizeof buf - 1) {
            free(data);
            fail(err, errlen, path, "line %d: '%.*s' is not a number", line, (int)(len < 40 ? len : 40), tok);
            goto done;
        }
        data[k] = v;
    }
    out->n = (int)n;
    out->count = count;
    out->data = data;
    rc = 0;
done:
    free(text);
    return rc;
}

int dataset_read(const char *path, dataset *out, char *err, size_t errlen)
{
    out->n = 0; out->count = 0; out->data = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, errlen, path, "cannot open: %s", strerror(errno));
    long long size = -1;
    if (fseeko(f, 0, SEEK_END) == 0) size = (long long)ftello(f);
    if (size < 0 || fseeko(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return fail(err, errlen, path, "cannot determine the file size");
    }
    int c = fgetc(f);
    rewind(f);
    int rc;
    if (c == EOF)
        rc = fail(err, errlen, path, "empty file");
    else if (isdigit(c) || isspace(c) || c == '+' || c == '-' || c == '.')
        rc = read_text(path, f, size, out, err, errlen);
    else
        rc = read_binary(path, f, size, out, err, errlen);
    fclose(f);
    if (rc == 0 && check_finite(path, out, err, errlen) != 0) {
        dataset_free(out);
        rc = -1;
    }
    return rc;
}

int dataset_write_header(const char *path, const dataset *d, FILE **f, char *err, size_t errlen)
{
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
