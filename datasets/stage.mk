# datasets/: the generator CLI, the checker CLI and the hp3 study.
DEFAULT_DATASET := datasets/data/default.bin

$(BUILD)/datasets/%: $(BUILD)/datasets/%.o $(COMMON_LIB)
	$(LINK)
# Kept (not make's intermediates): make would delete them at the end with an "rm" line, after the
# summary that must be the last line of make test.
.SECONDARY: $(BUILD)/datasets/gen_dataset.o $(BUILD)/datasets/dataset_check.o $(BUILD)/datasets/hp3_study.o

ALL_BINS += $(BUILD)/datasets/gen_dataset $(BUILD)/datasets/dataset_check $(BUILD)/datasets/hp3_study

# The default dataset: 4096 spd matrices of order 64, seed 2017 (common/generator.h).
$(DEFAULT_DATASET): $(BUILD)/datasets/gen_dataset
	@mkdir -p $(@D)
	$(BUILD)/datasets/gen_dataset --family spd --n 64 --count 4096 --seed 2017 --out $@

dataset: $(DEFAULT_DATASET)

.PHONY: hp3-study
hp3-study: $(BUILD)/datasets/hp3_study
	$(BUILD)/datasets/hp3_study
