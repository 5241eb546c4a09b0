/* cyclic_dispatch.cu - which cyclic-kernel instances exist, and picking one for n.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel cyclic --threads 64 --n 100 --batch 26844 */
#include <stdio.h>
#include "cuda_check.h"
#include "cyclic_kernel.cuh"
#include "cyclic_kernel.h"

static_assert(CYCLIC_PARTS == 4,
              "one potrf_cyclic_partK per part: the cyclic_part*.cu files and the table in potrf_batched_cyclic");

/* The table by grid, built from the list (cyclic_kernel.h) when this file compiles. */
constexpr bool cyclic_list_ok() /* entries of one T together, A increasing */
{
    for (int s = 1; s < cyclic_list_count; s++) {
        if (cyclic_list_t[s] == cyclic_list_t[s - 1] && cyclic_list_a[s] <= cyclic_list_a[s - 1]) return false;
        for (int r = 0; r + 1 < s; r++)
            if (cyclic_list_t[r] == cyclic_list_t[s] && cyclic_list_t[s - 1] != cyclic_list_t[s]) return false;
    }
    return true;
}
static_assert(cyclic_list_ok(), "CYCLIC_INSTANCES: the entries of one T together, A increasing");
constexpr int
cyclic_first_of_grid(int k) /* the list index where grid k starts (the count of grids for k past the last) */
{
    int seen = 0;
    for (int s = 0; s < cyclic_list_count; s++)
        if (s == 0 || cyclic_list_t[s] != cyclic_list_t[s - 1]) {
            if (seen == k) return s;
            seen++;
        }
    return k == seen ? cyclic_list_count : -seen;
}
constexpr cyclic_grid cyclic_grid_of(int k)
{
    cyclic_grid gr{};
    const int s0 = cyclic_first_of_grid(k);
    gr.threads = cyclic_list_t[s0];
    gr.cols = cyclic_grid_cols(gr.threads);
    for (int s = s0, j = 0; s < cyclic_list_count && cyclic_list_t[s] == gr.threads && j < CYCLIC_MAX_SLOTS; s++, j++)
        gr.slots[j] = cyclic_list_a[s];
    return gr;
}
static_assert(cyclic_first_of_grid(CYCLIC_NGRIDS) == cyclic_list_count,
              "CYCLIC_NGRIDS: the number of thread counts in CYCLIC_INSTANCES");
constexpr bool cyclic_slots_fit()
{
    for (int k = 0; k < CYCLIC_NGRIDS; k++)
        if (cyclic_first_of_grid(k + 1) - cyclic_first_of_grid(k) > CYCLIC_MAX_SLOTS) return false;
    return true;
}
static_assert(cyclic_slots_fit(),
              "CYCLIC_MAX_SLOTS: at least the most instances of one thread count in CYCLIC_INSTANCES");
extern "C" const cyclic_grid cyclic_grids[CYCLIC_NGRIDS] = {cyclic_grid_of(0), cyclic_grid_of(1), cyclic_grid_of(2),
                                                            cyclic_grid_of(3), cyclic_grid_of(4)};
static_assert(CYCLIC_NGRIDS == 5, "one cyclic_grid_of(k) per thread count in the table above");

static const cyclic_grid *grid_for(int threads)
{
    for (int s = 0; s < CYCLIC_NGRIDS; s++)
        if (cyclic_grids[s].threads == threads) return &cyclic_grids[s];
    return NULL;
}

/* The fewest slots that hold n (0: none). */
static int slots_for(const cyclic_grid *gr, int n)
{
    for (int k = 0; gr && k < CYCLIC_MAX_SLOTS; k++)
        if (gr->slots[k] && n <= gr->cols * gr->slots[k]) return gr->slots[k];
    return 0;
}

extern "C" int cyclic_max_n(int threads)
{
    const cyclic_grid *gr = grid_for(threads);
    int most = 0;
    for (int k = 0; gr && k < CYCLIC_MAX_SLOTS; k++)
        if (gr->cols * gr->slots[k] > most) most = gr->cols * gr->slots[k];
    return most;
}

extern "C" size_t cyclic_smem_need(int n, int threads, int per_block)
{
    const cyclic_grid *gr = grid_for(threads);
    const int a = slots_for(gr, n);
    return a ? (size_t)per_block * cyclic_buf_elements(gr->threads, a) * sizeof(float) : 0;
}

static int (*const cyclic_parts[CYCLIC_PARTS])(CYCLIC_PART_ARGS) = {potrf_cyclic_part0, potrf_cyclic_part1,
                                                                    potrf_cyclic_part2, potrf_cyclic_part3};

extern "C" int cyclic_variant_exists(int threads, int n, int v)
{
    const cyclic_grid *gr = grid_for(threads);
    const int a = slots_for(gr, n), kind = v & ~CYCLIC_TRIMMED;
    if (!a || v < 0 || v > CYCLIC_MAX_VARIANT || (v && !kind)) return 0;
    if (v == 0 || kind == CYCLIC_LOOP && !(v & CYCLIC_TRIMMED)) return 1;
    const int T = gr->threads, R = v & CYCLIC_TRIMMED ? cyclic_trimmed_rows(T, a) : cyclic_full_rows(T, a);
    if (R == 0 || n > cyclic_grid_rows(T) * R) return 0; /* no trimmed instance, or n needs the last row slot */
    return kind == CYCLIC_UNROLLED ? cyclic_unrolled(T, R) : kind == CYCLIC_CAPPED ? cyclic_reg_cap(T, a) > 0 : 1;
}

extern "C" int cyclic_variant_choose(int threads, int per_block, int n, size_t batch)
{
    const cyclic_grid *gr = grid_for(threads);
    const int a = slots_for(gr, n);
    int count = 0;
    if (!a || cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError(); /* no GPU: not an error here */
        return 0;
    }
    const int v =
        cyclic_parts[cyclic_part_of(gr->threads, a)](gr->threads, a, 0, per_block, n, batch, 1, NULL, NULL, NULL, 0);
    return v > 0 ? v : 0;
}

extern "C" const char *cyclic_variant_name(int v)
{
    static const char *const names[CYCLIC_MAX_VARIANT + 1] = {"", "loop",         "unrolled",         "capped",
                                                              "", "loop trimmed", "unrolled trimmed", "capped trimmed"};
    return v >= 0 && v <= CYCLIC_MAX_VARIANT ? names[v] : "";
}

extern "C" int potrf_batched_cyclic(int threads, int per_block, int variant, int n, size_t batch, size_t chunk,
                                    const float *d_in, float *d_out, int *d_info, cudaStream_t stream)
{
    const cyclic_grid *gr = grid_for(threads);
    const int a = slots_for(gr, n);
    if (a)
        return cyclic_parts[cyclic_part_of(gr->threads, a)](gr->threads, a, variant, per_block, n, batch, chunk, d_in,
                                                            d_out, d_info, stream);
    course_report("potrf_batched_cyclic: no instance for n = %d with %d threads per matrix\n", n, threads);
    return -1;
}
