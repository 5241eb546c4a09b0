# 01_serial: serial and OpenMP Cholesky on the CPU.
S1 := $(BUILD)/01_serial
$(S1)/%.o: CFLAGS += -I01_serial
$(S1)/test_serial: $(S1)/test_serial.o $(S1)/cholesky_serial.o $(COMMON_LIB)
	$(LINK)
$(S1)/bench_serial: $(S1)/bench_serial.o $(S1)/cholesky_serial.o $(S1)/serial_timing.o $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(S1)/test_serial $(S1)/bench_serial
TEST_SUITES += stage-1
SUITE_DEPS_stage-1 := $(S1)/test_serial $(S1)/bench_serial
SUITE_CMDS_stage-1 := $(S1)/test_serial "bash 01_serial/test_cli_serial.sh"
SUITE_POINTS_stage-1 := 01_serial/points.tsv
# About ten times the suite's normal time (2 s on 2 cores without a GPU), so a hang is told quickly.
SUITE_TIMEOUT_stage-1 := 20
BENCH_STAGES += stage-1
BENCH_CMD_stage-1 := $(S1)/bench_serial
