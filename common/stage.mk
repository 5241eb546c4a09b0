# common/: the shared library (built by the top Makefile) and its tests.
$(BUILD)/common/tests/test_common: $(BUILD)/common/tests/test_common.o $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(BUILD)/common/tests/test_common
TEST_SUITES += common
SUITE_DEPS_common := $(BUILD)/common/tests/test_common $(BUILD)/datasets/gen_dataset $(BUILD)/datasets/dataset_check
SUITE_CMDS_common := $(BUILD)/common/tests/test_common 'bash datasets/test_cli.sh $(BUILD)/datasets'
SUITE_POINTS_common := common/points.tsv
SUITE_TIMEOUT_common := 600

# The grading machinery itself (kit, crash and hang handling, grading without a GPU). Slow: it
# builds the course three times, so it is not in `make test`; CI runs it, and `make test-grading`.
GRADING_POINTS := common/points-grading.tsv
.PHONY: test-grading
test-grading: all
	@python3 common/run_suite.py --suite grading --points $(GRADING_POINTS) --results $(RESULTS) --timeout 3600 -- 'bash common/tests/test_grading.sh'
	@python3 common/test_summary.py $(RESULTS)/grading.json
