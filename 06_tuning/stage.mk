# 06_tuning: the kernel family (rows, cyclic and staged kernels, thread kernel in all orders), the sweep and the tuned table.
S6 := $(BUILD)/06_tuning
$(S6)/%.o: CFLAGS += -I06_tuning -I06_tuning/library -I05_chunked -I04_interleaved -I03_left_right_top
# Where the tuned tables are: absolute paths, given only to the two files that use them.
$(S6)/library/tuned.o $(S6)/tune.o: CFLAGS += -DTUNED_TABLES_DIR='"$(CURDIR)/06_tuning/tables"' -DTUNED_OWN_DIR='"$(abspath $(BUILD))/tune"'
$(S6)/%.o $(S6)/%.res: NVCCFLAGS += -I06_tuning -I06_tuning/library -I04_interleaved -I03_left_right_top
# The checked-in tuned tables, compiled in (an installed library reads no file of the source tree).
$(S6)/library/tables_builtin.c: 06_tuning/library/embed_tables.py $(wildcard 06_tuning/tables/*.tsv)
	@mkdir -p $(@D)
	python3 06_tuning/library/embed_tables.py $@ $(wildcard 06_tuning/tables/*.tsv)
$(S6)/library/tables_builtin.o: $(S6)/library/tables_builtin.c $(FLAGS_STAMP)
	$(CCACHE) $(CC) $(CFLAGS) -c $< -o $@
FAMILY_OBJS := $(S6)/library/cholesky_policy.o $(S6)/library/family.o $(patsubst 06_tuning/%.c,$(S6)/%.o,$(wildcard 06_tuning/family_*.c)) $(S6)/library/tuned.o $(S6)/tuned_env.o $(S6)/library/tables_builtin.o $(S6)/thread_orders.o $(S6)/rows_dispatch.o  \
	$(S6)/cyclic_dispatch.o $(S6)/cyclic_f64.o $(S6)/dmma_batched_f64.o $(S6)/staged_kernel.o $(S3_GRID) \
	$(patsubst 06_tuning/%.cu,$(S6)/%.o,$(wildcard 06_tuning/rows_part*.cu 06_tuning/cyclic_part*.cu)) $(BATCHED_OBJS)
# The one door (cholesky_plan.h) and what it launches: every program of the product links these.
# The public header alone, compiled with no stage folder on the include path: it stays self-contained.
$(S6)/library/header_alone.o: 06_tuning/library/cholesky_plan.h
	@mkdir -p $(@D)
	@printf '#include "cholesky_plan.h"\nint cholesky_header_alone;\n' | $(CC) -std=c11 -Wall -Werror -I06_tuning/library -I$(CUDA_HOME)/include -x c -c - -o $@
$(S6)/library/cholesky_plan.o: | $(S6)/library/header_alone.o
PLAN_OBJS := $(S6)/library/cholesky_plan.o $(S6)/library/door_status.o $(BUILD)/05_chunked/layout_convert.o $(FAMILY_OBJS)
# The probe of the student's kernels that gates the sanity groups running them (student_kernels.h).
PROBE_OBJS := $(S6)/student_kernels.o $(BUILD)/04_interleaved/batched_testing.o
$(S6)/test_tuning: $(S6)/test_tuning.o $(PROBE_OBJS) $(PLAN_OBJS) $(COMMON_LIB)
	$(LINK)
$(S6)/test_plan: $(S6)/test_plan.o $(PROBE_OBJS) $(PLAN_OBJS) $(COMMON_LIB)
	$(LINK)
$(S6)/test_float64: $(S6)/test_float64.o $(PLAN_OBJS) $(COMMON_LIB)
	$(LINK)
$(S6)/test_student_kernels: $(S6)/test_student_kernels.o $(PROBE_OBJS) $(FAMILY_OBJS) $(COMMON_LIB)
	$(LINK)
$(S6)/tune: $(S6)/tune.o $(FAMILY_OBJS) $(COMMON_LIB)
	$(LINK)
$(S6)/bench_tuned: LDLIBS += $(DX_LDLIBS)
$(S6)/bench_tuned: $(S6)/bench_tuned.o $(PLAN_OBJS) $(COMMON_LIB)
	$(LINK)
$(S6)/cholesky_tuned: $(S6)/cholesky_tuned.o $(PLAN_OBJS) $(BUILD)/04_interleaved/batched_driver.o $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(S6)/test_tuning $(S6)/test_plan $(S6)/test_float64 $(S6)/test_student_kernels $(S6)/tune $(S6)/bench_tuned $(S6)/cholesky_tuned
TEST_SUITES += stage-6
SUITE_DEPS_stage-6 := $(S6)/test_tuning $(S6)/test_plan $(S6)/test_float64 $(S6)/test_student_kernels $(S6)/cholesky_tuned $(BUILD)/datasets/gen_dataset $(BUILD)/datasets/dataset_check \
	$(S6)/libcourse_cholesky.so $(S6)/sanitize_tuning
SUITE_CMDS_stage-6 := $(S6)/test_tuning $(S6)/test_plan $(S6)/test_float64 "bash 06_tuning/test_driver.sh" "bash 06_tuning/python/test_python.sh" \
	"bash 06_tuning/test_barriers.sh"
SUITE_POINTS_stage-6 := 06_tuning/points.tsv
# A hang fails here: 10-15 times the suite's time on an H200 (87 s), minutes instead of half an hour.
SUITE_TIMEOUT_stage-6 := 1200
BENCH_STAGES += stage-6
BENCH_CMD_stage-6 := $(S6)/bench_tuned

# make tune: the sweep on this GPU (resumable); QUICK=1 for the few-minute version. It writes
# build/tune/<GPU>.tsv (quick: <GPU>-quick.tsv), stamped with the GPU's name, which `auto` then
# uses on this GPU (tuned.h: tuned_table_pick); checked in under 06_tuning/tables/ it serves a class.
.PHONY: tune
tune: $(S6)/tune
	$(S6)/tune $(if $(QUICK),--quick)

$(S6)/sanitize_tuning: $(S6)/sanitize_tuning.o $(BUILD)/04_interleaved/batched_small_run.o $(FAMILY_OBJS) $(COMMON_LIB)
	$(LINK)
ALL_BINS += $(S6)/sanitize_tuning
SANITIZE_STAGES += 6
SANITIZE_DEPS_6 := $(S6)/sanitize_tuning $(S6)/cholesky_tuned
SANITIZE_CMDS_6 := "$(S6)/sanitize_tuning" \
	"$(S6)/cholesky_tuned --n 41 --batch 300 --check 20 --max-gpu-memory 1M --output \$$SANITIZE_TMP/L.bin" \
	"$(S6)/cholesky_tuned --n 44 --batch 20000 --kernel cyclic --threads 32 --check 20"

# make tune-plots: the figures of the stage 06 README from 06_tuning/results/ (the committed H100
# sweep, benchmark and frameworks rows; copy your own build/tune/*.csv there as tune_<gpu>.csv).
.PHONY: tune-plots
tune-plots: $(VENV)/.installed
	$(VENV)/bin/python 06_tuning/plot_tuning.py 06_tuning/results 06_tuning

# make bench-gpumode: the shapes of gpu-mode's Cholesky leaderboard (bench_gpumode.c), auto against
# cuSOLVER, then torch, cupy and jax (frameworks.py --gpumode), then the table with geometric means.
$(S6)/bench_gpumode: $(S6)/bench_gpumode.o $(PLAN_OBJS) $(COMMON_LIB)
	$(LINK)
ALL_BINS += $(S6)/bench_gpumode
# make bench-float64: the door in float64 against cuSOLVER's Dpotrf(Batched): the float64 sweep of the
# cyclic kernel at n = 20..128 (1024 matrices and 1 GiB) and the whole-GPU path up to 32768 (bench_float64.c),
# then torch, cupy and jax in float64 on the same shapes, into the same CSV (frameworks.py --float64).
$(S6)/bench_float64: $(S6)/bench_float64.o $(PLAN_OBJS) $(COMMON_LIB)
	$(LINK)
ALL_BINS += $(S6)/bench_float64
.PHONY: bench-float64
bench-float64: $(S6)/bench_float64
	$(S6)/bench_float64 && python3 common/course/frameworks.py --float64
GPUMODE_CSV ?= $(BUILD)/bench-gpumode.csv
.PHONY: bench-gpumode
# Without a GPU bench_gpumode prints its one SKIP line and writes no row: the rest is left out.
bench-gpumode: $(S6)/bench_gpumode
	@mkdir -p $(BUILD) && rm -f $(GPUMODE_CSV)
	@BENCH_CSV=$(GPUMODE_CSV) $(S6)/bench_gpumode
	@if [ -s $(GPUMODE_CSV) ]; then BENCH_CSV=$(GPUMODE_CSV) python3 common/course/frameworks.py --gpumode && \
		python3 common/course/gpumode_table.py $(GPUMODE_CSV); fi

# make python: stage 06's auto as a shared library for Python (06_tuning/python/README.md): the
# kernel family's objects (built position-independent) and a thin C layer, loaded with ctypes.
# Its failures are values returned to the door (common/cuda_check.h's CUDA_TRY): nothing in the
# library may end the caller's process. The link map names every object that went in; the check
# fails the build if one of them references exit, abort or longjmp. It exports only what the
# package loads (python/course_cholesky.map).
$(S6)/libcourse_cholesky.so: $(S6)/python/course_cholesky.o $(PLAN_OBJS) $(COMMON_LIB) 06_tuning/python/course_cholesky.map
	$(NVCC) -shared $(LDFLAGS) $(filter %.o %.a,$^) -o $@ $(LDLIBS) -Xlinker -Map=$@.map \
		-Xlinker --version-script=06_tuning/python/course_cholesky.map
	@bash 06_tuning/library/check_no_exit.sh $@.map $(COMMON_LIB) || { rm -f $@; exit 1; }
ALL_BINS += $(S6)/libcourse_cholesky.so
.PHONY: python
python: $(S6)/libcourse_cholesky.so
	@echo "import it with: pip install -e 06_tuning/python (once), or PYTHONPATH=06_tuning/python"

# make profile KERNEL=rows|cyclic|staged|thread|tiles|grid [ARGS="..."] [NCU_ARGS="..."]: Nsight Compute on one
# configuration: the driver factors a generated batch with that kernel (ARGS: the rest of its options,
# default --n 64 --batch 65536), and ncu records the first factorization launch into
# build/profile/KERNEL.ncu-rep. ncu locks the clocks and flushes the caches for each launch: for
# durations like the benchmarks' add --clock-control none --cache-control none to NCU_ARGS.
NCU_ARGS ?= --set full --launch-count 1
.PHONY: profile
profile: # checks first, then builds the driver (a bad request costs no build)
	@[ -n "$(KERNEL)" ] || { echo "make profile: say which kernel: KERNEL=rows|cyclic|staged|thread|tiles|grid (ARGS=\"...\": the driver's other options)"; exit 2; }
	@command -v ncu >/dev/null || { echo "make profile: Nsight Compute (ncu) is not on the PATH"; exit 2; }
	@nvidia-smi -L >/dev/null 2>&1 || { echo "make profile: no GPU here"; exit 2; }
	@$(MAKE) --no-print-directory $(S6)/cholesky_tuned && mkdir -p $(BUILD)/profile
	ncu $(NCU_ARGS) --kernel-name regex:'potrf_|task_kernel|update_' -f -o $(BUILD)/profile/$(KERNEL) \
		$(S6)/cholesky_tuned --kernel $(KERNEL) $(or $(ARGS),--n 64 --batch 65536) --check 1
	@echo "report: $(BUILD)/profile/$(KERNEL).ncu-rep (ncu-ui, or ncu --import $(BUILD)/profile/$(KERNEL).ncu-rep --page details)"

# The installable C library (make lib, make install PREFIX=dir): library/library.mk.
include 06_tuning/library/library.mk
