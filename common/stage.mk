# common/: the shared library (built by the top Makefile) and its tests.
$(BUILD)/common/tests/test_common: $(BUILD)/common/tests/test_common.o $(COMMON_LIB)
	$(LINK)

# The fuzz target of the readers and parsers (tests/fuzz_readers.c): make fuzz builds it with the
# sanitizers (make SAN=1) and mutates the seed corpus for FUZZ_SECONDS (CI: 60).
$(BUILD)/common/tests/fuzz_readers: $(BUILD)/common/tests/fuzz_readers.o $(COMMON_LIB)
	$(LINK)
FUZZ_SECONDS ?= 60
.PHONY: fuzz
# It builds (with SAN=1) the fuzz target and every program fuzz_cli.py runs (its --programs list).
fuzz:
	@$(MAKE) --no-print-directory SAN=1 build-san/common/tests/fuzz_readers $$(python3 common/tests/fuzz_cli.py --programs build-san)
	@mkdir -p build-san/test-results
	@python3 common/course/run_suite.py --suite fuzz --points common/points-fuzz.tsv --results build-san/test-results \
		--timeout $$(($(FUZZ_SECONDS) + 300)) -- 'bash common/tests/fuzz.sh $(FUZZ_SECONDS)'
	@python3 common/course/test_summary.py build-san/test-results/fuzz.json

$(BUILD)/common/tests/gpu_hold: $(BUILD)/common/tests/gpu_hold.o $(COMMON_LIB)
	$(LINK)

ALL_BINS += $(BUILD)/common/tests/test_common $(BUILD)/common/tests/gpu_hold
TEST_SUITES += common
# Only common/ and datasets/: make test-common builds nothing of the stages (the checks that read
# every stage, its READMEs, programs and sources, are the course suite: common/course/course.mk).
SUITE_DEPS_common := $(BUILD)/common/tests/test_common $(BUILD)/datasets/gen_dataset $(BUILD)/datasets/dataset_check \
	$(BUILD)/datasets/hp3_study
SUITE_CMDS_common := $(BUILD)/common/tests/test_common 'bash datasets/test_cli.sh $(BUILD)/datasets'
SUITE_POINTS_common := common/points.tsv
SUITE_TIMEOUT_common := 600

# The grading machinery itself (kit, crash and hang handling, grading without a GPU). Slow: it
# builds the course three times, so it is not in `make test`; CI runs it, and `make test-grading`.
GRADING_POINTS := common/points-grading.tsv
.PHONY: test-grading
ifeq ($(IN_KIT),) # (a student kit has neither: the top Makefile says so)
test-grading: all
	@python3 common/course/run_suite.py --suite grading --points $(GRADING_POINTS) --results $(RESULTS) --timeout 3600 -- 'bash common/tests/test_grading.sh'
	@python3 common/course/test_summary.py $(RESULTS)/grading.json

# Every documented target alone on a fresh clone of this repository, without a GPU
# (common/tests/test_fresh_targets.sh): make test-common, fuzz, bench-gpumode, plots, sass and the
# Slurm script. Builds the course in the clone (CCACHE=ccache helps); CI runs it, not make test.
.PHONY: test-fresh-targets
test-fresh-targets:
	@python3 common/course/run_suite.py --suite fresh-targets --points common/points-fresh.tsv --results $(RESULTS) --timeout 3600 -- 'bash common/tests/test_fresh_targets.sh'
	@python3 common/course/test_summary.py $(RESULTS)/fresh-targets.json

# make grade-class for real (common/tests/test_grade_class.sh): three submissions graded here and
# through the Slurm cluster that is running (CI starts a one-node one with .ci/slurm-up), one task
# cancelled mid-run. Slow (about ten builds of the course; CCACHE=ccache helps), not in `make test`.
.PHONY: test-grade-class
test-grade-class: all
	@python3 common/course/run_suite.py --suite grade-class --points common/points-grade-class.tsv --results $(RESULTS) --timeout 5400 -- 'bash common/tests/test_grade_class.sh'
	@python3 common/course/test_summary.py $(RESULTS)/grade-class.json

endif

# The torch.distributed example's batch script through the Slurm cluster that is running
# (06_tuning/python/test_slurm_distributed.sh): make slurm-script TARGET=distributed, sbatch, the ranks
# Slurm gave. Seconds; CI runs it while its one-node cluster is up, not make test.
.PHONY: test-slurm-distributed
test-slurm-distributed:
	@python3 common/course/run_suite.py --suite slurm-distributed --points common/points-slurm-distributed.tsv --results $(RESULTS) --timeout 600 -- 'bash 06_tuning/python/test_slurm_distributed.sh'
	@python3 common/course/test_summary.py $(RESULTS)/slurm-distributed.json

# cuSolverDx, the device-side peer of make bench-stage-6 (cusolverdx_peer.h). libmathdx is loaded at
# run time from what `make cusolverdx` unpacks into build/mathdx/ (the pinned wheel from PyPI, or
# MATHDX_WHEEL=FILE for one downloaded elsewhere: GPU machines often reach no registry); the
# generated kernels are cached in build/mathdx/cache/. Without it the peer is left out.
MATHDX_PIN := nvidia-libmathdx-cu13==0.4.1.15
MATHDX_DIR := $(abspath $(BUILD))/mathdx
$(BUILD)/common/cusolverdx_peer.o: CFLAGS += -DCUSOLVERDX_DEFAULT_LIB='"$(MATHDX_DIR)/nvidia/cu13/lib/libmathdx.so.0"' \
	-DCUSOLVERDX_DEFAULT_CACHE='"$(MATHDX_DIR)/cache"'
DX_LDLIBS := -lnvrtc -lnvJitLink -ldl
.PHONY: cusolverdx
cusolverdx: $(if $(MATHDX_WHEEL),,$(VENV)/.installed)
	@mkdir -p $(MATHDX_DIR)
	@wheel="$(MATHDX_WHEEL)"; \
	if [ -z "$$wheel" ]; then \
		$(VENV)/bin/pip download -q --no-deps --only-binary :all: -d $(MATHDX_DIR)/wheel '$(MATHDX_PIN)' && \
		wheel=$$(ls $(MATHDX_DIR)/wheel/nvidia_libmathdx_cu13-0.4.1.15-*.whl); \
	fi; \
	python3 -m zipfile -e "$$wheel" $(MATHDX_DIR) && \
	echo "libmathdx: $(MATHDX_DIR)/nvidia/cu13/lib/libmathdx.so.0 (make bench-stage-6 now times cuSolverDx)"
