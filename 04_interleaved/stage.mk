# 04_interleaved: batched Cholesky on the simple interleaved layout (and the kernels stage 05 reuses).
S4 := $(BUILD)/04_interleaved
$(S4)/%.o: CFLAGS += -I04_interleaved -I03_left_right_top -I01_serial
$(S4)/%.o $(S4)/%.res: NVCCFLAGS += -I04_interleaved -I03_left_right_top -I02_single_tile
BATCHED_OBJS := $(S4)/batched_cholesky.o $(S4)/batched_tiles.o $(S4)/thread_per_matrix.o $(BUILD)/03_left_right_top/tiled_cholesky.o
$(S4)/test_interleaved: $(S4)/test_interleaved.o $(S4)/batched_testing.o $(BATCHED_OBJS) $(COMMON_LIB)
	$(LINK)
$(S4)/bench_interleaved: $(S4)/bench_interleaved.o $(S4)/batched_bench.o $(BATCHED_OBJS) $(COMMON_LIB)
	$(LINK)
$(S4)/cholesky_batched: $(S4)/cholesky_batched.o $(S4)/batched_driver.o $(BATCHED_OBJS) $(COMMON_LIB)
	$(LINK)

$(S4)/sanitize_interleaved: $(S4)/sanitize_interleaved.o $(S4)/batched_small_run.o $(BATCHED_OBJS) $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(S4)/test_interleaved $(S4)/bench_interleaved $(S4)/cholesky_batched $(S4)/sanitize_interleaved
# The driver's sliced pipeline too: 300 matrices through a 1 MiB budget are 7 slices.
SANITIZE_STAGES += 4
SANITIZE_DEPS_4 := $(S4)/sanitize_interleaved $(S4)/cholesky_batched
SANITIZE_CMDS_4 := "$(S4)/sanitize_interleaved" \
	"$(S4)/cholesky_batched --n 33 --batch 300 --chunk 16 --check 20 --max-gpu-memory 1M --output \$$SANITIZE_TMP/L.bin"
TEST_SUITES += stage-4
SUITE_DEPS_stage-4 := $(S4)/test_interleaved $(S4)/cholesky_batched $(BUILD)/datasets/gen_dataset $(BUILD)/datasets/dataset_check
SUITE_CMDS_stage-4 := $(S4)/test_interleaved "bash 04_interleaved/test_driver.sh"
SUITE_POINTS_stage-4 := 04_interleaved/points.tsv
# A hang fails here: 10-15 times the suite's time on an H200 (22 s), minutes instead of half an hour.
SUITE_TIMEOUT_stage-4 := 360
BENCH_STAGES += stage-4
BENCH_CMD_stage-4 := $(S4)/bench_interleaved
