/* report.c - see report.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include "checks.h"
#include "harness.h"
#include "report.h"

static const char *csv_path(void)
{
    const char *path = getenv("BENCH_CSV");
    return path && *path ? path : "build/bench.csv";
}

/* A benchmark whose rows cannot be written stops before it times anything, whatever its results
 * (a wrong kernel writes no row, and must not hide an unwritable file). */
static void csv_writable_or_exit(void)
{
    const char *path = csv_path();
    int existed = access(path, F_OK) == 0;
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "cannot append to %s (BENCH_CSV): %s; stopping\n", path, strerror(errno));
        exit(2);
    }
    long at = ftell(f);
    fclose(f);
    if (!existed && at == 0) remove(path); /* leave no empty file behind */
}

void env_stamp_read(env_stamp *e)
{
    csv_writable_or_exit();
    memset(e, 0, sizeof *e);
    snprintf(e->gpu, sizeof e->gpu, "none");
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
        struct cudaDeviceProp p;
        int dev = 0;
        if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&p, dev) == cudaSuccess) {
            snprintf(e->gpu, sizeof e->gpu, "%s", p.name);
            e->cc_major = p.major;
            e->cc_minor = p.minor;
            e->sms = p.multiProcessorCount;
            e->l2_bytes = (size_t)p.l2CacheSize;
            e->mem_bytes = p.totalGlobalMem;
        }
    }
    cudaGetLastError();
    cudaDriverGetVersion(&e->driver);
    cudaRuntimeGetVersion(&e->runtime);
    const char *c = getenv("GIT_COMMIT");
    snprintf(e->commit, sizeof e->commit, "%s", c && *c ? c : "unknown");
    if (gethostname(e->host, sizeof e->host) != 0) snprintf(e->host, sizeof e->host, "unknown");
}

void env_stamp_print(const env_stamp *e)
{
    printf("# GPU %s (cc %d.%d, %d SMs, L2 %zu MB), driver API %d, CUDA runtime %d, commit %s\n", e->gpu, e->cc_major,
           e->cc_minor, e->sms, e->l2_bytes >> 20, e->driver, e->runtime, e->commit);
}

int bench_begin_gpu(const char *stage, env_stamp *e)
{
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        printf("SKIP %s bench: %s\n", stage, reason);
        /* Also beside BENCH_CSV, for the table's closing summary (bench_table.py). */
        const char *csv = getenv("BENCH_CSV");
        char path[1024];
        if (csv && *csv && snprintf(path, sizeof path, "%s.skipped", csv) < (int)sizeof path) {
            FILE *f = fopen(path, "a");
            if (f) {
                fprintf(f, "%s\t%s\n", stage, reason);
                fclose(f);
            }
        }
        return 0;
    }
    env_stamp_read(e);
    env_stamp_print(e);
    return 1;
}

void report_row(const env_stamp *e, const char *stage, const char *variant, int n, size_t batch, timing_stats t,
                double t_cusolver_ms, double t_copy_ms)
{
    if (t.verified == TIMING_WRONG) {
        printf("%-8s %-28s n=%-4d batch=%-9zu NOT VERIFIED: its result was wrong, so no row is written\n", stage,
               variant, n, batch);
        fflush(stdout);
        return;
    }
    double gflops = potrf_flops(n) * (double)batch / (t.median_ms * 1e6);
    char xcus[32] = "-", roof[32] = "-";
    if (t_cusolver_ms > 0) snprintf(xcus, sizeof xcus, "%.2f", t_cusolver_ms / t.median_ms);
    if (t_copy_ms > 0) snprintf(roof, sizeof roof, "%.1f", 100.0 * t_copy_ms / t.median_ms);
    printf("%-8s %-28s n=%-4d batch=%-9zu %10.4f ms (min %.4f) %9.1f GFLOP/s  x cuSOLVER %-6s  %% copy roofline %s\n",
           stage, variant, n, batch, t.median_ms, t.min_ms, gflops, xcus, roof);
    fflush(stdout);

    const char *path = csv_path();
    FILE *f = fopen(path, "a");
    if (!f) { /* a benchmark whose rows are lost must not look like a success */
        fprintf(stderr, "cannot append to %s (BENCH_CSV): %s; stopping\n", path, strerror(errno));
        exit(2);
    }
    if (ftell(f) == 0)
        fprintf(f, "stage,variant,n,batch,median_ms,min_ms,repeats,gflops,x_cusolver,pct_copy_roofline,"
                   "cusolver_ms,copy_ms,verified,gpu,cc,sms,driver,cuda_runtime,host,commit,utc\n");
    char utc[32];
    time_t now = time(NULL);
    strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "%s,\"%s\",%d,%zu,%.5f,%.5f,%d,%.2f,%s,%s,%.5f,%.5f,%s,\"%s\",%d.%d,%d,%d,%d,%s,%s,%s\n", stage, variant,
            n, batch, t.median_ms, t.min_ms, t.repeats, gflops, t_cusolver_ms > 0 ? xcus : "",
            t_copy_ms > 0 ? roof : "", t_cusolver_ms, t_copy_ms, t.verified == TIMING_VERIFIED ? "yes" : "reference",
            e->gpu, e->cc_major, e->cc_minor, e->sms, e->driver, e->runtime, e->host, e->commit, utc);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "write error on %s (BENCH_CSV): %s; stopping\n", path, strerror(errno));
        exit(2);
    }
}
