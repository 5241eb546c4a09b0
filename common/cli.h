/* cli.h - strict parsing of command-line numbers: the whole string must be a number in range.
 * Each returns 1 on success, 0 otherwise (callers then print their usage and exit 2). */
#ifndef CLI_H
#define CLI_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int cli_parse_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static inline int cli_parse_ull(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-') return 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno) return 0;
    *out = v;
    return 1;
}

static inline int cli_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= lo && v <= hi)) return 0;
    *out = v;
    return 1;
}

/* For programs whose only input is the environment (the benchmarks): --help / -h prints the
 * usage and exits 0; any other argument is refused with exit 2. */
static inline void cli_no_arguments(int argc, char **argv, const char *usage)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        exit(0);
    }
    if (argc > 1) {
        fprintf(stderr, "%s: unexpected argument '%s'\n%s", argv[0], argv[1], usage);
        exit(2);
    }
}

/* An integer from the environment variable name, lo..hi, or def when it is unset or empty; a bad
 * value stops the program with exit 2 and a message naming the variable. */
static inline long long cli_env_ll(const char *name, long long lo, long long hi, long long def)
{
    const char *s = getenv(name);
    long long v;
    if (!s || !*s) return def;
    if (!cli_parse_ll(s, lo, hi, &v)) {
        fprintf(stderr, "bad value for the environment variable %s: '%s' (must be an integer %lld..%lld)\n", name, s, lo, hi);
        exit(2);
    }
    return v;
}

/* A list of integers lo..hi from the environment variable name ("20 60 100" or "20,60,100"),
 * at most max of them, into out; returns how many (0 when it is unset or empty). A bad value
 * stops the program with exit 2 and a message naming the variable. */
static inline int cli_env_ints(const char *name, long long lo, long long hi, int *out, int max)
{
    const char *s = getenv(name);
    int count = 0;
    if (!s || !*s) return 0;
    for (const char *p = s; *p;) {                  /* tokens separated by spaces or commas */
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        char tok[32];
        size_t len = strcspn(p, " ,");
        long long v;
        int fits = len < sizeof tok;
        if (fits) { memcpy(tok, p, len); tok[len] = 0; }
        if (count == max || !fits || !cli_parse_ll(tok, lo, hi, &v)) {
            fprintf(stderr, "bad value for the environment variable %s: '%s' (at most %d integers, each %lld..%lld)\n", name, s,
                    max, lo, hi);
            exit(2);
        }
        out[count++] = (int)v;
        p += len;
    }
    return count;
}

/* The machine's physical memory in bytes (0 if unknown): bounds what a program may ask for. */
static inline unsigned long long cli_host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size : 0;
}

#endif
