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
    const char *v = getenv("TEST_VERBOSE");
    h->verbose = v && *v && strcmp(v, "0") != 0;
    const char *path = getenv("TEST_RESULTS");
    if (path && *path) {
        h->record = fopen(path, "a");
        if (!h->record) fprintf(stderr, "%s: cannot append test results to %s\n", suite, path);
    }
}

static void record(harness *h, const char *name, const char *status, const char *detail)
{
    if (!h->record) return;
    fprintf(h->record, "%s\t%s\t%s\t", h->suite, name, status);
    for (const char *p = detail; *p; p++) fputc(*p == '\t' || *p == '\n' ? ' ' : *p, h->record);
    fputc('\n', h->record);
    fflush(h->record);
}

int harness_check(harness *h, int ok, const char *name, const char *fmt, ...)
{
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
        printf("FAIL  %s: %s  %s\n", h->suite, name, detail);
    }
    fflush(stdout);
    record(h, name, ok ? "PASS" : "FAIL", detail);
    return ok;
}

void harness_skip(harness *h, const char *name, const char *reason)
{
    h->skipped++;
    if (strncmp(h->last_skip_reason, reason, sizeof h->last_skip_reason - 1) != 0) {
        printf("SKIP  %s: %s (and every test skipped for the same reason)\n", h->suite, reason);
        snprintf(h->last_skip_reason, sizeof h->last_skip_reason, "%s", reason);
    }
    record(h, name, "SKIP", reason);
}

int harness_end(harness *h)
{
    printf("%s: %d passed, %d failed, %d skipped\n", h->suite, h->passed, h->failed, h->skipped);
    if (h->record) fclose(h->record);
    h->record = NULL;
    return h->failed ? 1 : 0;
}

int gpu_available(char *reason, size_t len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
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
