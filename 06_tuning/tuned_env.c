/* tuned_env.c - the programs' side of the tuned table's places: TUNED_TABLE (one table file, taken
 * as it is) and TUNED_TABLES (a folder of tables in place of the checked-in ones), read from the
 * environment and passed to tuned_places_set. Only programs link it (the drivers, the benchmarks,
 * the sweep, the Python package's layer): stage 06's library reads no environment. */
#include <stdlib.h>
#include "tuned.h"

void tuned_env_apply(void) { tuned_places_set(getenv("TUNED_TABLE"), getenv("TUNED_TABLES")); }
