/* fuzz_readers.c - a fuzz target for the dataset reader (binary and text) and the command-line
 * number parsers, and a small seeded mutation loop to drive it without libFuzzer.
 *
 *   build-san/common/tests/fuzz_readers CORPUS_DIR [SECONDS [SEED]]     (make fuzz)
 *
 * fuzz_one() is LLVMFuzzerTestOneInput: build with clang -fsanitize=fuzzer -DUSE_LIBFUZZER to
 * use libFuzzer instead. The first byte picks the target; the rest is the input:
 *   even: the bytes are a dataset file. dataset_read must either succeed with a sane batch that
 *         survives a binary round trip bit for bit, or fail with a message that starts with the
 *         file's path and says what is wrong; never crash, hang, leak or read out of bounds.
 *   odd:  the bytes are a command-line value for cli_parse_ll/ull/double, family_parse and
 *         dataset_format_parse: a value is accepted only if it is in range.
 * Crashes and leaks are found by ASan/UBSan (make SAN=1); a hang by the alarm below. The input
 * that failed is kept in fuzz-failure.bin for the regression corpus. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include "cli.h"
#include "dataset_io.h"
#include "generator.h"
#include "host_alloc.h"

static char path[256], back[256];

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_readers: FAILED: %s: %s (input kept in fuzz-failure.bin)\n", what, detail);
    abort();
}

static void fuzz_dataset(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) die("cannot write the input file", path);
    for (unsigned flags = 0; flags <= DATASET_ALLOW_NONFINITE; flags++) {
        dataset d;
        char err[DATASET_ERR_LEN] = "";
        int rc = dataset_read_opts(path, &d, flags, err, sizeof err);
        if (rc != 0) {
            size_t k = strlen(path);
            if (rc != -1 || d.data || strncmp(err, path, k) != 0 || strncmp(err + k, ": ", 2) != 0 ||
                strlen(err) < k + 8)
                die("a rejection must name the file and what is wrong", err);
            continue;
        }
        if (d.n < 1 || d.n > DATASET_MAX_N || d.count < 1 || !d.data) die("accepted a batch with a bad shape", "");
        size_t elems = (size_t)d.n * d.n * d.count;
        if (!flags)
            for (size_t e = 0; e < elems; e++)
                if (!isfinite(d.data[e])) die("accepted a non-finite value without DATASET_ALLOW_NONFINITE", "");
        dataset r;
        if (dataset_write(back, &d, DATASET_BINARY, err, sizeof err) != 0 ||
            dataset_read_opts(back, &r, DATASET_ALLOW_NONFINITE, err, sizeof err) != 0)
            die("an accepted batch does not round-trip", err);
        if (r.n != d.n || r.count != d.count || memcmp(r.data, d.data, elems * sizeof(float)) != 0)
            die("the round trip changed the batch", "");
        dataset_free(&r);
        dataset_free(&d);
    }
}

static void fuzz_parsers(const uint8_t *data, size_t size)
{
    char s[128];
    size_t k = size < sizeof s - 1 ? size : sizeof s - 1;
    memcpy(s, data, k);
    s[k] = 0;
    long long lo = -1000 + (long long)(k % 7), hi = 1LL << (k % 50), v;
    if (cli_parse_ll(s, lo, hi, &v) && (v < lo || v > hi)) die("cli_parse_ll accepted a value out of range", s);
    unsigned long long u;
    if (cli_parse_ull(s, &u) && s[0] == '-') die("cli_parse_ull accepted a negative value", s);
    double x;
    if (cli_parse_double(s, 1.0, 1e12, &x) && !(x >= 1.0 && x <= 1e12))
        die("cli_parse_double accepted a value out of range", s);
    family_t fam;
    if (family_parse(s, &fam) == 0 && strcmp(s, family_name(fam)) != 0) die("family_parse accepted another name", s);
    dataset_format fmt;
    (void)dataset_format_parse(s, &fmt);
}

int fuzz_one(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fuzz-readers-%d.in", (int)getpid());
        snprintf(back, sizeof back, "/tmp/fuzz-readers-%d.bin", (int)getpid());
    }
    if (size == 0) return 0;
    if (data[0] % 2 == 0) fuzz_dataset(data + 1, size - 1);
    else fuzz_parsers(data + 1, size - 1);
    return 0;
}

#ifdef USE_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_one(data, size); }
#else
/* ---- the mutation loop ---------------------------------------------------------------------- */

#define MAX_INPUT 4096
#define MAX_CORPUS 256
static uint8_t *corpus[MAX_CORPUS];
static size_t corpus_len[MAX_CORPUS];
static int ncorpus;
static uint8_t input[MAX_INPUT];
static size_t input_len;
static uint64_t rng;

static uint64_t next(void) /* xorshift64*: reproducible from the seed */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

static void keep_input(void)
{
    FILE *f = fopen("fuzz-failure.bin", "wb");
    if (f) {
        fwrite(input, 1, input_len, f);
        fclose(f);
    }
}

static void on_alarm(int sig)
{
    (void)sig;
    keep_input();
    static const char msg[] =
        "fuzz_readers: FAILED: an input took longer than 10 s (a hang; kept in fuzz-failure.bin)\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(3);
}

static void on_abort(int sig)
{
    (void)sig;
    keep_input();
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
}

static void mutate(void)
{
    static const uint8_t interesting[] = {0,   0xff, '\n', ' ', '#', '-',  '+',  '.', 'e',
                                          'n', 'a',  '0',  '1', '9', 0xef, 0x7f, 0x80};
    static const uint64_t big[] = {0, 1, 2, 0xffffffffULL, 1ULL << 32, 1ULL << 40, 1ULL << 62, ~0ULL, 65536, 65537};
    int rounds = 1 + (int)(next() % 4);
    for (int r = 0; r < rounds; r++) {
        size_t at = input_len ? next() % input_len : 0;
        switch (next() % 8) {
        case 0:
            if (input_len) input[at] ^= (uint8_t)(1u << (next() % 8));
            break;
        case 1:
            if (input_len) input[at] = interesting[next() % sizeof interesting];
            break;
        case 2:
            if (input_len < MAX_INPUT) {
                memmove(input + at + 1, input + at, input_len - at);
                input[at] = (uint8_t)next();
                input_len++;
            }
            break;
        case 3:
            if (input_len > 1) {
                memmove(input + at, input + at + 1, input_len - at - 1);
                input_len--;
            }
            break;
        case 4:
            if (input_len > 1) input_len = 1 + next() % input_len;
            break; /* truncate */
        case 5: {  /* a header field of the binary format (offsets 9.. after the selector byte) */
            size_t off = 1 + 8 + 8 * (next() % 3);
            uint64_t v = big[next() % (sizeof big / sizeof big[0])];
            if (off + 8 <= input_len) memcpy(input + off, &v, 8);
            break;
        }
        case 6: { /* duplicate a piece */
            size_t len = 1 + next() % 16;
            if (input_len && at + len <= input_len && input_len + len <= MAX_INPUT) {
                memmove(input + at + len, input + at, input_len - at);
                input_len += len;
            }
            break;
        }
        default: { /* splice in a piece of another corpus entry */
            int o = (int)(next() % ncorpus);
            size_t len = corpus_len[o] ? next() % corpus_len[o] : 0;
            if (at + len > MAX_INPUT) len = MAX_INPUT - at;
            memcpy(input + at, corpus[o], len);
            if (at + len > input_len) input_len = at + len;
        }
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf("usage: fuzz_readers CORPUS_DIR [SECONDS [SEED]]   mutate the corpus for SECONDS (default 30)\n");
        return argc < 2 || argc > 4 ? 2 : 0;
    }
    long long seconds = 30, seed = 1;
    if ((argc > 2 && !cli_parse_ll(argv[2], 0, 86400, &seconds)) ||
        (argc > 3 && !cli_parse_ll(argv[3], 0, 1LL << 62, &seed))) {
        fprintf(stderr, "fuzz_readers: bad SECONDS or SEED\n");
        return 2;
    }
    rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        fprintf(stderr, "fuzz_readers: cannot open the corpus %s\n", argv[1]);
        return 2;
    }
    struct dirent *e;
    while ((e = readdir(dir)) && ncorpus < MAX_CORPUS) {
        if (e->d_name[0] == '.') continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", argv[1], e->d_name);
        FILE *f = fopen(p, "rb");
        if (!f) continue;
        uint8_t *buf = host_alloc(MAX_INPUT, "a corpus entry");
        size_t len = fread(buf, 1, MAX_INPUT, f);
        fclose(f);
        corpus[ncorpus] = buf;
        corpus_len[ncorpus++] = len;
    }
    closedir(dir);
    if (!ncorpus) {
        fprintf(stderr, "fuzz_readers: the corpus %s is empty\n", argv[1]);
        return 2;
    }
    signal(SIGALRM, on_alarm);
    signal(SIGABRT, on_abort);
    /* Every corpus entry once as it is (the regression cases), then mutations until time is up. */
    long long runs = 0;
    for (int k = 0; k < ncorpus; k++) {
        memcpy(input, corpus[k], corpus_len[k]);
        input_len = corpus_len[k];
        alarm(10);
        fuzz_one(input, input_len);
        runs++;
    }
    time_t end = time(NULL) + seconds;
    while (time(NULL) < end) {
        for (int k = 0; k < 100; k++) {
            int c = (int)(next() % ncorpus);
            memcpy(input, corpus[c], corpus_len[c]);
            input_len = corpus_len[c];
            mutate();
            alarm(10);
            fuzz_one(input, input_len);
            runs++;
        }
    }
    alarm(0);
    printf("fuzz_readers: %lld inputs (%d corpus entries, seed %lld, %lld s): no crash, hang, leak or bad message\n",
           runs, ncorpus, seed, seconds);
    unlink(path);
    unlink(back);
    for (int k = 0; k < ncorpus; k++) free(corpus[k]);
    return 0;
}
#endif
