/* tuned.h - the tuned table: the best configuration per (n, batch class), measured by `make tune`
 * on one GPU and stamped with its name (checked in: 06_tuning/tables/<GPU>.tsv), which table a
 * GPU uses, and the `auto` kernel that looks a run up in it. */
#ifndef TUNED_H
#define TUNED_H

#include <stddef.h>
#include "batched_cholesky.h"

/* Where the tables are (stage.mk sets absolute paths of the source tree and of the build). */
#ifndef TUNED_TABLES_DIR
#define TUNED_TABLES_DIR "06_tuning/tables"
#endif
#ifndef TUNED_OWN_DIR
#define TUNED_OWN_DIR "build/tune"
#endif
/* The checked-in tables compiled in (embed_tables.py, at build time): where TUNED_TABLES_DIR is not
 * there (an installed library), a path "builtin:<file name>" names one of them. */
typedef struct {
    const char *name, *text;
} tuned_builtin;
extern const tuned_builtin tuned_builtin_tables[];
extern const int tuned_builtin_count;
#define TUNED_BUILTIN "builtin:"

/* The course's own table, in TUNED_TABLES_DIR: the GPU the course was tuned on. */
#define TUNED_COURSE_TABLE "NVIDIA_H100_80GB_HBM3.tsv"

/* The batch classes of the sweep: 1024 and 16384 matrices (the classroom sizes; the data sit in
 * L2 or close to it), and 1 GiB of matrices (far past the L2: bandwidth-bound). */
#define TUNE_CLASSES 3
extern const char *const tune_class_names[TUNE_CLASSES]; /* "1024", "16384", "1GiB" */
size_t tune_class_batch(int cls, int n); /* the class's batch for order n (never more than 1 GiB: past n = 128 the
                                            classroom classes would not fit) */

typedef struct {
    int n, cls;
    int rowmajor; /* 1: the best configuration for row-major data (chunk = 1: no conversion); 0: for any layout */
    batched_config cfg;
    size_t chunk; /* 0: interleaved */
    double ms, pct_roofline;
} tuned_entry;

typedef struct {
    char gpu[128], commit[48], source[256];
    char path[1024]; /* the file it was read from */
    int count;
    tuned_entry *e;
} tuned_table;

/* Read a table (format: see tuned_table_write). 0, or -1 with the reason in err. */
int tuned_table_read(const char *path, tuned_table *t, char *err, size_t len);
int tuned_table_write(const char *path, const tuned_table *t, char *err, size_t len);
void tuned_table_free(tuned_table *t);

/* The configuration for (n, batch): the entry of the class nearest to batch (in log scale) at n,
 * or at the nearest n that has a valid one. rowmajor: the data are row-major (as a user holds
 * them), so take the entries measured on row-major data, which need no conversion (a table
 * without them: the others). 0, or -1 when the table has nothing usable. why says which entry
 * was used. */
int tuned_choose(const tuned_table *t, int n, size_t batch, int rowmajor, batched_config *cfg, size_t *chunk, char *why,
                 size_t len);

/* Which table `auto` reads on the GPU named gpu ("" without one). The places: */
typedef struct {
    const char *env;          /* $TUNED_TABLE: a table named by hand, taken as it is (NULL or "": none) */
    const char *own_dir;      /* what make tune wrote on this machine: <slug>.tsv, <slug>-quick.tsv (build/tune) */
    const char *tables_dir;   /* the course's checked-in tables, one per GPU (06_tuning/tables, or $TUNED_TABLES;
                                 TUNED_BUILTIN: the ones compiled in) */
    const char *course_table; /* the course's own table, where none of the above was measured on this GPU */
} tuned_places;

/* The order: $TUNED_TABLE; this GPU's full sweep (own_dir); a checked-in table stamped with this
 * GPU's name; this GPU's quick sweep; the course's table, with a one-line notice (which GPU it
 * came from, how to tune) in notice when it was measured on another GPU ("" otherwise). A table
 * counts as this GPU's when its "# gpu" line is the GPU's name. Writes the path; 0, or -1 when
 * not even the course's table opens. */
int tuned_table_pick(const char *gpu, const tuned_places *places, char *path, size_t len, char *notice, size_t nlen);

/* The table the driver and the benchmark use, picked as above for the current GPU and read once
 * (its path field says which); the notice, if any, goes to stderr (once). NULL, with a
 * message on stderr, when it cannot be read. */
const tuned_table *tuned_table_default(void);
/* The same table, printing nothing (the library): *notice the line above ("" none), *error why it
 * is NULL. Read once per kind of GPU (by its name: two kinds in one machine get their own), on
 * the GPU current when it is asked. Safe from several threads. */
const tuned_table *tuned_table_load(const char **notice, const char **error);

/* Read the checked-in tables (and the course's own) from `dir` instead of TUNED_TABLES_DIR: a copy
 * shipped with the library (the Python package's). Only before the first tuned_table_load; what
 * tuned_places_set names still wins. */
void tuned_tables_dir_set(const char *dir);
/* A table file taken as it is (file), and a folder of tables in place of the checked-in ones (dir),
 * NULL or "": none. Only before the first tuned_table_load. Nothing here reads the environment: the
 * programs pass their TUNED_TABLE and TUNED_TABLES on (tuned_env_apply, 06_tuning/tuned_env.c). */
void tuned_places_set(const char *file, const char *dir);
/* The programs' side: tuned_places_set from the environment's TUNED_TABLE and TUNED_TABLES. */
void tuned_env_apply(void);

/* A GPU's name as a file name: every character but letters and digits becomes '_'. */
void tuned_gpu_slug(const char *gpu, char *slug, size_t len);

/* "rows T=8 x16 c=16" <-> fields: the configuration as the table writes it. */
void tuned_format(const batched_config *cfg, size_t chunk, char *buf, size_t len);

#endif
