/* sliced_run.c - see sliced_run.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "gpu_batch.h"
#include "host_alloc.h"
#include "sliced_run.h"

typedef struct {
    float *d_rm, *d_lay;
    int *d_info;
} buffer_set;

typedef struct { /* when each stage of one slice started and ended */
    cudaEvent_t in0, in1, c0, c1, out0, out1;
} slice_events;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static float between(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

size_t sliced_bytes_per_matrix(int n, int staging, size_t chunk)
{
    return (size_t)n * n * sizeof(float) * (staging && chunk != 1 ? 2 : 1) + sizeof(int);
}

static void free_sets(buffer_set *s, int count)
{
    for (int k = 0; k < count; k++) {
        if (s[k].d_rm) CUDA_CHECK(cudaFree(s[k].d_rm));
        if (s[k].d_lay && s[k].d_lay != s[k].d_rm) CUDA_CHECK(cudaFree(s[k].d_lay));
        if (s[k].d_info) CUDA_CHECK(cudaFree(s[k].d_info));
        s[k].d_rm = s[k].d_lay = NULL;
        s[k].d_info = NULL;
    }
}

/* cudaMalloc that reports running out of memory instead of stopping the program. */
static int try_alloc(void **p, size_t bytes)
{
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* clear it: out of memory is not sticky */
        *p = NULL;
        return 0;
    }
    CUDA_CHECK(e);
    return 1;
}

/* in_place: the layout is row-major, so the staging buffer is the layout buffer too. */
static int alloc_sets(buffer_set *s, int count, int n, size_t slice, int staging, int in_place)
{
    size_t bytes = slice * (size_t)n * n * sizeof(float);
    for (int k = 0; k < count; k++) {
        s[k].d_rm = s[k].d_lay = NULL;
        s[k].d_info = NULL;
        if (!try_alloc((void **)&s[k].d_lay, bytes) || !try_alloc((void **)&s[k].d_info, slice * sizeof(int)) ||
            (staging && !in_place && !try_alloc((void **)&s[k].d_rm, bytes))) {
            free_sets(s, k + 1);
            return 0;
        }
        if (in_place) s[k].d_rm = s[k].d_lay;
    }
    return 1;
}

/* Best of three copies of `bytes` between the pinned host buffer and the device. */
static double copy_gbs(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s)
{
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    float best = 1e30f;
    for (int r = 0; r < 3; r++) {
        CUDA_CHECK(cudaEventRecord(a, s));
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
        CUDA_CHECK(cudaEventRecord(b, s));
        CUDA_CHECK(cudaEventSynchronize(b));
        float ms = between(a, b);
        if (ms < best) best = ms;
    }
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return bytes / (best * 1e6);
}

/* Each worker's link, measured on its GPU before any slice moves (its copies in and out of the first
 * slice's bytes, best of three each). The copy out writes the host's first bytes back onto
 * themselves, so it must not run while another worker factors them: done for every worker, one
 * after the other, before any of them starts (when it ran at the start of each worker, a second
 * worker's probe could land on the first worker's factors of slice 0 and put the input back there;
 * that also counted the probes in the end-to-end time). */
static void probe_link(const sliced_job *job, size_t slice, buffer_set *set, sliced_worker_report *r)
{
    const size_t nn = (size_t)job->n * job->n, limit = (size_t)256 << 20;
    const size_t probe = slice * nn * sizeof(float) < limit ? slice * nn * sizeof(float) : limit;
    cudaStream_t s;
    CUDA_CHECK(cudaSetDevice(r->device));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    r->h2d_gbs = copy_gbs(set[0].d_rm, job->host, probe, cudaMemcpyHostToDevice, s);
    r->d2h_gbs = copy_gbs(job->host, set[0].d_rm, probe, cudaMemcpyDeviceToHost, s);
    CUDA_CHECK(cudaStreamDestroy(s));
}

/* One worker: the slices w, w + W, w + 2W, ... of the batch on its GPU, with its own streams and
 * its two buffer sets; copies of one slice overlap the factorization of the other. */
static int run_worker(const sliced_job *job, int w, int workers, size_t slice, int sets, buffer_set *set, void *d_work,
                      sliced_worker_report *r)
{
    const int n = job->n, staging = job->host != NULL, in_place = staging && job->chunk == 1;
    const size_t nn = (size_t)n * n, slices = (job->batch + slice - 1) / slice;
    layout_converter to_layout = job->to_layout ? job->to_layout : rowmajor_to_chunked_device;
    layout_converter from_layout = job->from_layout ? job->from_layout : chunked_to_rowmajor_device;
    CUDA_CHECK(cudaSetDevice(r->device));
    const sliced_factorizer *f = &job->factorizer;
    cudaStream_t in, out, compute;
    CUDA_CHECK(cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&out, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    const size_t mine = slices > (size_t)w ? (slices - w + workers - 1) / workers : 0;
    slice_events *ev = host_alloc_array(mine + 1, sizeof *ev, "slice events");
    int status = 0;
    double t0 = now_ms();
    for (size_t k = 0; k < mine && !status; k++) {
        const size_t s = (size_t)w + k * workers;
        const size_t first = s * slice, count = job->batch - first < slice ? job->batch - first : slice;
        const size_t lay_chunk = job->chunk ? job->chunk : count;
        buffer_set *b = &set[k % sets];
        slice_events *e = &ev[k];
        cudaEvent_t *evs[] = {&e->in0, &e->in1, &e->c0, &e->c1, &e->out0, &e->out1};
        for (int q = 0; q < 6; q++) CUDA_CHECK(cudaEventCreate(evs[q]));
        float *h = job->host ? job->host + first * nn : NULL;

        /* Buffer set b was last used by this worker's slice k - sets: its copy out must be done. */
        if (k >= (size_t)sets) CUDA_CHECK(cudaStreamWaitEvent(in, ev[k - sets].out1, 0));
        CUDA_CHECK(cudaEventRecord(e->in0, in));
        if (!job->gen) CUDA_CHECK(cudaMemcpyAsync(b->d_rm, h, count * nn * sizeof(float), cudaMemcpyHostToDevice, in));
        CUDA_CHECK(cudaEventRecord(e->in1, in));

        CUDA_CHECK(cudaStreamWaitEvent(compute, e->in1, 0));
        CUDA_CHECK(cudaEventRecord(e->c0, compute));
        if (job->gen) gen_batch_device_on(job->gen, n, first, count, lay_chunk, b->d_lay, compute);
        else if (!in_place) CALL_CHECK(to_layout(n, count, lay_chunk, b->d_rm, b->d_lay, compute));
        if (f->factor(f->self, w, first, count, lay_chunk, b->d_lay, b->d_lay, b->d_info, d_work, compute) != 0)
            status = -1;
        if (staging && !in_place) CALL_CHECK(from_layout(n, count, lay_chunk, b->d_lay, b->d_rm, compute));
        CUDA_CHECK(cudaEventRecord(e->c1, compute));

        CUDA_CHECK(cudaStreamWaitEvent(out, e->c1, 0));
        CUDA_CHECK(cudaEventRecord(e->out0, out));
        CUDA_CHECK(cudaMemcpyAsync(job->info + first, b->d_info, count * sizeof(int), cudaMemcpyDeviceToHost, out));
        if (staging) CUDA_CHECK(cudaMemcpyAsync(h, b->d_rm, count * nn * sizeof(float), cudaMemcpyDeviceToHost, out));
        for (size_t q = 0; q < job->nsamples; q++) { /* sampled matrices that live in this slice */
            size_t g = job->sample_index[q];
            if (g >= first && g < first + count)
                copy_matrix_from_layout(n, count, lay_chunk, b->d_lay, g - first, job->sample_out + q * nn, out);
        }
        CUDA_CHECK(cudaEventRecord(e->out1, out));
        r->slices++;
        r->matrices += count;
    }
    CUDA_CHECK(cudaStreamSynchronize(out));
    CUDA_CHECK(cudaStreamSynchronize(compute));
    r->wall_ms = now_ms() - t0;
    for (size_t k = 0; k < r->slices; k++) {
        r->h2d_ms += between(ev[k].in0, ev[k].in1);
        r->compute_ms += between(ev[k].c0, ev[k].c1);
        r->d2h_ms += between(ev[k].out0, ev[k].out1);
        cudaEvent_t evs[] = {ev[k].in0, ev[k].in1, ev[k].c0, ev[k].c1, ev[k].out0, ev[k].out1};
        for (int q = 0; q < 6; q++) CUDA_CHECK(cudaEventDestroy(evs[q]));
    }
    free(ev);
    CUDA_CHECK(cudaStreamDestroy(in));
    CUDA_CHECK(cudaStreamDestroy(out));
    CUDA_CHECK(cudaStreamDestroy(compute));
    return status;
}

int sliced_run(const sliced_job *job, sliced_report *rep)
{
    const int n = job->n, staging = job->host != NULL, in_place = staging && job->chunk == 1;
    const size_t nn = (size_t)n * n, per = sliced_bytes_per_matrix(n, staging, job->chunk);
    *rep = (sliced_report){0};
    int current;
    CUDA_CHECK(cudaGetDevice(&current));
    const int workers = job->workers > 0 ? (job->workers < SLICED_MAX_WORKERS ? job->workers : SLICED_MAX_WORKERS) : 1;
    rep->workers = workers;
    for (int w = 0; w < workers; w++) rep->worker[w].device = job->workers > 0 ? job->devices[w] : current;

    /* The slice: at most half the budget per buffer set. Data from the host go in at least eight
     * slices per GPU (of 64 MiB or more), so that copies in, the kernels and copies out overlap
     * (one slice would copy in, factor and copy out one after the other: measured 45 GB/s end to
     * end on the H100's link against 59 GB/s in slices); several GPUs take four slices each at
     * least, round-robin, so that every GPU has work. A small batch is one slice. */
    const size_t want = staging ? 8 * (size_t)workers : workers > 1 ? 4 * (size_t)workers : 1;
    const size_t min_slice = ((size_t)64 << 20) / (nn * sizeof(float)) + 1;
    size_t share = (job->batch + want - 1) / want;
    if (share < min_slice) share = min_slice;
    int sets = 1;
    size_t slice = job->batch;
    if (job->batch > job->gpu_budget / per || share < job->batch) {
        sets = 2;
        slice = job->gpu_budget / (2 * per);
        if (share < slice) slice = share;
        if (job->chunk && slice >= job->chunk) slice -= slice % job->chunk; /* whole chunks per slice */
    }
    /* The factorizer's workspace (one per worker: a worker factors one slice at a time) comes out
     * of the same budget: fewer matrices a slice until both fit. */
    const sliced_factorizer *f = &job->factorizer;
    size_t (*workspace)(void *, size_t) = f->workspace_bytes;
    while (slice > 1 && workspace && sets * slice * per + workspace(f->self, slice) > job->gpu_budget) {
        sets = 2;
        slice /= 2;
        if (job->chunk && slice >= job->chunk) slice -= slice % job->chunk;
    }
    const size_t work_bytes = workspace ? workspace(f->self, slice) : 0;
    if (slice == 0 || sets * slice * per + work_bytes > job->gpu_budget) {
        fprintf(stderr,
                "a GPU budget of %zu bytes cannot hold one slice: two matrices of order %d need %zu bytes, and the "
                "kernel's workspace %zu more\n",
                job->gpu_budget, n, 2 * per, work_bytes);
        return -1;
    }
    /* Another process may have taken memory since it was measured: halve the slice until every
     * worker's buffers fit. */
    buffer_set set[SLICED_MAX_WORKERS][2];
    void *work[SLICED_MAX_WORKERS] = {0};
    for (;;) {
        int ok = 1, w = 0;
        const size_t wb = workspace ? workspace(f->self, slice) : 0;
        for (; w < workers && ok; w++) {
            CUDA_CHECK(cudaSetDevice(rep->worker[w].device));
            ok = alloc_sets(set[w], sets, n, slice, staging, in_place);
            if (ok && wb && !try_alloc(&work[w], wb)) {
                free_sets(set[w], sets);
                ok = 0;
            }
        }
        if (ok) break;
        for (int v = 0; v < w - 1; v++) {
            CUDA_CHECK(cudaSetDevice(rep->worker[v].device));
            free_sets(set[v], sets);
            if (work[v]) CUDA_CHECK(cudaFree(work[v]));
            work[v] = NULL;
        }
        size_t smaller = slice / 2;
        if (smaller == 0) {
            fprintf(
                stderr,
                "out of GPU memory on GPU %d: even a slice of one matrix of order %d (%zu bytes) cannot be allocated\n",
                rep->worker[w - 1].device, n, per);
            CUDA_CHECK(cudaSetDevice(current));
            return -1;
        }
        fprintf(stderr,
                "note: %d x %zu bytes of GPU memory could not be allocated on GPU %d (another process?); slices of %zu "
                "matrices\n",
                sets, slice * per, rep->worker[w - 1].device, smaller);
        slice = smaller;
        sets = 2;
    }
    rep->slice = slice;
    rep->slices = (job->batch + slice - 1) / slice;

    const size_t bytes = job->batch * nn * sizeof(float);
    if (job->host) {
        double t0 = now_ms();
        /* Portable: pinned for every GPU's context, not only the current one's. */
        cudaError_t e = cudaHostRegister(job->host, bytes, cudaHostRegisterPortable);
        rep->pin_ms = now_ms() - t0;
        rep->pinned = e == cudaSuccess;
        if (!rep->pinned) {
            cudaGetLastError();
            fprintf(stderr, "note: the host buffer could not be pinned (%s): copies will not overlap\n",
                    cudaGetErrorString(e));
        }
    }

    if (rep->pinned)
        for (int w = 0; w < workers; w++) probe_link(job, slice, set[w], &rep->worker[w]);

    /* One host thread per worker: each drives its GPU's streams (its own copy engines and link). */
    int status = 0;
    double t0 = now_ms();
    _Pragma("omp parallel for num_threads(workers) schedule(static, 1) reduction(min : status)")
    for (int w = 0; w < workers; w++) {
        const int rc = run_worker(job, w, workers, slice, sets, set[w], work[w], &rep->worker[w]);
        if (rc < status) status = rc;
    }
    rep->wall_ms = now_ms() - t0;
    for (int w = 0; w < workers; w++) {
        const sliced_worker_report *r = &rep->worker[w];
        rep->h2d_ms += r->h2d_ms;
        rep->compute_ms += r->compute_ms;
        rep->d2h_ms += r->d2h_ms;
        rep->h2d_gbs += r->h2d_gbs; /* the links add up: one per GPU */
        rep->d2h_gbs += r->d2h_gbs;
        CUDA_CHECK(cudaSetDevice(r->device));
        free_sets(set[w], sets);
        if (work[w]) CUDA_CHECK(cudaFree(work[w]));
    }
    CUDA_CHECK(cudaSetDevice(current));
    rep->bytes_in = job->gen ? 0 : bytes;
    rep->bytes_out = (staging ? bytes : 0) + job->batch * sizeof(int);
    if (rep->pinned) {
        double t1 = now_ms();
        CUDA_CHECK(cudaHostUnregister(job->host));
        rep->pin_ms += now_ms() - t1;
    }
    return status;
}
