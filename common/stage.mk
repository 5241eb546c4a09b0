# common/: the shared library (built by the top Makefile) and its tests.
$(BUILD)/common/tests/test_common: $(BUILD)/common/tests/test_common.o $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(BUILD)/common/tests/test_common
TEST_SUITES += common
SUITE_DEPS_common := $(BUILD)/common/tests/test_common $(BUILD)/datasets/gen_dataset $(BUILD)/datasets/dataset_check
SUITE_CMDS_common := $(BUILD)/common/tests/test_common 'bash datasets/test_cli.sh $(BUILD)/datasets'
SUITE_POINTS_common := common/points.tsv
SUITE_TIMEOUT_common := 600
