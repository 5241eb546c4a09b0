/* cholesky_plan_internal.h - what the course's own programs (drivers, benchmarks, tests, the Python
 * package's layer) may ask of the door beyond the public header: a configuration named by hand, a
 * plan made only to be explained on a machine without a GPU, the planted error of the tests. Not
 * installed, and none of it is exported by the installed library (library.map). */
#ifndef CHOLESKY_PLAN_INTERNAL_H
#define CHOLESKY_PLAN_INTERNAL_H

#include "cholesky_plan.h"
#include "batched_cholesky.h"
#include "grid_policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const batched_config *config; /* NULL: auto (the tuned table); else this configuration */
    size_t kernel_chunk;          /* with config: the layout it runs in (0: the caller's) */
    int explain_only;             /* 1: made without asking for a GPU, to be explained (never executed) */
    const grid_overrides *grid;   /* the whole-GPU choices forced by hand (a program's GRID_* switches:
                                     grid_overrides_env); NULL: none. The explanation names them. */
} cholesky_internal_options;

/* cholesky_plan_create with the course's own choices (in may be NULL: as cholesky_plan_create). */
cholesky_status cholesky_plan_create_internal(cholesky_plan **plan, int n, size_t batch, const cholesky_options *opt,
                                              const cholesky_internal_options *in, char *err, size_t len);

/* The configuration the kernel runs, and its layout (kernel_chunk may be NULL). */
const batched_config *cholesky_plan_config(const cholesky_plan *plan, size_t *kernel_chunk);

/* For the tests: the plan's next `calls` executes fail on a real CUDA error (a wait on a NULL event,
 * not sticky) before they launch anything, through the same check and recovery as any other. */
void cholesky_plan_plant_error(cholesky_plan *plan, int calls);

#ifdef __cplusplus
}
#endif

#endif
