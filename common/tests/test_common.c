/* test_common.c - tests of common/ and the generator: file format round trips and every bad-file
 * case, layout round trips, generator determinism and families, the checker itself, and (with a
 * GPU) the device generator and converters against their host twins. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checks.h"
#include "cuda_check.h"
#include "dataset_io.h"
#include "generator.h"
#include "gpu_batch.h"
#include "harness.h"
#include "layout.h"
#include "host_alloc.h"

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

static void write_file(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

/* ---- file format ---------------------------------------------------------------------------- */

static void test_round_trips(harness *h)
{
    char err[DATASET_ERR_LEN];
    gen_params p = gen_params_make(FAMILY_ILLCOND, 7, 1e3, 0);
    int sizes[] = {1, 5, 33};
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        size_t count = 3, elems = count * n * n;
        dataset d = {n, count, host_alloc(elems * sizeof(float), "test buffers")}, r;
        gen_batch_host(&p, n, 0, count, d.data);
        for (int f = 0; f < 2; f++) {
            const char *path = tmp_path(f ? "rt.txt" : "rt.bin");
            char name[64];
            snprintf(name, sizeof name, "%s round trip n=%d", f ? "text" : "binary", n);
            int ok = dataset_write(path, &d, f ? DATASET_TEXT : DATASET_BINARY, err, sizeof err) == 0 &&
                     dataset_read(path, &r, err, sizeof err) == 0;
            ok = ok && r.n == n && r.count == count && memcmp(r.data, d.data, elems * sizeof(float)) == 0;
            harness_check(h, ok, name, "%s", ok ? "bit-exact" : err);
            if (r.data) dataset_free(&r);
        }
        free(d.data);
    }
    /* The seed project's single-matrix text variant: only n on line 1. */
    const char *single = "3\n4 2 0\n2 5 1\n0 1 6\n";
    write_file(tmp_path("single.txt"), single, strlen(single));
    dataset r;
    int ok = dataset_read(tmp_path("single.txt"), &r, err, sizeof err) == 0 && r.n == 3 && r.count == 1 &&
             r.data[1] == 2.0f && r.data[8] == 6.0f;
    harness_check(h, ok, "text single-matrix variant", "%s", ok ? "n=3, count=1" : err);
    if (ok) dataset_free(&r);
    /* A batch of 1x1 matrices and a single 1x1 matrix must not be confused. */
    write_file(tmp_path("ones.txt"), "2\n1\n4\n9\n", 8);
    ok = dataset_read(tmp_path("ones.txt"), &r, err, sizeof err) == 0 && r.n == 1 && r.count == 2 && r.data[1] == 9.0f;
    harness_check(h, ok, "text batch of 1x1 matrices", "%s", ok ? "count=2" : err);
    if (ok) dataset_free(&r);
    /* Issue 9: a UTF-8 byte-order mark and '#' comment lines are accepted; 1x1 single matrix
     * with a non-integer value. */
    const char *bom = "\xEF\xBB\xBF# exported by a spreadsheet\n2\n2   # n\n4 1\n1 3\n# second matrix\n2 0\n0 2\n";
    write_file(tmp_path("bom.txt"), bom, strlen(bom));
    ok = dataset_read(tmp_path("bom.txt"), &r, err, sizeof err) == 0 && r.n == 2 && r.count == 2 && r.data[7] == 2.0f;
    harness_check(h, ok, "text with a byte-order mark and comments", "%s", ok ? "count=2, n=2" : err);
    if (ok) dataset_free(&r);
    write_file(tmp_path("one.txt"), "1\n2.5\n", 6);
    ok = dataset_read(tmp_path("one.txt"), &r, err, sizeof err) == 0 && r.n == 1 && r.count == 1 && r.data[0] == 2.5f;
    harness_check(h, ok, "text single 1x1 matrix", "%s", ok ? "n=1, count=1" : err);
    if (ok) dataset_free(&r);
    /* A factors file may hold NaN when asked for (the driver's --info reading of real data). */
    write_file(tmp_path("nan-ok.txt"), "1\n2\n1 nan\nnan 1\n", 16);
    ok = dataset_read_opts(tmp_path("nan-ok.txt"), &r, DATASET_ALLOW_NONFINITE, err, sizeof err) == 0 && r.n == 2 &&
         isnan(r.data[1]);
    harness_check(h, ok, "NaN accepted with DATASET_ALLOW_NONFINITE", "%s", ok ? "read" : err);
    if (ok) dataset_free(&r);
}

/* Each bad file must be refused with a message that names the file and the problem. */
static void expect_bad(harness *h, const char *name, const char *file, const void *bytes, size_t len,
                       const char *phrase)
{
    char err[DATASET_ERR_LEN] = "";
    const char *path = tmp_path(file);
    if (bytes) write_file(path, bytes, len);
    dataset r;
    int rc = dataset_read(path, &r, err, sizeof err);
    int ok = rc == -1 && r.data == NULL && strstr(err, path) && strstr(err, phrase);
    harness_check(h, ok, name, "message: %s", err);
}

static void test_bad_files(harness *h)
{
    unsigned char good[DATASET_HEADER_BYTES + 2 * 4 * 4];
    dataset d = {2, 2, (float[]){4, 1, 1, 3, 2, 0, 0, 2}};
    char err[DATASET_ERR_LEN];
    if (dataset_write(tmp_path("good.bin"), &d, DATASET_BINARY, err, sizeof err) != 0) {
        puts(err);
        exit(1);
    }
    FILE *f = fopen(tmp_path("good.bin"), "rb");
    if (!f || fread(good, 1, sizeof good, f) != sizeof good) {
        perror("good.bin");
        exit(1);
    }
    fclose(f);
    unsigned char bad[sizeof good + 4];

    expect_bad(h, "missing file", "does-not-exist.bin", NULL, 0, "cannot open");
    expect_bad(h, "empty file", "empty.bin", "", 0, "empty file");
    expect_bad(h, "truncated header", "trunc-header.bin", good, 20, "truncated header");
    expect_bad(h, "truncated data", "trunc-data.bin", good, sizeof good - 3, "truncated");
    memcpy(bad, good, sizeof good);
    memset(bad + sizeof good, 0, 4);
    expect_bad(h, "trailing bytes", "trailing.bin", bad, sizeof good + 4, "trailing bytes");
    memcpy(bad, good, sizeof good);
    bad[0] = 'X';
    expect_bad(h, "wrong magic", "magic.bin", bad, sizeof good, "wrong magic");
    memcpy(bad, good, sizeof good);
    bad[8] = 9;
    expect_bad(h, "unknown version", "version.bin", bad, sizeof good, "unsupported version");
    memcpy(bad, good, sizeof good);
    bad[12] = 2;
    expect_bad(h, "unknown element type", "type.bin", bad, sizeof good, "element type");
    memcpy(bad, good, sizeof good);
    bad[24] = 3; /* count 3, but only 2 matrices of data */
    expect_bad(h, "header disagrees with size", "count.bin", bad, sizeof good, "header says count = 3");
    memcpy(bad, good, sizeof good);
    bad[16] = 0; /* n = 0 */
    expect_bad(h, "n = 0 in header", "n0.bin", bad, sizeof good, "n = 0");
    memcpy(bad, good, sizeof good);
    float nan = NAN, inf = INFINITY;
    memcpy(bad + DATASET_HEADER_BYTES + 5 * 4, &nan, 4);
    expect_bad(h, "NaN value (binary)", "nan.bin", bad, sizeof good, "matrix 1 element (0, 1) is NaN");
    memcpy(bad, good, sizeof good);
    memcpy(bad + DATASET_HEADER_BYTES, &inf, 4);
    expect_bad(h, "Inf value (binary)", "inf.bin", bad, sizeof good, "is Inf");

    const char *t;
    t = "2\n2\n4 1\n1 3\n2 0\n0 x2\n";
    expect_bad(h, "non-numeric text value", "alpha.txt", t, strlen(t), "line 6: 'x2' is not a number");
    t = "2\n2\n4 1\n1 3\n2 0\n0\n";
    expect_bad(h, "missing text value", "missing.txt", t, strlen(t), "expected 8 values, found 7");
    t = "2\n2\n4 1\n1 3\n2 0\n0 2 5\n";
    expect_bad(h, "extra text value", "extra.txt", t, strlen(t), "extra values");
    t = "2\n2\n4 1\n1 3\n2 nan\n0 2\n";
    expect_bad(h, "NaN value (text)", "nan.txt", t, strlen(t), "is NaN");
    t = "-2\n2\n4 1\n1 3\n";
    expect_bad(h, "negative count (text)", "negative.txt", t, strlen(t), "expected a positive integer");
    t = "3\n1 2 3\n4 5 6\n";
    expect_bad(h, "single matrix missing a row", "short.txt", t, strlen(t), "expected 9 values, found 6");

    /* Issue 9's regressions: each was once misread or reported nonsense. */
    t = "3\n2\n1 0\n0 1\n1 0\n0 1\n"; /* was read as ONE 3 x 3 matrix */
    expect_bad(h, "count 3 of order 2 with 2 matrices' values", "misread.txt", t, strlen(t),
               "expected 12 values, found 8");
    t = "1\n0\n"; /* was accepted as a 1 x 1 matrix */
    expect_bad(h, "n = 0 in a text header", "n0.txt", t, strlen(t), "n = 0 (must be 1..");
    t = "10000000000\n65536\n1\n"; /* count*n*n overflowed */
    expect_bad(h, "text count*n*n past 2^64", "huge.txt", t, strlen(t), "too many values");
    t = "10000000000\n2\n1 0\n0 1\n";
    expect_bad(h, "text count 1e10, four values", "huge2.txt", t, strlen(t), "expected 40000000000 values, found 4");
    t = "99999999999999999999999\n2\n1 0\n0 1\n";
    expect_bad(h, "text count past 64 bits", "huge3.txt", t, strlen(t), "expected a positive integer");
    t = "1\n5\n";
    expect_bad(h, "1x1 single matrix with an integer value", "one-int.txt", t, strlen(t),
               "a single 1 x 1 matrix is written");
    t = "2 2\n1 0\n0 1\n";
    expect_bad(h, "count and n on one line", "oneline.txt", t, strlen(t), "must hold only the count");
    const char nul[] = "1\n2\n1 0\n\0 0 1\n"; /* data after a NUL byte were ignored */
    expect_bad(h, "NUL byte in a text file", "nul.txt", nul, sizeof nul - 1, "NUL byte");
    expect_bad(h, "a directory", "", NULL, 0, "is a directory");
    t = "# only a comment\n";
    expect_bad(h, "only comments", "comment.txt", t, strlen(t), "no numbers");
    /* Binary headers whose sizes overflow: no negative or wrapped byte counts in the message. */
    unsigned char hdr[DATASET_HEADER_BYTES + 8];
    memcpy(hdr, good, DATASET_HEADER_BYTES);
    memset(hdr + DATASET_HEADER_BYTES, 0, 8);
    memset(hdr + 24, 0, 8);
    hdr[31] = 0x40; /* count = 2^62 */
    hdr[16] = 0;
    hdr[17] = 0;
    hdr[18] = 1; /* n = 65536 */
    expect_bad(h, "binary count*n*n past 2^64", "huge.bin", hdr, sizeof hdr, "more than 2^64 bytes");
    memset(hdr + 24, 0, 8);
    hdr[29] = 1; /* count = 2^40 */
    hdr[16] = 0xe8;
    hdr[17] = 3;
    hdr[18] = 0; /* n = 1000 */
    expect_bad(h, "binary header of 4 EB", "huge2.bin", hdr, sizeof hdr,
               "(4398046511104000000 bytes of data) but the file has 8");
}

static void test_file_format(harness *h)
{
    test_round_trips(h);
    test_bad_files(h);
}

/* ---- layouts -------------------------------------------------------------------------------- */

static void test_layouts(harness *h)
{
    int ns[] = {1, 3, 20};
    size_t batches[] = {1, 3, 1000, 1025};
    size_t chunks[] = {1, 7, 32, 100, 5000};
    for (int a = 0; a < 3; a++)
        for (int bi = 0; bi < 4; bi++)
            for (int ci = 0; ci < 5; ci++) {
                int n = ns[a];
                size_t batch = batches[bi], chunk = chunks[ci], total = batch * n * n;
                float *in = host_alloc(total * sizeof(float), "test buffers"),
                      *mid = host_alloc(total * sizeof(float), "test buffers"),
                      *back = host_alloc(total * sizeof(float), "test buffers");
                unsigned char *hit = calloc(total, 1);
                for (size_t k = 0; k < total; k++) in[k] = (float)k; /* exact below 2^24 */
                int ok = 1;
                /* Every (b, i, j) maps to a distinct index inside the array: a bijection. */
                for (size_t b = 0; b < batch && ok; b++)
                    for (int i = 0; i < n; i++)
                        for (int j = 0; j < n; j++) {
                            size_t k = chunked_index(n, chunk, batch, b, i, j);
                            if (k >= total || hit[k]++) ok = 0;
                        }
                for (size_t k = 0; k < total; k++) mid[k] = back[k] = -1.0f;
                rowmajor_to_chunked_host(n, batch, chunk, in, mid);
                chunked_to_rowmajor_host(n, batch, chunk, mid, back);
                ok = ok && memcmp(in, back, total * sizeof(float)) == 0;
                if (chunk >= batch) /* chunked with one chunk is the simple interleaved layout */
                    for (size_t b = 0; b < batch && ok; b++)
                        ok = mid[interleaved_index(n, batch, b, n - 1, 0)] == in[rowmajor_index(n, b, n - 1, 0)];
                if (chunk == 1) /* chunks of one matrix are the row-major layout */
                    ok = ok && memcmp(in, mid, total * sizeof(float)) == 0;
                char name[96];
                snprintf(name, sizeof name, "layout round trip n=%d batch=%zu chunk=%zu", n, batch, chunk);
                harness_check(h, ok, name, "bijection and row-major -> chunked -> row-major");
                free(in);
                free(mid);
                free(back);
                free(hit);
            }
}

/* ---- generator ------------------------------------------------------------------------------ */

static void test_generator(harness *h)
{
    int n = 24;
    size_t count = 64, elems = count * n * n;
    float *a = host_alloc(elems * sizeof(float), "test buffers"),
          *b = host_alloc(elems * sizeof(float), "test buffers"),
          *part = host_alloc(5 * n * n * sizeof(float), "test buffers");
    for (int f = 0; f < FAMILY_COUNT; f++) {
        gen_params p = gen_params_make((family_t)f, 11, 1e4, 0), q = gen_params_make((family_t)f, 12, 1e4, 0);
        gen_batch_host(&p, n, 0, count, a);
        gen_batch_host(&p, n, 0, count, b);
        int same = memcmp(a, b, elems * sizeof(float)) == 0;
        gen_batch_host(&q, n, 0, count, b);
        int differs = memcmp(a, b, elems * sizeof(float)) != 0;
        gen_batch_host(&p, n, 40, 5, part); /* any matrix can be regenerated alone */
        int alone = memcmp(part, a + 40 * (size_t)n * n, 5 * (size_t)n * n * sizeof(float)) == 0;
        int sym = 1;
        for (size_t k = 0; k < count; k++)
            for (int i = 0; i < n; i++)
                for (int j = 0; j < i; j++) sym &= a[k * n * n + i * n + j] == a[k * n * n + j * n + i];
        char name[64];
        snprintf(name, sizeof name, "generator %s deterministic", family_name((family_t)f));
        harness_check(h, same && differs && alone && sym, name,
                      "same seed same bytes %d, other seed differs %d, "
                      "regenerated alone %d, symmetric %d",
                      same, differs, alone, sym);
    }
    /* spd and illcond pass the float64 reference; nonspd fails exactly at the planted minor. */
    int sizes[] = {1, 2, 7, 33, 100};
    for (int s = 0; s < 5; s++) {
        int m = sizes[s];
        double *w = host_alloc((size_t)m * m * sizeof(double), "test buffers");
        for (int f = 0; f < FAMILY_COUNT; f++) {
            if (f == FAMILY_HP3) continue;
            gen_params p = gen_params_make((family_t)f, 3, 1e4, 0);
            int ok = 1, detail = 0;
            for (size_t k = 0; k < 50 && ok; k++) {
                for (int i = 0; i < m; i++)
                    for (int j = 0; j < m; j++) w[i * m + j] = gen_element(&p, m, k, i, j);
                int info = ref_potrf_d(m, w);
                int want = f == FAMILY_NONSPD ? gen_nonspd_fail_at(&p, m, k) : 0;
                ok = info == want;
                detail = info;
            }
            char name[64];
            snprintf(name, sizeof name, "family %s n=%d reference info", family_name((family_t)f), m);
            harness_check(h, ok, name, "last info %d", detail);
        }
        free(w);
    }
    /* --fail-at plants the same k in every matrix. */
    gen_params p = gen_params_make(FAMILY_NONSPD, 5, 0, 9);
    double w[16 * 16];
    int ok = 1;
    for (size_t k = 0; k < 20; k++) {
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) w[i * 16 + j] = gen_element(&p, 16, k, i, j);
        ok &= ref_potrf_d(16, w) == 9;
    }
    harness_check(h, ok, "nonspd --fail-at 9", "info 9 in all 20 matrices");
    /* illcond: the condition number grows with kappa. */
    gen_params lo = gen_params_make(FAMILY_ILLCOND, 5, 1e2, 0), hi = gen_params_make(FAMILY_ILLCOND, 5, 1e6, 0);
    double A[64 * 64], L[64 * 64], klo, khi;
    for (int i = 0; i < 64 * 64; i++) A[i] = L[i] = gen_element(&lo, 64, 0, i / 64, i % 64);
    ref_potrf_d(64, L);
    klo = estimate_kappa(64, A, L);
    for (int i = 0; i < 64 * 64; i++) A[i] = L[i] = gen_element(&hi, 64, 0, i / 64, i % 64);
    ref_potrf_d(64, L);
    khi = estimate_kappa(64, A, L);
    harness_check(h, klo > 10 && klo < 4e2 && khi > 1e4 && khi < 4e6, "illcond kappa follows --kappa",
                  "kappa 1e2 -> %.3g, kappa 1e6 -> %.3g", klo, khi);
    free(a);
    free(b);
    free(part);
}

/* ---- the checker must be able to fail ------------------------------------------------------- */

static void test_checker(harness *h)
{
    int n = 20;
    gen_params p = gen_params_make(FAMILY_SPD, 1, 0, 0);
    float A[20 * 20], L[20 * 20];
    double L64[20 * 20];
    for (int i = 0; i < n * n; i++) L64[i] = A[i] = gen_element(&p, n, 0, i / n, i % n);
    ref_potrf_d(n, L64);
    factor_check r;
    struct {
        const char *name;
        int i, j;
        float v;
        int info;
        int want_ok;
    } cases[] = {
        {"exact factor passes", 0, 0, 0, 0, 1}, {"perturbed element fails", 13, 4, 1e-4f, 0, 0},
        {"NaN fails", 7, 7, NAN, 0, 0},         {"nonzero upper fails", 2, 9, 1e-30f, 0, 0},
        {"wrong info fails", 0, 0, 0, 3, 0},
    };
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        for (int i = 0; i < n * n; i++) L[i] = (float)L64[i];
        float *e = &L[cases[c].i * n + cases[c].j];
        if (cases[c].v != 0 || isnan(cases[c].v)) *e = (c == 1) ? *e + cases[c].v * (1 + fabsf(*e)) : cases[c].v;
        check_factor(n, A, L, cases[c].info, &r);
        char name[64];
        snprintf(name, sizeof name, "checker: %s", cases[c].name);
        harness_check(h, r.ok == cases[c].want_ok, name, "%s", r.detail[0] ? r.detail : "ok");
    }
    /* The float64 check: the long double reference's factor rounded to double passes; a relative
     * error of 1e-10 in one element (float32 errs by 1e-7), a NaN, a nonzero upper element, a wrong
     * info, and the same matrix's float32-accurate factor (the reference's rounded to float) fail. */
    static double Ad[20 * 20], Ld[20 * 20];
    static long double Lld[20 * 20];
    for (int i = 0; i < n * n; i++) Lld[i] = Ad[i] = A[i] + (i / n == i % n ? 0.0 : 1e-9 * sin(1.0 + i % 97));
    for (int i = 0; i < n; i++) /* (kept symmetric) */
        for (int j = 0; j < i; j++) Lld[j * n + i] = Ad[j * n + i] = Ad[i * n + j];
    ref_potrf_ld(n, Lld);
    const struct {
        const char *name;
        int i, j, info, want_ok;
        double v;
    } dcases[] = {{"exact factor passes", 0, 0, 0, 1, 0}, {"a relative error of 1e-10 fails", 13, 4, 0, 0, 1e-10},
                  {"NaN fails", 7, 7, 0, 0, NAN},         {"nonzero upper fails", 2, 9, 0, 0, 1e-300},
                  {"wrong info fails", 0, 0, 3, 0, 0},    {"a float32-accurate factor fails", -1, -1, 0, 0, 0}};
    for (int c = 0; c < (int)(sizeof dcases / sizeof dcases[0]); c++) {
        for (int i = 0; i < n * n; i++) Ld[i] = dcases[c].i < 0 ? (double)(float)Lld[i] : (double)Lld[i];
        double *e = dcases[c].i < 0 ? NULL : &Ld[dcases[c].i * n + dcases[c].j];
        if (e && isnan(dcases[c].v)) *e = NAN;
        else if (e && dcases[c].v != 0) *e = dcases[c].j > dcases[c].i ? dcases[c].v : *e * (1 + dcases[c].v);
        check_factor_d(n, Ad, Ld, dcases[c].info, &r);
        char name[80];
        snprintf(name, sizeof name, "checker float64: %s", dcases[c].name);
        harness_check(h, r.ok == dcases[c].want_ok, name, "%s", r.detail[0] ? r.detail : "ok");
    }
    static double A2[2 * 20 * 20], L2[2 * 20 * 20];
    int info2[2] = {0, 0};
    for (int i = 0; i < 2 * n * n; i++) A2[i] = Ad[i % (n * n)], L2[i] = (double)Lld[i % (n * n)];
    L2[n * n + 5 * n + 3] = NAN; /* the second matrix */
    factor_check first;
    const size_t bad = check_batch_d(n, 2, A2, L2, info2, NULL, &first, NULL, NULL);
    harness_check(h, bad == 1 && !strncmp(first.detail, "matrix 1:", 9),
                  "checker float64: a batch finds its bad matrix", "%zu bad; %s", bad, first.detail);
    /* The tests' garbage above the diagonal: the lower triangle (diagonal included) kept bit for bit,
     * each strict upper element NaN or 2 a_ji + 1 as the kind says (two matrices: MIXED alternates). */
    static float G[2 * 20 * 20];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 2 * n * n; i++) G[i] = A[i % (n * n)];
        poison_strict_upper(n, 2, G, (upper_garbage)k);
        int kept = 1, junk = 1;
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    const float g = G[(b * n + i) * n + j], a = A[i * n + j];
                    const int nan = k == UPPER_NAN || (k == UPPER_MIXED && b == 0);
                    if (j <= i) kept &= memcmp(&g, &a, sizeof g) == 0;
                    else junk &= nan ? isnan(g) : g == 2.0f * A[j * n + i] + 1.0f && g != a;
                }
        char name[64];
        snprintf(name, sizeof name, "poison_strict_upper kind %d: lower kept, upper garbage", k);
        harness_check(h, kept && junk, name, "lower kept %d, upper as the kind says %d", kept, junk);
    }
    { /* the float64 twin, MIXED: the same rule in double */
        static double D[2 * 20 * 20];
        for (int i = 0; i < 2 * n * n; i++) D[i] = Ad[i % (n * n)];
        poison_strict_upper_d(n, 2, D, UPPER_MIXED);
        int kept = 1, junk = 1;
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    const double g = D[(b * n + i) * n + j], a = Ad[i * n + j];
                    if (j <= i) kept &= memcmp(&g, &a, sizeof g) == 0;
                    else junk &= b == 0 ? isnan(g) : g == 2.0 * Ad[j * n + i] + 1.0 && g != a;
                }
        harness_check(h, kept && junk, "poison_strict_upper_d MIXED: lower kept, upper garbage",
                      "lower kept %d, upper as the kind says %d", kept, junk);
    }
    /* The normwise residual: the exact factor well within the bound, rows 0, 3, 6, .. too; L rounded
     * to 8 bits (an error of about 2^-9 in every entry) past it; a NaN past it. */
    for (int i = 0; i < n * n; i++) L[i] = (float)L64[i];
    const double exact = residual_norm1_ratio(n, A, L, 1), sampled = residual_norm1_ratio(n, A, L, 3);
    harness_check(h, exact <= NORMWISE_BOUND(n) / 10 && sampled <= exact,
                  "checker: normwise residual of the exact factor", "%.3g (rows 0, 3, ..: %.3g), bound %.3g", exact,
                  sampled, NORMWISE_BOUND(n));
    for (int i = 0; i < n * n; i++) L[i] = ldexpf(roundf(ldexpf((float)L64[i], 8)), -8);
    const double coarse = residual_norm1_ratio(n, A, L, 1);
    harness_check(h, coarse > NORMWISE_BOUND(n), "checker: normwise residual of a factor rounded to 8 bits",
                  "%.3g, bound %.3g", coarse, NORMWISE_BOUND(n));
    for (int i = 0; i < n * n; i++) L[i] = (float)L64[i];
    L[5 * n + 2] = NAN;
    const double nan_ratio = residual_norm1_ratio(n, A, L, 1);
    harness_check(h, !(nan_ratio <= NORMWISE_BOUND(n)), "checker: normwise residual with a NaN fails", "%.3g",
                  nan_ratio);
}

/* ---- GPU: the device generator and converters equal their host twins ------------------------ */

#define GPU_BATCH 1025
static const int gpu_ns[] = {1, 5, 33};
static const size_t gpu_chunks[] = {1, 7, 32, 100, GPU_BATCH};
#define GPU_NS (int)(sizeof gpu_ns / sizeof gpu_ns[0])
#define GPU_CHUNKS (int)(sizeof gpu_chunks / sizeof gpu_chunks[0])

/* ---- errors as values (cuda_check.h): CUDA_TRY, TRY, the notes and the planted failures ---- */
static int calls_made; /* how many times counted_call ran */
static cudaError_t counted_call(cudaError_t e)
{
    calls_made++;
    return e;
}
static int try_once(cudaError_t e)
{
    CUDA_TRY(counted_call(e));
    return 0;
}
static int try_twice(cudaError_t a, cudaError_t b)
{
    TRY(try_once(a));
    TRY(try_once(b));
    return 0;
}

static void test_error_values(harness *h)
{
    char said[256];
    course_report_capture(said, sizeof said);
    calls_made = 0;
    int rc = try_twice(cudaSuccess, cudaSuccess);
    harness_check(h, rc == 0 && calls_made == 2 && course_report_captured_kind() == COURSE_NOTE_NONE && !said[0],
                  "CUDA_TRY: success goes on, notes nothing", "returned %d after %d calls, note '%s'", rc, calls_made,
                  said);
    course_report_capture(said, sizeof said);
    calls_made = 0;
    rc = try_twice(cudaErrorInvalidValue, cudaSuccess);
    harness_check(h,
                  rc == -1 && calls_made == 1 && course_report_captured_kind() == COURSE_NOTE_CUDA &&
                      strstr(said, "cudaErrorInvalidValue") && strstr(said, "counted_call(e)") &&
                      strstr(said, "test_common.c:"),
                  "CUDA_TRY: a failure returns -1 at once, through TRY, noted with the call and file:line",
                  "returned %d after %d calls, note '%s'", rc, calls_made, said);
    course_report_capture(said, sizeof said);
    rc = try_once(cudaErrorMemoryAllocation);
    course_report("a later refusal %d\n", 1);
    harness_check(h,
                  rc == -1 && course_report_captured_kind() == COURSE_NOTE_OUT_OF_MEMORY &&
                      strstr(said, "cudaErrorMemoryAllocation") && !strstr(said, "later"),
                  "notes: out of memory is its own kind, and the first note wins", "kind %d, note '%s'",
                  (int)course_report_captured_kind(), said);
    course_report_capture(said, sizeof said);
    course_report("refused: n = %d\n", 0);
    harness_check(h, course_report_captured_kind() == COURSE_NOTE_REFUSED && !strcmp(said, "refused: n = 0"),
                  "course_report: a refusal, captured as one line", "kind %d, note '%s'",
                  (int)course_report_captured_kind(), said);
    course_report_capture(said, sizeof said);
    calls_made = 0;
    const long before = course_fault_checks();
    course_fault_plant(2);
    rc = try_twice(cudaSuccess, cudaSuccess);
    const long counted = course_fault_checks() - before;
    harness_check(h, rc == -1 && calls_made == 1 && counted == 2 && strstr(said, "cudaErrorNotPermitted"),
                  "course_fault_plant(2): the second check fails without making its call",
                  "returned %d after %d calls, %ld checks, note '%s'", rc, calls_made, counted, said);
    course_report_capture(said, sizeof said);
    calls_made = 0;
    rc = try_twice(cudaSuccess, cudaSuccess);
    harness_check(h, rc == 0 && calls_made == 2, "a planted failure fires once", "returned %d after %d calls", rc,
                  calls_made);
    course_report_capture(NULL, 0);
}

static void test_gpu(harness *h)
{
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        harness_skip_rest(h, "device generator and converters", reason);
        return;
    }
    for (int a = 0; a < GPU_NS; a++)
        for (int f = 0; f < FAMILY_COUNT; f++) {
            int n = gpu_ns[a];
            size_t batch = GPU_BATCH, total = batch * n * n;
            float *host = host_alloc(total * sizeof(float), "test buffers"),
                  *lay = host_alloc(total * sizeof(float), "test buffers"),
                  *got = host_alloc(total * sizeof(float), "test buffers");
            float *d_a, *d_b;
            CUDA_CHECK(cudaMalloc((void **)&d_a, total * sizeof(float)));
            CUDA_CHECK(cudaMalloc((void **)&d_b, total * sizeof(float)));
            const size_t *chunks = gpu_chunks;
            for (int c = 0; c < GPU_CHUNKS; c++) {
                gen_params p = gen_params_make((family_t)f, 99, 1e5, 0);
                gen_batch_host(&p, n, 3, batch, host);
                rowmajor_to_chunked_host(n, batch, chunks[c], host, lay);
                CUDA_CHECK(cudaMemset(d_a, 0xff, total * sizeof(float))); /* poison: NaN */
                gen_batch_device(&p, n, 3, batch, chunks[c], d_a);
                CUDA_CHECK(cudaMemcpy(got, d_a, total * sizeof(float), cudaMemcpyDeviceToHost));
                int gen_ok = memcmp(got, lay, total * sizeof(float)) == 0;
                CUDA_CHECK(cudaMemset(d_b, 0xff, total * sizeof(float)));
                CALL_CHECK(chunked_to_rowmajor_device(n, batch, chunks[c], d_a, d_b, cudaStreamLegacy));
                CUDA_CHECK(cudaMemcpy(got, d_b, total * sizeof(float), cudaMemcpyDeviceToHost));
                int back_ok = memcmp(got, host, total * sizeof(float)) == 0;
                CUDA_CHECK(cudaMemset(d_a, 0xff, total * sizeof(float)));
                CALL_CHECK(rowmajor_to_chunked_device(n, batch, chunks[c], d_b, d_a, cudaStreamLegacy));
                CUDA_CHECK(cudaMemcpy(got, d_a, total * sizeof(float), cudaMemcpyDeviceToHost));
                int to_ok = memcmp(got, lay, total * sizeof(float)) == 0;
                poison_strict_upper(n, batch, host, UPPER_MIXED); /* the device's garbage equals the host's */
                rowmajor_to_chunked_host(n, batch, chunks[c], host, lay);
                poison_strict_upper_device(n, batch, chunks[c], d_a, UPPER_MIXED, cudaStreamLegacy);
                CUDA_CHECK(cudaMemcpy(got, d_a, total * sizeof(float), cudaMemcpyDeviceToHost));
                to_ok &= memcmp(got, lay, total * sizeof(float)) == 0;
                char name[96];
                snprintf(name, sizeof name, "device generator + converters + garbage %s n=%d chunk=%zu",
                         family_name((family_t)f), n, chunks[c]);
                harness_check(h, gen_ok && back_ok && to_ok, name,
                              "generated bit-identical %d, to row-major %d, to chunked and garbage above %d", gen_ok,
                              back_ok, to_ok);
            }
            CUDA_CHECK(cudaFree(d_a));
            CUDA_CHECK(cudaFree(d_b));
            free(host);
            free(lay);
            free(got);
        }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cholesky-test-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    harness h;
    harness_begin(&h, "common");
    /* Everything here tests provided code: sanity groups (0 points), see common/points.tsv. */
    /* The CPU groups are planned from their own checks (harness_count runs them once, counting),
     * the GPU group from the sizes it loops over. */
    harness_plan(&h, "file format", harness_count(&h, test_file_format));
    harness_plan(&h, "layouts", harness_count(&h, test_layouts));
    harness_plan(&h, "generator", harness_count(&h, test_generator));
    harness_plan(&h, "checker", harness_count(&h, test_checker));
    harness_plan(&h, "error values", harness_count(&h, test_error_values));
    harness_plan(&h, "device generator and converters", GPU_NS * FAMILY_COUNT * GPU_CHUNKS);
    harness_group(&h, "file format");
    test_file_format(&h);
    harness_group(&h, "layouts");
    test_layouts(&h);
    harness_group(&h, "generator");
    test_generator(&h);
    harness_group(&h, "checker");
    test_checker(&h);
    harness_group(&h, "error values");
    test_error_values(&h);
    harness_group(&h, "device generator and converters");
    test_gpu(&h);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return harness_end(&h);
}
