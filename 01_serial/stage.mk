# 01_serial: serial and OpenMP Cholesky on the CPU.
S1 := $(BUILD)/01_serial
$(S1)/%.o: CFLAGS += -I01_serial
$(S1)/test_serial: $(S1)/test_serial.o $(S1)/first_touch.o $(S1)/cholesky_serial.o $(COMMON_LIB)
	$(LINK)
$(S1)/bench_serial: $(S1)/bench_serial.o $(S1)/cholesky_serial.o $(S1)/serial_timing.o $(COMMON_LIB)
	$(LINK)

# The OpenMP batch under ThreadSanitizer, which test_serial runs before its openmp group: threads that
# share a variable by mistake race, and it reports that on any CPU count (test_openmp_race.c).
# Its own flags: ThreadSanitizer does not mix with SAN=1's AddressSanitizer.
TSAN_CFLAGS := -std=c11 -O2 -g -fopenmp -fsanitize=thread -Icommon -I01_serial
$(S1)/tsan/%.o: 01_serial/%.c $(MAKEFILE_LIST)
	@mkdir -p $(@D)
	$(CC) $(TSAN_CFLAGS) -c $< -o $@
$(S1)/test_openmp_race: $(S1)/tsan/test_openmp_race.o $(S1)/tsan/cholesky_serial.o
	$(CC) $(TSAN_CFLAGS) $^ -o $@ -lm

ALL_BINS += $(S1)/test_serial $(S1)/bench_serial $(S1)/test_openmp_race
TEST_SUITES += stage-1
SUITE_DEPS_stage-1 := $(S1)/test_serial $(S1)/bench_serial $(S1)/test_openmp_race
SUITE_CMDS_stage-1 := $(S1)/test_serial "bash 01_serial/test_cli_serial.sh"
SUITE_POINTS_stage-1 := 01_serial/points.tsv
# About ten times the suite's normal time (2 s on 2 cores without a GPU), so a hang is told quickly.
SUITE_TIMEOUT_stage-1 := 20
BENCH_STAGES += stage-1
BENCH_CMD_stage-1 := $(S1)/bench_serial
