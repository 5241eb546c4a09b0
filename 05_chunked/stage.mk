# 05_chunked: the stage 04 kernels on the chunked interleaved layout, and the tiled layout converters.
S5 := $(BUILD)/05_chunked
$(S5)/%.o: CFLAGS += -I05_chunked -I04_interleaved -I03_left_right_top
$(S5)/%.o $(S5)/%.res: NVCCFLAGS += -I05_chunked
$(S5)/test_chunked: $(S5)/test_chunked.o $(S5)/layout_convert.o $(BUILD)/04_interleaved/batched_testing.o $(BATCHED_OBJS) $(COMMON_LIB)
	$(LINK)
$(S5)/bench_chunked: $(S5)/bench_chunked.o $(S5)/layout_convert.o $(BUILD)/04_interleaved/batched_bench.o $(BATCHED_OBJS) $(COMMON_LIB)
	$(LINK)

$(S5)/sanitize_chunked: $(S5)/sanitize_chunked.o $(S5)/layout_convert.o $(BUILD)/04_interleaved/batched_small_run.o $(BATCHED_OBJS) $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(S5)/test_chunked $(S5)/bench_chunked $(S5)/sanitize_chunked
SANITIZE_STAGES += 5
SANITIZE_DEPS_5 := $(S5)/sanitize_chunked
SANITIZE_CMDS_5 := "$(S5)/sanitize_chunked"
TEST_SUITES += stage-5
SUITE_DEPS_stage-5 := $(S5)/test_chunked $(S5)/sanitize_chunked
SUITE_CMDS_stage-5 := $(S5)/test_chunked "bash 05_chunked/test_barriers.sh"
SUITE_POINTS_stage-5 := 05_chunked/points.tsv
# A hang fails here: 10-15 times the suite's time on an H200 (19 s), minutes instead of half an hour.
SUITE_TIMEOUT_stage-5 := 300
BENCH_STAGES += stage-5
BENCH_CMD_stage-5 := $(S5)/bench_chunked
# make load-test: a batch that fills the GPU, through the driver and the benchmark; two processes.
.PHONY: load-test
load-test: $(BUILD)/04_interleaved/cholesky_batched $(S5)/bench_chunked $(BUILD)/common/tests/gpu_hold
	@mkdir -p $(RESULTS)
	@python3 common/course/run_suite.py --suite load-test --points common/points-load.tsv --results $(RESULTS) --timeout 1200 -- 'bash 05_chunked/load_test.sh'
	@python3 common/course/test_summary.py $(RESULTS)/load-test.json
