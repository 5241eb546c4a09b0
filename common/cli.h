/* cli.h - strict parsing of command-line numbers: the whole string must be a number in range.
 * Each returns 1 on success, 0 otherwise (callers then print their usage and exit 2). */
#ifndef CLI_H
#define CLI_H

#include <errno.h>
#include <stdlib.h>

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

#endif
