/* tuned.h - the tuned table: the best configuration per (n, batch class), measured by `make tune`
 * on one GPU and checked in (06_tuning/tuned_table.tsv, stamped with that GPU), and the `auto`
 * kernel that looks a run up in it. */
#ifndef TUNED_H
#define TUNED_H

#include <stddef.h>
#include "batched_cholesky.h"

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

/* The table the driver and the benchmark use: $TUNED_TABLE, else the checked-in
 * 06_tuning/tuned_table.tsv of the source tree it was built from (read once). NULL with a message on stderr when it cannot be read. */
const tuned_table *tuned_table_default(void);

/* "rows T=8 x16 c=16" <-> fields: the configuration as the table writes it. */
void tuned_format(const batched_config *cfg, size_t chunk, char *buf, size_t len);

#endif
