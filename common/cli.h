/* cli.h - the course's command lines: getopt_long with one set of messages (cli_getopt,
 * cli_bad_value), and strict parsing of numbers: the whole string must be a number in range.
 * Each cli_parse_* returns 1 on success, 0 otherwise (callers then call cli_bad_value).
 *
 * The conventions every program follows: --opt value and --opt=value; -h and --help print the
 * usage on stdout and exit 0; an unknown option, a missing value or a bad value prints ONE line on
 * stderr saying what was wrong and what is allowed, and exits 2. */
#ifndef CLI_H
#define CLI_H

#include <errno.h>
#include <getopt.h>
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

/* getopt_long for a program named prog: returns the next option's val (the caller's switch), or -1
 * after the last option (positional arguments are then argv[optind..argc-1]). -h/--help print
 * usage and exit 0; an unknown (or ambiguous: GNU accepts unique prefixes) option or a missing
 * value exits 2 with one line. longs must not use the vals 'h', '?' and ':'. */
static inline int cli_getopt(int argc, char **argv, const struct option *longs, const char *prog, const char *usage)
{
    opterr = 0; /* the messages are ours */
    int c = getopt_long(argc, argv, ":h", longs, NULL);
    if (c == 'h') {
        fputs(usage, stdout);
        exit(0);
    }
    if (c == ':') {
        fprintf(stderr, "%s: %s needs a value (%s --help shows the options)\n", prog, argv[optind - 1], prog);
        exit(2);
    }
    if (c == '?') {
        fprintf(stderr, "%s: unknown option '%s' (%s --help shows the options)\n", prog, argv[optind - 1], prog);
        exit(2);
    }
    return c;
}

/* One line for a value out of range or not understood, then exit 2: "prog: bad value for --n:
 * '0' (an integer 1..1024)". */
static inline void cli_bad_value(const char *prog, const char *opt, const char *value, const char *allowed)
{
    fprintf(stderr, "%s: bad value for %s: '%s' (%s)\n", prog, opt, value, allowed);
    exit(2);
}

/* For programs without options: -h/--help print the usage and exit 0, any other option is
 * refused (exit 2); returns how many positional arguments there are (argv[optind..argc-1]). */
static inline int cli_help_only(int argc, char **argv, const char *usage)
{
    static const struct option none[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    cli_getopt(argc, argv, none, prog, usage); /* returns only at the end: there is no option */
    return argc - optind;
}

/* For programs whose only input is the environment (the benchmarks): --help / -h prints the
 * usage and exits 0; any other argument is refused with exit 2. */
static inline void cli_no_arguments(int argc, char **argv, const char *usage)
{
    if (cli_help_only(argc, argv, usage) > 0) {
        const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        fprintf(stderr, "%s: unexpected argument '%s' (the settings are environment variables; %s --help lists them)\n",
                prog, argv[optind], prog);
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
        fprintf(stderr, "bad value for the environment variable %s: '%s' (must be an integer %lld..%lld)\n", name, s,
                lo, hi);
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
    for (const char *p = s; *p;) { /* tokens separated by spaces or commas */
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        char tok[32];
        size_t len = strcspn(p, " ,");
        long long v;
        int fits = len < sizeof tok;
        if (fits) {
            memcpy(tok, p, len);
            tok[len] = 0;
        }
        if (count == max || !fits || !cli_parse_ll(tok, lo, hi, &v)) {
            fprintf(stderr, "bad value for the environment variable %s: '%s' (at most %d integers, each %lld..%lld)\n",
                    name, s, max, lo, hi);
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
