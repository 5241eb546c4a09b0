# 03_left_right_top: tiled right-, left- and top-looking Cholesky of one matrix.
S3 := $(BUILD)/03_left_right_top
# Part 2's objects: the tile tasks, the launch loops (the student's), the frame, its choices.
# grid_program.o: the programs' calls, which read the environment (never in stage 06's library: LIB_OBJS).
S3_GRID := $(S3)/grid_f64.o $(S3)/grid_tasks.o $(S3)/grid_schedule.o $(S3)/grid_cholesky.o $(S3)/grid_policy.o $(S3)/grid_program.o
$(S3)/%.o: CFLAGS += -I03_left_right_top -I01_serial
$(S3)/%.o $(S3)/%.res: NVCCFLAGS += -I03_left_right_top -I02_single_tile
# A Hopper build compiles the tile tasks for sm_90a, Hopper's arch-specific target, so that the update
# may run on the warpgroup MMA (grid_wgmma.cuh; the default there, GRID_WGMMA=0 turns it off). The code
# runs on compute capability 9.0 only, as the sm_90 build's does.
ifeq ($(SM_LIST),90)
$(S3)/grid_tasks.o: NVCCFLAGS := $(filter-out $(GENCODE),$(NVCCFLAGS)) -gencode arch=compute_90a,code=[sm_90a,compute_90a] \
	-DGRID_WGMMA_BUILT -I03_left_right_top -I02_single_tile
else ifneq ($(filter 90,$(SM_LIST)),)
# A build for several architectures (ARCHS, the installed library's): sm_90a's SASS where 90 is
# named, the others' as they are, and the PTX of the last (which never runs the warpgroup MMA).
$(S3)/grid_tasks.o: NVCCFLAGS := $(filter-out $(GENCODE),$(NVCCFLAGS)) -DGRID_WGMMA_BUILT -I03_left_right_top -I02_single_tile \
	$(foreach a,$(SM_LIST),-gencode arch=compute_$(a)$(if $(filter 90,$(a)),a),code=sm_$(a)$(if $(filter 90,$(a)),a)) \
	-gencode arch=compute_$(SM),code=compute_$(SM)
endif
$(S3)/test_tiled: $(S3)/test_tiled.o $(S3)/tiled_cholesky.o $(COMMON_LIB)
	$(LINK)
$(S3)/bench_tiled: $(S3)/bench_tiled.o $(S3)/tiled_cholesky.o $(BUILD)/01_serial/cholesky_serial.o $(BUILD)/01_serial/serial_timing.o $(COMMON_LIB)
	$(LINK)

$(S3)/sanitize_tiled: $(S3)/sanitize_tiled.o $(S3)/tiled_cholesky.o $(S3_GRID) $(COMMON_LIB)
	$(LINK)

# Part 2: one large matrix over the whole GPU.
$(S3)/test_grid: $(S3)/test_grid.o $(S3_GRID) $(COMMON_LIB)
	$(LINK)
$(S3)/bench_grid: $(S3)/bench_grid.o $(S3_GRID) $(S3)/tiled_cholesky.o $(COMMON_LIB)
	$(LINK)
$(S3)/cholesky_one: $(S3)/cholesky_one.o $(S3_GRID) $(S3)/tiled_cholesky.o $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(S3)/test_tiled $(S3)/bench_tiled $(S3)/sanitize_tiled $(S3)/test_grid $(S3)/bench_grid $(S3)/cholesky_one
SANITIZE_STAGES += 3
SANITIZE_DEPS_3 := $(S3)/sanitize_tiled
SANITIZE_CMDS_3 := "$(S3)/sanitize_tiled"
TEST_SUITES += stage-3
SUITE_DEPS_stage-3 := $(S3)/test_tiled $(S3)/test_grid $(S3)/cholesky_one $(S3)/sanitize_tiled
SUITE_CMDS_stage-3 := $(S3)/test_tiled $(S3)/test_grid "bash 03_left_right_top/test_driver.sh" \
	"bash 03_left_right_top/test_barriers.sh"
SUITE_POINTS_stage-3 := 03_left_right_top/points.tsv
SUITE_TIMEOUT_stage-3 := 900
BENCH_STAGES += stage-3
BENCH_CMD_stage-3 := sh -c '$(S3)/bench_tiled && $(S3)/bench_grid && python3 common/course/frameworks.py --single'

# The picture of part 2 from a bench CSV (default: the committed H100 run).
GRID_CSV ?= 03_left_right_top/results/bench_grid_h100.csv
.PHONY: plot-stage-3
plot-stage-3: .venv/.installed
	$(VENV)/bin/python 03_left_right_top/plot_grid.py $(GRID_CSV) 03_left_right_top/results/whole_gpu.png
	$(VENV)/bin/python 03_left_right_top/plot_precision.py 03_left_right_top/results/precision_h100.csv 03_left_right_top/results/precision.png
	@if [ -s 03_left_right_top/results/precision_h200.csv ]; then $(VENV)/bin/python 03_left_right_top/plot_precision.py \
		03_left_right_top/results/precision_h200.csv 03_left_right_top/results/precision_medium.png; \
	else echo "no 03_left_right_top/results/precision_h200.csv yet (plot_precision.py --measure on an H200 writes it)"; fi
