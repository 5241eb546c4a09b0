# 02_single_tile: the tile helpers and one matrix in one tile.
S2 := $(BUILD)/02_single_tile
$(S2)/%.o: CFLAGS += -I02_single_tile -I01_serial
$(S2)/%.o $(S2)/%.res: NVCCFLAGS += -I02_single_tile
$(S2)/test_single_tile: $(S2)/test_single_tile.o $(S2)/single_tile.o $(COMMON_LIB)
	$(LINK)
$(S2)/bench_single_tile: $(S2)/bench_single_tile.o $(S2)/single_tile.o $(BUILD)/01_serial/cholesky_serial.o $(BUILD)/01_serial/serial_timing.o $(COMMON_LIB)
	$(LINK)

$(S2)/sanitize_single_tile: $(S2)/sanitize_single_tile.o $(S2)/single_tile.o $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(S2)/test_single_tile $(S2)/bench_single_tile $(S2)/sanitize_single_tile
SANITIZE_STAGES += 2
SANITIZE_DEPS_2 := $(S2)/sanitize_single_tile
SANITIZE_CMDS_2 := "$(S2)/sanitize_single_tile"
TEST_SUITES += stage-2
SUITE_DEPS_stage-2 := $(S2)/test_single_tile $(S2)/sanitize_single_tile
SUITE_CMDS_stage-2 := $(S2)/test_single_tile "bash 02_single_tile/test_barriers.sh"
SUITE_POINTS_stage-2 := 02_single_tile/points.tsv
# A hang fails here: three minutes (the tests take 0.6 s on an H200, racecheck about a minute).
SUITE_TIMEOUT_stage-2 := 180
BENCH_STAGES += stage-2
BENCH_CMD_stage-2 := $(S2)/bench_single_tile
