/* harness.c - see harness.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "harness.h"

void harness_begin(harness *h, const char *suite)
{
    memset(h, 0, sizeof *h);
    h->suite = suite;
    h->current = -1;
    const char *v = getenv("TEST_VERBOSE");
    h->verbose = v && *v && strcmp(v, "0") != 0;
    const char *path = getenv("TEST_RESULTS");
    if (path && *path) {
        h->record = fopen(path, "a");
        if (!h->record) fprintf(stderr, "%s: cannot append test results to %s\n", suite, path);
    }
}

static void record_clean(FILE *f, const char *s)
{
    for (const char *p = s; *p; p++) fputc(*p == '\t' || *p == '\n' ? ' ' : *p, f);
}

static int find_group(const harness *h, const char *group)
{
    for (int g = 0; g < h->ngroups; g++)
        if (strcmp(h->group_name[g], group) == 0) return g;
    return -1;
}

/* A harness used wrongly is a bug in the test program: say so loudly and stop (the runner then
 * fails every planned test). */
static void misuse(const harness *h, const char *what, const char *group)
{
    fprintf(stderr, "%s: harness misuse: %s '%s'\n", h->suite, what, group);
    exit(3);
}

static void plan(harness *h, const char *group, int count, const char *needs);

void harness_plan(harness *h, const char *group, int count) { plan(h, group, count, NULL); }

void harness_plan_gpu(harness *h, const char *group, int count) { plan(h, group, count, "gpu"); }

static void plan(harness *h, const char *group, int count, const char *needs)
{
    if (find_group(h, group) >= 0) misuse(h, "group planned twice:", group);
    if (h->ngroups == HARNESS_MAX_GROUPS) misuse(h, "too many groups at", group);
    if (h->passed + h->failed + h->skipped) misuse(h, "plan after the first test, for", group);
    int g = h->ngroups++;
    h->group_name[g] = group;
    h->planned[g] = count;
    if (h->record) {
        fprintf(h->record, "PLAN\t");
        record_clean(h->record, group);
        fprintf(h->record, "\t%d%s%s\n", count, needs ? "\t" : "", needs ? needs : "");
        fflush(h->record);
    }
}

void harness_group(harness *h, const char *group)
{
    if (h->counting) return;
    h->current = find_group(h, group);
    if (h->current < 0) misuse(h, "tests in a group that was never planned:", group);
}

void harness_start(harness *h, const char *fmt, ...)
{
    if (h->counting || !h->record) return;
    if (h->current < 0) misuse(h, "harness_start before harness_group(), for", fmt);
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    fprintf(h->record, "START\t");
    record_clean(h->record, h->group_name[h->current]);
    fputc('\t', h->record);
    record_clean(h->record, name);
    fputc('\n', h->record);
    fflush(h->record);
}

static void record(harness *h, const char *name, const char *status, const char *detail)
{
    if (h->current < 0) misuse(h, "a test before harness_group(), named", name);
    h->reported[h->current]++;
    if (!h->record) return;
    fprintf(h->record, "TEST\t");
    record_clean(h->record, h->group_name[h->current]);
    fputc('\t', h->record);
    record_clean(h->record, name);
    fprintf(h->record, "\t%s\t", status);
    record_clean(h->record, detail);
    fputc('\n', h->record);
    fflush(h->record);
}

int harness_check(harness *h, int ok, const char *name, const char *fmt, ...)
{
    if (h->counting) {
        h->counted++;
        return ok;
    }
    char detail[512] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
    }
    if (ok) {
        h->passed++;
        if (h->verbose) printf("PASS  %s: %s  %s\n", h->suite, name, detail);
    } else {
        h->failed++;
        if (h->current >= 0) h->failures[h->current]++;
        printf("FAIL  %s: %s  %s\n", h->suite, name, detail);
    }
    fflush(stdout);
    record(h, name, ok ? "PASS" : "FAIL", detail);
    return ok;
}

void harness_skip(harness *h, const char *name, const char *reason)
{
    if (h->counting) {
        h->counted++;
        return;
    }
    h->skipped++;
    if (strncmp(h->last_skip_reason, reason, sizeof h->last_skip_reason - 1) != 0) {
        printf("SKIP  %s: %s (shown once: the later tests skipped for this reason are counted, not listed)\n", h->suite,
               reason);
        snprintf(h->last_skip_reason, sizeof h->last_skip_reason, "%s", reason);
    }
    fflush(stdout);
    record(h, name, "SKIP", reason);
}

void harness_skip_rest(harness *h, const char *group, const char *reason)
{
    if (h->counting) misuse(h, "harness_skip_rest while counting, for", group);
    harness_group(h, group);
    char name[160];
    while (h->reported[h->current] < h->planned[h->current]) {
        snprintf(name, sizeof name, "%s #%d", group, h->reported[h->current] + 1);
        harness_skip(h, name, reason);
    }
}

int harness_failures(const harness *h, const char *group)
{
    const int g = find_group(h, group);
    return g < 0 ? 0 : h->failures[g];
}

int harness_requires(harness *h, const char *group, int ok, const char *what)
{
    if (h->counting || ok) return 1;
    char reason[256];
    snprintf(reason, sizeof reason, "needs %s to pass first (this sanity group runs your code too)", what);
    harness_skip_rest(h, group, reason);
    return 0;
}

int harness_needs(harness *h, const char *group, const char *graded)
{
    char what[160];
    snprintf(what, sizeof what, "'%s'", graded);
    return harness_requires(h, group, harness_failures(h, graded) == 0, what);
}

int harness_count(harness *h, void (*tests)(harness *))
{
    if (h->counting) misuse(h, "harness_count inside harness_count", "");
    h->counting = 1;
    h->counted = 0;
    tests(h);
    h->counting = 0;
    return h->counted;
}

int harness_end(harness *h)
{
    int plans_met = 1;
    for (int g = 0; g < h->ngroups; g++)
        if (h->reported[g] != h->planned[g]) {
            printf("FAIL  %s: group '%s' planned %d tests but reported %d\n", h->suite, h->group_name[g], h->planned[g],
                   h->reported[g]);
            plans_met = 0;
        }
    printf("%s: %d passed, %d failed, %d skipped\n", h->suite, h->passed, h->failed, h->skipped);
    fflush(stdout);
    if (h->record) {
        fprintf(h->record, "END\t%s\n", h->suite);
        fclose(h->record);
    }
    h->record = NULL;
    return h->failed || !plans_met ? 1 : 0;
}

unsigned long long harness_seed(unsigned long long base)
{
    const char *s = getenv("GRADE_SEED");
    if (!s || !*s) return base;
    unsigned long long x = base ^ (strtoull(s, NULL, 0) * 0x9E3779B97F4A7C15ULL); /* splitmix-style mixing */
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ULL;
    return (x ^ (x >> 29)) & 0x7fffffffULL;
}

int harness_extra(void)
{
    const char *s = getenv("GRADE_EXTRA");
    return s && *s && strcmp(s, "0") != 0;
}

int gpu_available(char *reason, size_t len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver) {
        /* The runtime found no driver it can use: none installed, or one older than the runtime. */
        FILE *f = fopen("/proc/driver/nvidia/version", "r");
        if (f) fclose(f);
        if (f) snprintf(reason, len, "NVIDIA driver older than the CUDA runtime (%s)", cudaGetErrorString(e));
        else snprintf(reason, len, "no NVIDIA driver");
        cudaGetLastError();
        return 0;
    }
    if (e != cudaSuccess) {
        snprintf(reason, len, "no CUDA device (%s)", cudaGetErrorString(e));
        cudaGetLastError(); /* clear the sticky error so later calls are not confused */
        return 0;
    }
    if (count == 0) {
        snprintf(reason, len, "no CUDA device");
        return 0;
    }
    reason[0] = 0;
    return 1;
}
