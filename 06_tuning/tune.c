/* tune.c - `make tune`: the sweep of stage 06. For every order n and batch class (1024 matrices,
 * 16 384, and 1 GiB of matrices) it times every configuration of the kernel family on the GPU at
 * hand, verifies each result after timing (every info 0, sampled matrices against the float64
 * reference), and keeps the fastest verified one per (n, class) in the tuned table.
 *
 *   build/06_tuning/tune                 the full sweep (phase 1: every configuration at 31 orders,
 *                                        1 .. 1024; phase 2: every n = 1..128 with the finalists of
 *                                        its neighbours), then the table: per (n, class) the
 *                                        fastest in any layout and the fastest on row-major data
 *   build/06_tuning/tune --quick         a few minutes: fewer orders and configurations, no phase 2
 *
 * Rows go to a CSV as they are measured (default build/tune/<GPU>.csv); an interrupted sweep
 * started again skips every row already there, so it resumes where it stopped. Timing: L2 flushed
 * and input restored before every run (common/timing.h), median of 5 after a warm-up; a
 * configuration slower than 3x the best so far at its first timed run is recorded from that run. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "checks.h"
#include "cli.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "family.h"
#include "generator.h"
#include "gpu_batch.h"
#include "host_alloc.h"
#include "report.h"
#include "dataset_io.h"
#include "timing.h"
#include "tuned.h"

#define MAX_CANDIDATES 160

typedef struct {
    batched_config cfg;
    size_t chunk;
} candidate;

/* Every configuration worth timing at order n (quick: a representative few): each family's search
 * space (family.h), in the layout it is timed in. */
static int candidates(int n, int quick, candidate *c)
{
    batched_config cfg[MAX_CANDIDATES];
    size_t chunk[MAX_CANDIDATES];
    int k = 0;
    for (int f = 0; f < family_count; f++)
        k += family_list[f]->search(n, quick, cfg + k, chunk + k, MAX_CANDIDATES - k);
    for (int i = 0; i < k; i++) c[i].cfg = cfg[i], c[i].chunk = chunk[i];
    return k;
}

/* ---- the CSV of measured rows (resume) ---- */
typedef struct {
    int n, cls;
    char config[96];
    candidate cand;
    double median_ms, copy_ms, cusolver_ms;
} row;

static row *rows;
static int nrows, caprows;

static int find_row(int n, int cls, const char *config)
{
    for (int k = 0; k < nrows; k++)
        if (rows[k].n == n && rows[k].cls == cls && !strcmp(rows[k].config, config)) return k;
    return -1;
}

static void add_row(const row *r)
{
    if (nrows == caprows) {
        caprows = caprows ? 2 * caprows : 1024;
        rows = realloc(rows, (size_t)caprows * sizeof *rows);
        if (!rows) {
            fprintf(stderr, "tune: out of memory\n");
            exit(2);
        }
    }
    rows[nrows++] = *r;
}

#define CSV_HEADER                                                                                                   \
    "n,class,batch,kernel,order,nb,per_block,unroll,threads,chunk,config,median_ms,min_ms,repeats,copy_ms,cusolver_" \
    "ms,pct_roofline,x_cusolver,verified,gpu,commit\n"

static void load_csv(const char *path, const char *gpu)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    int kept = 0, other = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "n,", 2)) continue;
        row r;
        memset(&r, 0, sizeof r);
        char cls[16], kernel[16], order[16], verified[16], g[256];
        size_t batch;
        int repeats;
        double min_ms, pct, x;
        /* the config field has no commas; gpu may have spaces */
        if (sscanf(line,
                   "%d,%15[^,],%zu,%15[^,],%15[^,],%d,%d,%d,%d,%zu,%95[^,],%lf,%lf,%d,%lf,%lf,%lf,%lf,%15[^,],%255[^,]",
                   &r.n, cls, &batch, kernel, order, &r.cand.cfg.nb, &r.cand.cfg.per_block, &r.cand.cfg.unroll,
                   &r.cand.cfg.threads, &r.cand.chunk, r.config, &r.median_ms, &min_ms, &repeats, &r.copy_ms,
                   &r.cusolver_ms, &pct, &x, verified, g) != 20)
            continue;
        if (strcmp(g, gpu) != 0) {
            other++;
            continue;
        }
        r.cls = -1;
        for (int c = 0; c < TUNE_CLASSES; c++)
            if (!strcmp(cls, tune_class_names[c])) r.cls = c;
        if (r.cls < 0 || family_kernel_parse(kernel, &r.cand.cfg.kernel) ||
            looking_order_parse(order, &r.cand.cfg.order))
            continue;
        if (strcmp(verified, "yes") != 0) r.median_ms = INFINITY; /* measured, wrong: never chosen, not retried */
        add_row(&r);
        kept++;
    }
    fclose(f);
    if (kept) printf("# resuming: %d rows already measured in %s\n", kept, path);
    if (other) printf("# %d rows of %s come from another GPU: ignored\n", other, path);
}

/* ---- measuring ---- */
typedef struct {
    const batched_config *cfg;
    int n;
    size_t batch, chunk, bytes;
    float *d_work, *d_pristine;
    int *d_info;
} run_ctx;

static void run_factor(void *p)
{
    run_ctx *c = p;
    if (family_launch(c->cfg, c->n, c->batch, c->chunk, c->d_work, c->d_work, c->d_info, cudaStreamLegacy) != 0)
        exit(2);
}

static void restore(void *p)
{
    run_ctx *c = p;
    CUDA_CHECK(cudaMemcpy(c->d_work, c->d_pristine, c->bytes, cudaMemcpyDeviceToDevice));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fmt_duration(double s, char *buf, size_t len)
{
    if (s < 60) snprintf(buf, len, "%.0fs", s);
    else snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
}

typedef struct {
    const env_stamp *e;
    FILE *csv;
    int done, planned; /* progress over the whole sweep */
    double t0;
    int done_at_t0;
    int cusolver; /* time cuSOLVER at this n */
} sweep;

/* Measure the missing candidates at (n, cls): one batch generated per chunk, cuSOLVER and the
 * copy roofline timed in the same run. */
static void measure_class(sweep *sw, int n, int cls, const candidate *cand, int ncand, const char *phase)
{
    char names[MAX_CANDIDATES][96];
    int todo = 0;
    for (int k = 0; k < ncand; k++) {
        tuned_format(&cand[k].cfg, cand[k].chunk, names[k], sizeof names[k]);
        todo += find_row(n, cls, names[k]) < 0;
    }
    if (!todo) return;
    const size_t nn = (size_t)n * n, batch = tune_class_batch(cls, n), bytes = batch * nn * sizeof(float);
    size_t free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (2 * bytes + batch * sizeof(int) + (256u << 20) > free_b) {
        printf("# n=%d %s: %.2f GiB do not fit twice in the %.2f GiB free: skipped\n", n, tune_class_names[cls],
               bytes / 1073741824.0, free_b / 1073741824.0);
        sw->done += todo;
        return;
    }
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    run_ctx c = {NULL, n, batch, 0, bytes, NULL, NULL, NULL};
    CUDA_CHECK(cudaMalloc((void **)&c.d_work, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.d_pristine, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.d_info, batch * sizeof(int)));
    const double t_copy = time_copy_roofline(bytes, 5).median_ms;
    double t_cus = -1;
    if (sw->cusolver) { /* on the row-major batch (chunk 1) */
        gen_batch_device(&p, n, 0, batch, 1, c.d_pristine);
        t_cus = oracle_time_potrf_batched(n, batch, c.d_pristine).median_ms;
    }
    double best = INFINITY;
    for (int k = 0; k < nrows; k++)
        if (rows[k].n == n && rows[k].cls == cls && rows[k].median_ms < best) best = rows[k].median_ms;
    size_t generated = (size_t)-1;
    for (int k = 0; k < ncand; k++) {
        if (find_row(n, cls, names[k]) >= 0) continue;
        const size_t chunk = cand[k].chunk ? cand[k].chunk : batch;
        if (chunk != generated) {
            gen_batch_device(&p, n, 0, batch, chunk, c.d_pristine);
            generated = chunk;
        }
        c.cfg = &cand[k].cfg;
        c.chunk = chunk;
        timing_stats t = time_gpu(run_factor, restore, &c, 1, 1); /* one warm-up: the first launch loads the kernel */
        if (!(t.median_ms > 3 * best)) t = time_gpu(run_factor, restore, &c, 1, 5);
        t.verified = verify_generated_batch(&p, c.n, c.batch, c.chunk, c.d_work, c.d_info, 4, "  result check")
                         ? TIMING_VERIFIED
                         : TIMING_WRONG;
        row r;
        memset(&r, 0, sizeof r);
        r.n = n;
        r.cls = cls;
        snprintf(r.config, sizeof r.config, "%.95s", names[k]);
        r.cand = cand[k];
        r.median_ms = t.verified == TIMING_VERIFIED ? t.median_ms : INFINITY;
        r.copy_ms = t_copy;
        r.cusolver_ms = t_cus;
        add_row(&r);
        if (r.median_ms < best) best = r.median_ms;
        const batched_kernel_ops *ops = family_ops(cand[k].cfg.kernel);
        fprintf(sw->csv, "%d,%s,%zu,%s,%s,%d,%d,%d,%d,%zu,%s,%.6g,%.6g,%d,%.6g,%.6g,%.2f,%.3f,%s,%s,%s\n", n,
                tune_class_names[cls], batch, ops->name, looking_name(cand[k].cfg.order), cand[k].cfg.nb,
                cand[k].cfg.per_block, cand[k].cfg.unroll, cand[k].cfg.threads, cand[k].chunk, names[k], t.median_ms,
                t.min_ms, t.repeats, t_copy, t_cus, 100.0 * t_copy / t.median_ms, t_cus > 0 ? t_cus / t.median_ms : 0.0,
                t.verified == TIMING_VERIFIED ? "yes" : "WRONG", sw->e->gpu, sw->e->commit);
        fflush(sw->csv);
        sw->done++;
        const double el = now_s() - sw->t0;
        const int measured = sw->done - sw->done_at_t0;
        char eta[32] = "?";
        if (measured > 0) fmt_duration(el / measured * (sw->planned - sw->done), eta, sizeof eta);
        printf("[%5d/%d %s] n=%3d %-5s %-34s %9.4f ms %5.1f%% roofline", sw->done, sw->planned, phase, n,
               tune_class_names[cls], names[k], t.median_ms, 100.0 * t_copy / t.median_ms);
        if (t_cus > 0) printf(" %5.1fx cuSOLVER", t_cus / t.median_ms);
        printf("%s  ETA %s\n", t.verified == TIMING_VERIFIED ? "" : "  WRONG (not counted)", eta);
        fflush(stdout);
    }
    CUDA_CHECK(cudaFree(c.d_work));
    CUDA_CHECK(cudaFree(c.d_pristine));
    CUDA_CHECK(cudaFree(c.d_info));
}

/* The finalists for n (phase 2): at the explored orders just below and above n, in class cls, the
 * 3 fastest configurations and the fastest of each kernel, where they take n. */
static int finalists(int n, int cls, const int *explored, int nexp, candidate *out)
{
    int lo = -1, hi = -1, k = 0;
    for (int e = 0; e < nexp; e++) {
        if (explored[e] <= n && (lo < 0 || explored[e] > lo)) lo = explored[e];
        if (explored[e] >= n && (hi < 0 || explored[e] < hi)) hi = explored[e];
    }
    const int around[2] = {lo, hi};
    for (int s = 0; s < 2; s++) {
        if (around[s] < 0) continue;
        int idx[MAX_CANDIDATES * 2], m = 0;
        for (int r = 0; r < nrows && m < MAX_CANDIDATES * 2; r++)
            if (rows[r].n == around[s] && rows[r].cls == cls && isfinite(rows[r].median_ms)) idx[m++] = r;
        for (int a = 1; a < m; a++) /* sort by time */
            for (int b = a; b > 0 && rows[idx[b]].median_ms < rows[idx[b - 1]].median_ms; b--) {
                int t = idx[b];
                idx[b] = idx[b - 1];
                idx[b - 1] = t;
            }
        int per_kernel[BATCHED_MAX_KERNELS] = {0};
        for (int a = 0; a < m; a++) {
            const candidate *c = &rows[idx[a]].cand;
            if (a >= 3 && per_kernel[c->cfg.kernel]) continue;
            per_kernel[c->cfg.kernel] = 1;
            char msg[256];
            if (family_config_check(&c->cfg, n, msg, sizeof msg) != 0) continue;
            int dup = 0;
            for (int d = 0; d < k; d++) dup |= !memcmp(&out[d].cfg, &c->cfg, sizeof c->cfg) && out[d].chunk == c->chunk;
            if (!dup && k < MAX_CANDIDATES) out[k++] = *c;
        }
    }
    return k;
}

static void write_table(const char *path, const env_stamp *e, const char *source)
{
    tuned_table t;
    memset(&t, 0, sizeof t);
    snprintf(t.gpu, sizeof t.gpu, "%.127s", e->gpu);
    snprintf(t.commit, sizeof t.commit, "%s", e->commit);
    snprintf(t.source, sizeof t.source, "%.255s", source);
    t.e = host_alloc_array(2 * (BATCHED_MAX_N + 1) * TUNE_CLASSES, sizeof *t.e, "the tuned table");
    for (int n = 1; n <= BATCHED_MAX_N; n++)
        for (int cls = 0; cls < TUNE_CLASSES; cls++)
            for (int rm = 0; rm < 2; rm++) { /* the fastest in any layout, and on row-major data (chunk 1) */
                int best = -1;
                for (int r = 0; r < nrows; r++)
                    if (rows[r].n == n && rows[r].cls == cls && isfinite(rows[r].median_ms) &&
                        (!rm || rows[r].cand.chunk == 1) && (best < 0 || rows[r].median_ms < rows[best].median_ms))
                        best = r;
                if (best < 0) continue;
                tuned_entry *x = &t.e[t.count++];
                x->n = n;
                x->cls = cls;
                x->rowmajor = rm;
                x->cfg = rows[best].cand.cfg;
                x->chunk = rows[best].cand.chunk;
                x->ms = rows[best].median_ms;
                x->pct_roofline = 100.0 * rows[best].copy_ms / rows[best].median_ms;
            }
    char err[512];
    if (tuned_table_write(path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "tune: %s\n", err);
        exit(2);
    }
    printf("# wrote the tuned table (%d entries, stamped '%s') to %s\n", t.count, t.gpu, path);
    printf("# --kernel auto uses it on this GPU from now on; to give it to a class: cp %s 06_tuning/tables/\n", path);
    free(t.e);
}

static const char usage[] =
    "usage: tune [--quick] [--csv FILE] [--table FILE] [--ns \"8 16 ...\"]\n"
    "  the sweep of stage 06 (06_tuning/README.md); resumable: rows already in the CSV are kept\n"
    "  --quick      a few minutes: 10 orders, fewer configurations, no phase 2\n"
    "  --csv FILE   the measured rows (default build/tune/<GPU>.csv, or <GPU>-quick.csv)\n"
    "  --table FILE where the tuned table goes (default build/tune/<GPU>.tsv, or <GPU>-quick.tsv: the table\n"
    "               --kernel auto then uses on this GPU; copy it to 06_tuning/tables/ to check it in)\n"
    "  --ns LIST    explore only these orders (1..1024, spaces or commas), no phase 2\n"
    "  --opt value and --opt=value both work; -h, --help: this text\n";

int main(int argc, char **argv)
{
    tuned_env_apply(); /* TUNED_TABLE, TUNED_TABLES: the tuned table by hand (tuned_env.c) */
    int quick = 0, ns[128], nexp = 0, c;
    const char *csv_path = NULL, *table_path = NULL;
    static const struct option longs[] = {{"quick", no_argument, 0, 'q'},       {"csv", required_argument, 0, 'c'},
                                          {"table", required_argument, 0, 't'}, {"ns", required_argument, 0, 'n'},
                                          {"help", no_argument, 0, 'h'},        {0, 0, 0, 0}};
    while ((c = cli_getopt(argc, argv, longs, "tune", usage)) != -1) {
        if (c == 'q') quick = 1;
        else if (c == 'c') csv_path = optarg;
        else if (c == 't') table_path = optarg;
        else if (c == 'n') {
            char *copy = strdup(optarg), *tok = strtok(copy, " ,");
            for (; tok; tok = strtok(NULL, " ,")) {
                long long v;
                if (nexp == 128 || !cli_parse_ll(tok, 1, BATCHED_MAX_N, &v))
                    cli_bad_value("tune", "--ns", optarg, "at most 128 orders, each 1..1024");
                ns[nexp++] = (int)v;
            }
            free(copy);
            if (!nexp) cli_bad_value("tune", "--ns", optarg, "at least one order 1..1024");
        }
    }
    if (optind < argc) {
        fprintf(stderr, "tune: unexpected argument '%s' (tune --help shows the options)\n", argv[optind]);
        return 2;
    }
    const int given_ns = nexp > 0;
    env_stamp e;
    if (!bench_begin_gpu("tune", &e)) return 0;
    if (!given_ns) {
        static const int full[] = {1,  2,  3,  4,  6,   8,   12,  16,  20,  24,  28,  32,  40,  48,  56,  64,
                                   72, 80, 88, 96, 104, 112, 120, 128, 160, 192, 256, 384, 512, 768, 1024};
        static const int fast[] = {8, 16, 24, 32, 48, 64, 80, 96, 112, 128};
        const int *src = quick ? fast : full;
        nexp = quick ? 10 : 31;
        memcpy(ns, src, nexp * sizeof(int));
    }
    char slug[128], path[1024], tpath[1024], err[DATASET_ERR_LEN];
    tuned_gpu_slug(e.gpu, slug, sizeof slug);
    if (!csv_path) {
        snprintf(path, sizeof path, "%s/%s%s.csv", TUNED_OWN_DIR, slug, quick ? "-quick" : "");
        csv_path = path;
    }
    if (!table_path) {
        snprintf(tpath, sizeof tpath, "%s/%s%s.tsv", TUNED_OWN_DIR, slug, quick ? "-quick" : "");
        table_path = tpath;
    }
    if (dataset_make_parent_dirs(csv_path, err, sizeof err) != 0 ||
        dataset_make_parent_dirs(table_path, err, sizeof err) != 0) {
        fprintf(stderr, "tune: %s\n", err);
        return 2;
    }
    load_csv(csv_path, e.gpu);
    FILE *probe = fopen(csv_path, "r");
    const int fresh = !probe;
    if (probe) fclose(probe);
    sweep sw = {&e, fopen(csv_path, "a"), 0, 0, 0, 0, 1};
    if (!sw.csv) {
        fprintf(stderr, "tune: cannot write %s\n", csv_path);
        return 2;
    }
    if (fresh) fputs(CSV_HEADER, sw.csv);

    candidate cand[MAX_CANDIDATES];
    for (int i = 0; i < nexp; i++) sw.planned += TUNE_CLASSES * candidates(ns[i], quick, cand);
    const int phase2 = !quick && !given_ns;
    if (phase2) sw.planned += (128 - nexp) * TUNE_CLASSES * 8; /* an estimate until phase 1 is done */
    printf("# tune: %d orders, %s; about %d rows; CSV %s\n", nexp, quick ? "quick" : "full", sw.planned, csv_path);
    sw.t0 = now_s();
    for (int i = 0; i < nexp; i++)
        for (int cls = 0; cls < TUNE_CLASSES; cls++) {
            sw.cusolver = !(cls == 2 && ns[i] < 8); /* cuSOLVER on 1 GiB of tiny matrices takes seconds */
            const int k = candidates(ns[i], quick, cand);
            measure_class(&sw, ns[i], cls, cand, k, "phase 1");
        }
    if (phase2) {
        int planned2 = 0;
        for (int n = 1; n <= 128; n++) {
            int explored = 0;
            for (int i = 0; i < nexp; i++) explored |= ns[i] == n;
            if (!explored)
                for (int cls = 0; cls < TUNE_CLASSES; cls++) planned2 += finalists(n, cls, ns, nexp, cand);
        }
        sw.planned = sw.done + planned2;
        sw.t0 = now_s();
        sw.done_at_t0 = sw.done;
        for (int n = 1; n <= 128; n++) {
            int explored = 0;
            for (int i = 0; i < nexp; i++) explored |= ns[i] == n;
            if (explored) continue;
            sw.cusolver = 0; /* the ratios to cuSOLVER come from the explored orders and make bench */
            for (int cls = 0; cls < TUNE_CLASSES; cls++) {
                const int k = finalists(n, cls, ns, nexp, cand);
                measure_class(&sw, n, cls, cand, k, "phase 2");
            }
        }
    }
    fclose(sw.csv);
    write_table(table_path, &e, csv_path);
    return 0;
}
