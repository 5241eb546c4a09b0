/* tuned.c - the tuned table: reading, writing, and choosing from it (tuned.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "family.h"
#include "host_alloc.h"
#include "tuned.h"

#include <dirent.h>
#include <cuda_runtime.h>

const char *const tune_class_names[TUNE_CLASSES] = {"1024", "16384", "1GiB"};

size_t tune_class_batch(int cls, int n)
{
    const size_t nn = (size_t)n * n;
    const size_t gib = ((size_t)1 << 30) / (nn * sizeof(float)) + (((size_t)1 << 30) % (nn * sizeof(float)) != 0);
    const size_t fixed = cls == 0 ? 1024 : 16384;
    return cls == 2 || fixed > gib ? gib : fixed;
}

void tuned_format(const batched_config *cfg, size_t chunk, char *buf, size_t len)
{
    char name[64];
    family_config_name(cfg, name, sizeof name);
    if (chunk) snprintf(buf, len, "%s c=%zu", name, chunk);
    else snprintf(buf, len, "%s interleaved", name);
}

/* One line of the table:
 * n <TAB> class <TAB> kernel <TAB> order <TAB> nb <TAB> per_block <TAB> unroll <TAB> threads <TAB> chunk <TAB> ms <TAB> pct <TAB> data
 * data: "layout" (the fastest in any layout; the data must be converted to it unless chunk = 1) or
 * "rowmajor" (the fastest on row-major data: chunk = 1, no conversion). A table of 11 columns is
 * all "layout". */
int tuned_table_write(const char *path, const tuned_table *t, char *err, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, len, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# The best configuration per (n, batch class), from `make tune` (06_tuning/README.md).\n");
    fprintf(f, "# gpu\t%s\n# commit\t%s\n# source\t%s\n", t->gpu, t->commit, t->source);
    fprintf(f, "# n\tclass\tkernel\torder\tnb\tper_block\tunroll\tthreads\tchunk\tmedian_ms\tpct_roofline\tdata\n");
    for (int k = 0; k < t->count; k++) {
        const tuned_entry *e = &t->e[k];
        fprintf(f, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%zu\t%.6g\t%.1f\t%s\n", e->n, tune_class_names[e->cls],
                family_ops(e->cfg.kernel)->name, looking_name(e->cfg.order), e->cfg.nb, e->cfg.per_block, e->cfg.unroll,
                e->cfg.threads, e->chunk, e->ms, e->pct_roofline, e->rowmajor ? "rowmajor" : "layout");
    }
    if (fclose(f) != 0) {
        snprintf(err, len, "%s: write error: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void header_value(const char *line, const char *key, char *out, size_t len)
{
    size_t k = strlen(key);
    if (strncmp(line, "# ", 2) == 0 && strncmp(line + 2, key, k) == 0 && line[2 + k] == '\t') {
        const char *v = line + 3 + k;
        size_t l = strcspn(v, "\r\n");
        if (l >= len) l = len - 1; /* cut to fit */
        memcpy(out, v, l);
        out[l] = '\0';
    }
}

/* A table file, or one compiled in ("builtin:<name>", read from memory through the same parser). */
static FILE *open_table(const char *path)
{
    const size_t pre = strlen(TUNED_BUILTIN);
    if (strncmp(path, TUNED_BUILTIN, pre)) return fopen(path, "r");
    for (int k = 0; k < tuned_builtin_count; k++)
        if (!strcmp(path + pre, tuned_builtin_tables[k].name))
            return fmemopen((void *)tuned_builtin_tables[k].text, strlen(tuned_builtin_tables[k].text), "r");
    errno = ENOENT;
    return NULL;
}

int tuned_table_read(const char *path, tuned_table *t, char *err, size_t len)
{
    memset(t, 0, sizeof *t);
    FILE *f = open_table(path);
    if (!f) {
        snprintf(err, len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    int cap = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) { /* longer than the buffer: a comment's rest is skipped */
            int ch;
            while ((ch = fgetc(f)) != EOF && ch != '\n') {}
            if (line[0] != '#') {
                snprintf(err, len, "%s:%d: a line longer than %zu characters", path, lineno, sizeof line - 2);
                fclose(f);
                tuned_table_free(t);
                return -1;
            }
        }
        if (line[0] == '#') {
            header_value(line, "gpu", t->gpu, sizeof t->gpu);
            header_value(line, "commit", t->commit, sizeof t->commit);
            header_value(line, "source", t->source, sizeof t->source);
            continue;
        }
        if (strspn(line, " \t\r\n") == strlen(line)) continue;
        char cls[16], kernel[16], order[16], data[16] = "layout";
        tuned_entry e;
        memset(&e, 0, sizeof e);
        const int fields =
            sscanf(line, "%d %15s %15s %15s %d %d %d %d %zu %lf %lf %15s", &e.n, cls, kernel, order, &e.cfg.nb,
                   &e.cfg.per_block, &e.cfg.unroll, &e.cfg.threads, &e.chunk, &e.ms, &e.pct_roofline, data);
        if (fields != 11 && fields != 12) {
            snprintf(
                err, len,
                "%s:%d: expected 11 or 12 fields: n class kernel order nb per_block unroll threads chunk ms pct [data]",
                path, lineno);
            fclose(f);
            tuned_table_free(t);
            return -1;
        }
        e.cls = -1;
        for (int c = 0; c < TUNE_CLASSES; c++)
            if (!strcmp(cls, tune_class_names[c])) e.cls = c;
        char msg[256] = "";
        if (e.cls < 0) snprintf(msg, sizeof msg, "unknown batch class '%s' (1024, 16384 or 1GiB)", cls);
        else if (family_kernel_parse(kernel, &e.cfg.kernel) != 0)
            snprintf(msg, sizeof msg, "unknown kernel '%s'", kernel);
        else if (looking_order_parse(order, &e.cfg.order) != 0) snprintf(msg, sizeof msg, "unknown order '%s'", order);
        else if (strcmp(data, "layout") && strcmp(data, "rowmajor"))
            snprintf(msg, sizeof msg, "unknown data '%s' (layout or rowmajor)", data);
        else if (!strcmp(data, "rowmajor") && e.chunk != 1)
            snprintf(msg, sizeof msg, "a rowmajor entry has chunk 1, not %zu", e.chunk);
        else family_config_check(&e.cfg, e.n, msg, sizeof msg);
        e.rowmajor = !strcmp(data, "rowmajor");
        if (msg[0]) {
            snprintf(err, len, "%s:%d: %s", path, lineno, msg);
            fclose(f);
            tuned_table_free(t);
            return -1;
        }
        if (t->count == cap) {
            cap = cap ? 2 * cap : 256;
            tuned_entry *grown = realloc(t->e, (size_t)cap * sizeof *grown);
            if (!grown) {
                snprintf(err, len, "%s: out of host memory", path);
                fclose(f);
                tuned_table_free(t);
                return -1;
            }
            t->e = grown;
        }
        t->e[t->count++] = e;
    }
    fclose(f);
    if (!t->count) {
        snprintf(err, len, "%s: no entries", path);
        return -1;
    }
    return 0;
}

void tuned_table_free(tuned_table *t)
{
    free(t->e);
    t->e = NULL;
    t->count = 0;
}

int tuned_choose(const tuned_table *t, int n, size_t batch, int rowmajor, batched_config *cfg, size_t *chunk, char *why,
                 size_t len)
{
    /* The class nearest in log scale; among entries of that class the nearest n whose
     * configuration is valid for this n (the table covers every n it was swept at). */
    const tuned_entry *best = NULL;
    double best_score = 1e300;
    int has_rowmajor = 0;
    for (int k = 0; k < t->count; k++) has_rowmajor |= t->e[k].rowmajor;
    const int want = rowmajor && has_rowmajor;
    for (int k = 0; k < t->count; k++) {
        const tuned_entry *e = &t->e[k];
        char msg[256];
        if (e->rowmajor != want || family_config_check(&e->cfg, n, msg, sizeof msg) != 0) continue;
        const double class_dist = fabs(log((double)batch) - log((double)tune_class_batch(e->cls, n)));
        const double score = class_dist * 1000 + abs(e->n - n); /* the class first, then n */
        /* Halfway between two classes (a batch of 4096 in log scale), the larger one: its entry is
         * made for more than one wave of blocks, which such a batch already is (H100, gpu-mode's
         * 4096 x 32: the 16384 entry 20.4 us, the 1024 one 23.2 us, two waves of its blocks). */
        const int tie = best && fabs(score - best_score) < 1e-9;
        if ((!tie && score < best_score) || (tie && tune_class_batch(e->cls, n) > tune_class_batch(best->cls, n)))
            best_score = score, best = e;
    }
    if (!best) {
        snprintf(why, len, "the tuned table has no configuration that takes n = %d", n);
        return -1;
    }
    *cfg = best->cfg;
    *chunk = best->chunk;
    char name[96];
    tuned_format(cfg, *chunk, name, sizeof name);
    snprintf(why, len, "%s, tuned for n = %d, batch class %s%s on %s", name, best->n, tune_class_names[best->cls],
             want ? ", row-major data" : "", t->gpu[0] ? t->gpu : "an unnamed GPU");
    return 0;
}

void tuned_gpu_slug(const char *gpu, char *slug, size_t len)
{
    size_t s = 0;
    for (const char *g = gpu; *g && s + 1 < len; g++)
        slug[s++] = (*g >= 'a' && *g <= 'z') || (*g >= 'A' && *g <= 'Z') || (*g >= '0' && *g <= '9') ? *g : '_';
    slug[s] = '\0';
}

/* The "# gpu" line of a table file: 1 when the file opens (gpu "" if it has none), 0 if not. */
static int table_gpu(const char *path, char *gpu, size_t len)
{
    FILE *f = open_table(path);
    if (!f) return 0;
    char line[512];
    gpu[0] = '\0';
    while (fgets(line, sizeof line, f) && line[0] == '#') header_value(line, "gpu", gpu, len);
    fclose(f);
    return 1;
}

static int table_of(const char *path, const char *gpu)
{
    char stamp[128];
    return table_gpu(path, stamp, sizeof stamp) && !strcmp(stamp, gpu);
}

int tuned_table_pick(const char *gpu, const tuned_places *pl, char *path, size_t len, char *notice, size_t nlen)
{
    char slug[128], stamp[128];
    notice[0] = '\0';
    if (pl->env && *pl->env) {
        snprintf(path, len, "%s", pl->env);
        return 0;
    } /* asked for by name: no questions */
    tuned_gpu_slug(gpu ? gpu : "", slug, sizeof slug);
    if (gpu && *gpu) {
        const int own = pl->own_dir && *pl->own_dir;                  /* (none in an installed library) */
        if (own) snprintf(path, len, "%s/%s.tsv", pl->own_dir, slug); /* 1. make tune on this GPU, the full sweep */
        if (own && table_of(path, gpu)) return 0;
        DIR *dir = opendir(pl->tables_dir); /* 2. the checked-in tables: the one stamped with this GPU */
        struct dirent *de;
        int found = 0;
        while (dir && !found && (de = readdir(dir))) {
            size_t l = strlen(de->d_name);
            if (l < 5 || strcmp(de->d_name + l - 4, ".tsv")) continue;
            snprintf(path, len, "%s/%s", pl->tables_dir, de->d_name);
            found = table_of(path, gpu);
        }
        if (dir) closedir(dir);
        const int builtin = !strcmp(pl->tables_dir, TUNED_BUILTIN);
        for (int k = 0; builtin && !found && k < tuned_builtin_count; k++) { /* the ones compiled in */
            snprintf(path, len, TUNED_BUILTIN "%s", tuned_builtin_tables[k].name);
            found = table_of(path, gpu);
        }
        if (found) return 0;
        snprintf(path, len, "%s/%s-quick.tsv", pl->own_dir, slug); /* 3. make tune QUICK=1 on this GPU */
        if (own && table_of(path, gpu)) return 0;
    }
    snprintf(path, len, "%s", pl->course_table); /* 4. the course's, with a word on where it came from */
    if (!table_gpu(path, stamp, sizeof stamp)) return -1;
    if (gpu && *gpu && strcmp(stamp, gpu))
        snprintf(notice, nlen,
                 "tuned table: none measured on %s; using the one measured on %s (make tune measures this GPU's, "
                 "QUICK=1 in a few minutes)",
                 gpu, stamp[0] ? stamp : "an unnamed GPU");
    return 0;
}

/* The table of each kind of GPU the process plans for, read once, whichever thread asks first (the
 * library's plans may be made by several threads at once, on GPUs of different kinds). */
#define TABLE_KINDS 8
static struct {
    char gpu[256]; /* the GPU's name ("" none) */
    int state;     /* 1 read, -1 failed */
    tuned_table table;
    char notice[512], error[1200];
} loaded[TABLE_KINDS];
static int kinds;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static char tables_dir[1024];                  /* tuned_tables_dir_set's; empty: TUNED_TABLES_DIR */
static char named_file[1024], named_dir[1024]; /* tuned_places_set's (a program's TUNED_TABLE, TUNED_TABLES) */

void tuned_tables_dir_set(const char *dir) { snprintf(tables_dir, sizeof tables_dir, "%s", dir ? dir : ""); }

void tuned_places_set(const char *file, const char *dir)
{
    snprintf(named_file, sizeof named_file, "%s", file ? file : "");
    snprintf(named_dir, sizeof named_dir, "%s", dir ? dir : "");
}

/* The current GPU's name ("" without one), asked once per device. */
static void current_gpu(char *gpu, size_t len)
{
    static char names[64][256];
    static int asked[64];
    int count = 0, dev = 0;
    gpu[0] = '\0';
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1 || cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError(); /* no GPU is not an error here: the course's table is read */
        return;
    }
    if (dev >= 0 && dev < 64 && asked[dev]) {
        snprintf(gpu, len, "%s", names[dev]);
        return;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) snprintf(gpu, len, "%s", prop.name);
    else (void)cudaGetLastError();
    if (dev >= 0 && dev < 64) snprintf(names[dev], sizeof names[dev], "%s", gpu), asked[dev] = 1;
}

/* Pick and read the table of the GPU named gpu into slot k. */
static void read_for(int k, const char *gpu)
{
    char path[1024];
    const char *shipped = tables_dir[0] ? tables_dir : TUNED_TABLES_DIR;
    const char *dir = named_dir[0] ? named_dir : shipped;
    char course[1100];
    DIR *there = opendir(dir);
    if (there) closedir(there);
    else dir = TUNED_BUILTIN; /* no such folder (an installed library): the tables compiled in */
    snprintf(course, sizeof course, "%s%s%s", there ? shipped : TUNED_BUILTIN, there ? "/" : "", TUNED_COURSE_TABLE);
    const tuned_places pl = {named_file, TUNED_OWN_DIR, dir, course};
    snprintf(loaded[k].gpu, sizeof loaded[k].gpu, "%s", gpu);
    if (tuned_table_pick(gpu, &pl, path, sizeof path, loaded[k].notice, sizeof loaded[k].notice) != 0) {
        snprintf(loaded[k].error, sizeof loaded[k].error, "tuned table: %s: cannot open: %s", path, strerror(errno));
        loaded[k].state = -1;
        return;
    }
    char err[1100];
    loaded[k].state = tuned_table_read(path, &loaded[k].table, err, sizeof err) == 0 ? 1 : -1;
    if (loaded[k].state < 0) snprintf(loaded[k].error, sizeof loaded[k].error, "tuned table: %s", err);
    else snprintf(loaded[k].table.path, sizeof loaded[k].table.path, "%s", path);
}

const tuned_table *tuned_table_load(const char **notice, const char **error)
{
    static const char *const too_many = "tuned table: more than 8 kinds of GPU in one process";
    char gpu[256];
    current_gpu(gpu, sizeof gpu);
    pthread_mutex_lock(&load_lock);
    int k = 0;
    while (k < kinds && strcmp(loaded[k].gpu, gpu)) k++;
    if (k == kinds && kinds < TABLE_KINDS) read_for(kinds++, gpu);
    pthread_mutex_unlock(&load_lock);
    if (k == TABLE_KINDS) {
        if (notice) *notice = "";
        if (error) *error = too_many;
        return NULL;
    }
    if (notice) *notice = loaded[k].notice;
    if (error) *error = loaded[k].error;
    return loaded[k].state > 0 ? &loaded[k].table : NULL;
}

static void say_default(void)
{
    const char *notice, *error;
    tuned_table_load(&notice, &error);
    if (notice[0]) fprintf(stderr, "%s\n", notice);
    if (error[0]) fprintf(stderr, "%s\n", error);
}

const tuned_table *tuned_table_default(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    const char *notice, *error;
    const tuned_table *t = tuned_table_load(&notice, &error);
    pthread_once(&once, say_default); /* the notice or the error, once */
    return t;
}
