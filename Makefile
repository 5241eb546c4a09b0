# Batched Cholesky in CUDA C - the course's one build.  `make help` lists the targets.
#
# Host code is C11 (gcc), kernels CUDA C (nvcc); everything lands in build/.
# ARCH is read off the GPU (nvidia-smi) when there is one, sm_75 otherwise (it compiles without a
# GPU and its PTX runs on any newer GPU); ARCH=sm_XX overrides. CI=true skips the detection.
# -lineinfo always; -G only with DEBUG=1 (never benchmark a DEBUG build).

SHELL := /bin/bash
# SAN=1: the host code with AddressSanitizer and UndefinedBehaviorSanitizer, built apart in
# build-san/ (make SAN=1 test runs every test that way; kernels are checked by make sanitize).
BUILD := $(if $(filter 1,$(SAN)),build-san,build)
export BUILD
RESULTS := $(BUILD)/test-results
NVCC ?= nvcc
# CCACHE: compile through ccache, used when it is installed (grading builds many copies of the course
# that differ in a few files); CCACHE= turns it off.
CCACHE ?= $(if $(shell command -v ccache 2>/dev/null),ccache)
CC := gcc
CUDA_HOME ?= $(abspath $(dir $(shell command -v $(NVCC) 2>/dev/null))/..)

# ARCHS="80 90": several architectures in one build (the installed library's: make lib), SASS for
# each and PTX of the last; one word is ARCH=sm_<it>.
ifeq ($(words $(ARCHS)),1)
  ARCH := sm_$(strip $(ARCHS))
endif
ifeq ($(strip $(ARCH)),)
  ifneq ($(CI),true)
    DETECTED_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
  endif
  ARCH := sm_$(if $(DETECTED_CC),$(DETECTED_CC),75)
endif
SM := $(patsubst sm_%,%,$(ARCH))
GENCODE := -gencode arch=compute_$(SM),code=[sm_$(SM),compute_$(SM)]
SM_LIST := $(SM)
ifneq ($(filter-out 0 1,$(words $(ARCHS))),)
  SM := $(lastword $(ARCHS))
  SM_LIST := $(ARCHS)
  GENCODE := $(foreach a,$(ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) -gencode arch=compute_$(SM),code=compute_$(SM)
endif

ifeq ($(DEBUG),1)
  OPT := -O0 -g
  NVDEBUG := -G -DDEBUG_SYNC
else
  OPT := -O3
endif

# -fPIC: the same objects also make stage 06's shared library for Python (make python).
CFLAGS := -std=c11 $(OPT) -Wall -Wextra -fopenmp -fPIC -Icommon -I$(CUDA_HOME)/include
NVCCFLAGS := $(OPT) -lineinfo $(NVDEBUG) $(GENCODE) -std=c++17 -Icommon -Xcompiler -fopenmp,-Wall,-fPIC
LDFLAGS := $(GENCODE) -Xcompiler -fopenmp -L$(CUDA_HOME)/lib64
LDLIBS := -lcusolver -lcudart -lm
ifeq ($(SAN),1)
  # -g: a report's frames name the file and line (the test runner quotes the first one in your code).
  SANFLAGS := -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
  CFLAGS += $(SANFLAGS)
  NVCCFLAGS += -g -Xcompiler -fsanitize=address,-fsanitize=undefined,-fno-sanitize-recover=undefined,-fno-omit-frame-pointer
  LDFLAGS += -Xcompiler -fsanitize=address,-fsanitize=undefined
  # protect_shadow_gap=0: the CUDA driver maps memory where ASan keeps its shadow gap. exitcode=66:
  # a sanitizer's abort is a crash, not the exit status 1 of a failed test.
  export ASAN_OPTIONS := protect_shadow_gap=0:detect_leaks=1:abort_on_error=0:exitcode=66
  export LSAN_OPTIONS := suppressions=$(abspath common/lsan.supp):print_suppressions=0:exitcode=66
  export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1:exitcode=66
  # Sanitized programs run several times slower: every suite's time limit is stretched.
  export TEST_TIMEOUT_SCALE ?= 5
endif
ifeq ($(DEBUG),1)
  export TEST_TIMEOUT_SCALE ?= 10
endif
LINK = $(NVCC) $(LDFLAGS) $(filter %.o %.a,$^) -o $@ $(LDLIBS)

# The commit stamped on every benchmark row. A student kit is no git repository: its COURSE_VERSION
# file (written by make student-kit) names the course's commit it was made from.
IN_KIT := $(wildcard COURSE_VERSION)
ifneq ($(IN_KIT),)
  export GIT_COMMIT ?= kit of $(shell head -n 1 COURSE_VERSION)
else
  export GIT_COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
endif

# Rebuild everything when the target architecture or DEBUG changes, or the flags below do (-pic:
# since the objects are position-independent, for the Python library).
FLAGS_STAMP := $(BUILD)/.flags-$(subst $() ,-,$(strip $(SM_LIST)))-pic$(if $(filter 1,$(DEBUG)),-debug)
$(FLAGS_STAMP):
	@mkdir -p $(BUILD) && rm -f $(BUILD)/.flags-* && touch $@

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CCACHE) $(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/%.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CCACHE) $(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

# ---- common/ ---------------------------------------------------------------------------------
COMMON_SRC := $(wildcard common/*.c) $(wildcard common/*.cu)
COMMON_OBJ := $(patsubst %,$(BUILD)/%.o,$(basename $(COMMON_SRC)))
COMMON_LIB := $(BUILD)/common/libcommon.a
$(COMMON_LIB): $(COMMON_OBJ)
	ar rcs $@ $^

# Every stage registers its programs, tests and benchmarks in its stage.mk:
#   ALL_BINS += programs;  TEST_SUITES += name;  SUITE_CMDS_name := commands;  SUITE_DEPS_name := files
#   BENCH_STAGES += name;  BENCH_CMD_name := command
# matplotlib lives in a local virtual environment, made from requirements.txt on first use (set
# before the stage.mk files, whose plot targets name it as a prerequisite).
VENV := .venv
ALL_BINS :=
TEST_SUITES :=
SANITIZE_STAGES :=
BENCH_STAGES :=
include common/stage.mk datasets/stage.mk
include $(sort $(wildcard 0*/stage.mk))
# The course-level checks, after every stage (common/course/course.mk).
include common/course/course.mk

.DEFAULT_GOAL := all
.PHONY: all help test bench dataset clean plots layout-pictures $(addprefix test-,$(TEST_SUITES)) $(addprefix build-,$(TEST_SUITES)) $(addprefix bench-,$(BENCH_STAGES))

all: $(ALL_BINS)

help:
	@echo "Students"
	@echo "  make               build everything into build/ (ARCH=$(ARCH); override with ARCH=sm_XX, DEBUG=1 for -G)"
	@echo "  make bench         the main job: every stage's benchmark on the default seeded data, one table + build/bench.csv"
	@echo "  make test          every test; ends with 'N passed, N failed, N skipped' and the points table"
	@echo "  make test-<suite>  one suite, e.g. make test-stage-N: $(addprefix test-,$(TEST_SUITES))"
	@echo "  make build-<suite> only compile what a suite runs (no GPU needed): $(addprefix build-,$(TEST_SUITES))"
	@echo "  make bench-<stage> one stage's benchmark, e.g. make bench-stage-N: $(addprefix bench-,$(BENCH_STAGES))"
	@echo "  make sanitize-stage-N  stage N's kernels under compute-sanitizer; make sanitize: every stage"
	@echo "  make bench-gpumode [GPUMODE_CSV=FILE]   the gpu-mode Cholesky grid (n = 32..32768): auto vs cuSOLVER, torch, cupy, jax"
	@echo "  make bench-float64                   float64 through the door: the cyclic sweep (n = 20..128) and whole GPU vs cuSOLVER's Dpotrf, torch, cupy, jax"
	@echo "  make cusolverdx [MATHDX_WHEEL=FILE]   fetch libmathdx (cuSolverDx, pinned) so that make bench-stage-6 times it as a peer"
	@echo "  make tune [QUICK=1]    stage 06's sweep on this GPU (resumable), then its tuned table"
	@echo "  make python        stage 06's auto as a Python library (06_tuning/python: torch and cupy arrays)"
	@echo "  make lib [LIB_ARCHS=\"80 90\"]   stage 06's door as a C library: libcourse_cholesky .so (SONAME .so.1) and .a, for this GPU or sm_80 + sm_90a + PTX"
	@echo "  make install PREFIX=dir [LIB_ARCHS=...]   the header, libraries, pkg-config and CMake files into dir (06_tuning/library/README.md)"
	@echo "  make slurm-script TARGET=test|bench|tune [OUT=job.sh]   a batch script for one GPU of a Slurm cluster"
	@echo "  make slurm-script TARGET=distributed NODES=N GPUS=G [ARGS=...]   torch.distributed over N x G GPUs (06_tuning/python)"
	@echo "  make dataset       write the default dataset ($(DEFAULT_DATASET))"
	@echo "  make hp3-study     how often the seed project's recipe is not positive definite (datasets/README.md)"
	@echo "Pictures (install matplotlib into .venv on first use)"
	@echo "  make plots         plot build/bench.csv into build/plots/"
	@echo "  make plot-stage-3 [GRID_CSV=F]  stage 03's whole-GPU picture (default: the committed H100 run)"
	@echo "  make tune-plots    the figures of the stage 06 README from 06_tuning/results/"
	@echo "  make layout-pictures  redraw the layout pictures of the stage 04 and 05 READMEs"
ifneq ($(IN_KIT),)
	@echo "Your grade"
	@echo "  make grade [STAGE=N]   the points an instructor's make grade gives for the tests this kit can run, stage by stage"
	@echo "Checks"
else
	@echo "Instructors"
	@echo "  make student-kit   write build/student-kit/ (+ .tar.gz): the course with every solution region a stub"
	@echo "  make grade SUBMISSION=DIR [STAGE=N]   grade a submitted kit (build/grade/results.json, Gradescope format)"
	@echo "  make grade-class SUBMISSIONS=DIR [STAGE=N] [SLURM=1|0]   grade a class (Slurm job array, or one per GPU); build/class/"
	@echo "  make leaderboard CSVS=\"a.csv b.csv\"   rank students' bench CSVs per GPU (build/leaderboard.png)"
	@echo "Checks of the course itself"
	@echo "  make test-grading  the kit, make grade, planted mistakes, crashes and hangs (slow: builds the course three times)"
	@echo "  make test-grade-class  make grade-class for real: here and through the running Slurm cluster (slow)"
endif
	@echo "  make SAN=1 test    every test with the host code under ASan/UBSan (build-san/)"
	@echo "  make test-slurm-distributed  the torch.distributed example's batch script through the running Slurm cluster"
	@echo "  make fuzz          the dataset reader, the parsers and every CLI with random input (FUZZ_SECONDS=60)"
	@echo "  make sass [SASS_ARCH=sm_90] [FILES=...] [KERNEL=regex]   registers and spills of every kernel instance (ptxas -v)"
	@echo "  make format        the course's style (.clang-format, clang-format $(CLANG_FORMAT_PIN)) on every C/CUDA source; make format-check: which differ"
	@echo "  make profile KERNEL=rows|cyclic|staged|thread|tiles|grid [ARGS=\"--n 64 --batch 65536\"] [NCU_ARGS=...]   Nsight Compute on one configuration"
	@echo "  make load-test     a batch that fills the GPU, through the driver and the benchmark, beside another process"
	@echo "  make clean         remove build/"
	@echo "  make help          this text"

# make format: the course's style (.clang-format) applied to every C, C++ and CUDA source of the course;
# make format-check: the files it would change (exit 1 if any; the solution regions' lines are the
# students' own and not checked: common/course/format_lines.py). clang-format is pinned, since another
# version lays lines out otherwise: CLANG_FORMAT_PIN from PyPI into build/format-venv on first use
# (common/course/clang_format.sh), or CLANG_FORMAT=PATH to a clang-format of that version.
CLANG_FORMAT_PIN := 14.0.6
FORMAT_FILES = $(sort $(wildcard common/*.[ch] common/*.cu common/*.cuh common/tests/*.c datasets/*.[ch] \
	0*/*.[ch] 0*/*.cu 0*/*.cuh 0*/python/*.c 0*/library/*.[ch]))
.PHONY: format format-check print-format-files print-clang-format-pin
print-format-files: # for common/tests/test_format.sh
	@echo $(FORMAT_FILES)
print-clang-format-pin:
	@echo $(CLANG_FORMAT_PIN)
format:
	@cf=$$(CLANG_FORMAT_PIN=$(CLANG_FORMAT_PIN) bash common/course/clang_format.sh) && $$cf -i $(FORMAT_FILES) && \
		echo "formatted $(words $(FORMAT_FILES)) files with $$($$cf --version)"
format-check:
	@cf=$$(CLANG_FORMAT_PIN=$(CLANG_FORMAT_PIN) bash common/course/clang_format.sh) && bad=0 && \
		for f in $(FORMAT_FILES); do $$cf --dry-run --Werror $$(python3 common/course/format_lines.py $$f) $$f >/dev/null 2>&1 \
			|| { echo "not formatted: $$f"; bad=1; }; done && \
		{ [ $$bad = 0 ] && echo "$(words $(FORMAT_FILES)) files formatted as .clang-format says" || { echo "make format fixes them"; exit 1; }; }

# make sass [SASS_ARCH=sm_90] [FILES="06_tuning/rows_part0.cu ..."] [KERNEL=regex]: registers, spills and
# shared memory of every kernel instance, from ptxas -v on each .cu with the build's own flags
# (common/course/kernel_resources.py; the table also in build/sass/resources.csv). SASS_ARCH picks the
# GPU the compiler targets (default: this build's ARCH), so a machine without a GPU can answer for an
# H100. With KERNEL, and cuobjdump on the PATH, the SASS of the matching instances lands in build/sass/.
SASS_ARCH ?= $(ARCH)
FILES ?= $(sort $(wildcard common/*.cu 0*/*.cu))
$(BUILD)/%.$(SASS_ARCH).res: %.cu
	@mkdir -p $(@D)
	@k=$$(tr ' ' '\n' <<<'$(strip $(FILES))' | grep -nxF -m1 '$<' | cut -d: -f1); \
		echo "[$${k:-?}/$(words $(FILES))] ptxas -v $< ($(SASS_ARCH))"
	@$(NVCC) $(filter-out $(GENCODE),$(NVCCFLAGS)) -arch=$(SASS_ARCH) -Xptxas -v -MMD -MF $@.d -MT $@ -c $< -o $@.o 2> $@ \
		|| { cat $@; rm -f $@; exit 1; }
	@rm -f $@.o
.PHONY: sass
sass: $(patsubst %.cu,$(BUILD)/%.$(SASS_ARCH).res,$(FILES))
	@python3 common/course/kernel_resources.py $^ --csv $(BUILD)/sass/resources.csv \
		$(if $(KERNEL),--kernel '$(KERNEL)' --sass $(BUILD)/sass --build $(BUILD))

# One rule per test suite: common/course/run_suite.py runs its commands under the suite's time limit
# (SUITE_TIMEOUT_<suite> seconds, default 1800; TEST_TIMEOUT=S overrides), turns every planned
# test that did not report (crash, exit, hang) into a FAIL, and scores the groups of the stage's
# points.tsv into $(RESULTS)/<suite>.json; test_summary.py prints the points table.
# GRADE=1 is grading mode: a test that could not run here counts as failed.
RUN_SUITE = python3 common/course/run_suite.py --suite $(1) --points $(SUITE_POINTS_$(1)) --results $(RESULTS) \
	--timeout $(or $(SUITE_TIMEOUT_$(1)),1800) -- $(SUITE_CMDS_$(1))
define suite_rule
build-$(1): $$(SUITE_DEPS_$(1))
test-$(1): $$(SUITE_DEPS_$(1))
	@$$(call RUN_SUITE,$(1))
	@python3 common/course/test_summary.py $(RESULTS)/$(1).json
endef
$(foreach s,$(TEST_SUITES),$(eval $(call suite_rule,$(s))))

test: $(foreach s,$(TEST_SUITES),$(SUITE_DEPS_$(s)))
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@$(foreach s,$(TEST_SUITES),$(call RUN_SUITE,$(s)) &&) true
	@python3 common/course/test_summary.py --write $(RESULTS)/summary.json $(foreach s,$(TEST_SUITES),$(RESULTS)/$(s).json)

# bench-stage-N builds only the programs its command runs (not the whole course: a student at stage 2
# need not compile stages 3-6 to time stage 2).
bench_bins = $(filter $(BUILD)/%,$(subst ', ,$(BENCH_CMD_$(1))))
define bench_rule
bench-$(1): $$(call bench_bins,$(1))
	@mkdir -p $(BUILD) && rm -f $(BUILD)/bench-$(1).csv $(BUILD)/bench-$(1).csv.skipped
	@BENCH_CSV=$(BUILD)/bench-$(1).csv $$(BENCH_CMD_$(1))
	@python3 common/course/bench_table.py $(BUILD)/bench-$(1).csv
endef
$(foreach s,$(BENCH_STAGES),$(eval $(call bench_rule,$(s))))

bench: all
	@mkdir -p $(BUILD) && rm -f $(BUILD)/bench.csv $(BUILD)/bench.csv.skipped
	@$(foreach s,$(BENCH_STAGES),echo "== $(s)" && BENCH_CSV=$(BUILD)/bench.csv $(BENCH_CMD_$(s)) &&) true
	@python3 common/course/bench_table.py $(BUILD)/bench.csv

# ---- the course as it is handed out (the instructors' guide) -------------------------------------
.PHONY: student-kit check-kit grade grade-class slurm-script leaderboard
KIT := $(BUILD)/student-kit
ifneq ($(IN_KIT),)
# In a student kit: make grade is the student's own grade (grade.py --self); the instructors'
# targets are not there.
grade:
	@python3 common/course/grade.py --self $(foreach s,$(STAGE),--stage $(s))
student-kit grade-class test-grading test-grade-class test-fresh-targets:
	@echo "make $@: this is a student kit; $@ is part of the instructors' copy of the course"; exit 2
else
student-kit:
	python3 common/course/course_kit.py kit $(KIT)
	python3 common/course/course_kit.py check $(KIT)

# make grade SUBMISSION=DIR [STAGE=N]: results in build/grade/results.json (Gradescope format)
grade:
	@test -n "$(SUBMISSION)" || { echo "make grade SUBMISSION=DIR [STAGE=N]: DIR is the student's kit folder"; exit 2; }
	python3 common/course/grade.py --submission $(SUBMISSION) $(foreach s,$(STAGE),--stage $(s))

# make grade-class SUBMISSIONS=DIR [STAGE="N ..."] [SLURM=1|0] [CLASS_OUT=DIR]: every submission in DIR graded as
# make grade grades one, through Slurm when sbatch is here (or SLURM=1), else one per visible GPU;
# resumable; build/class/grades.csv and summary.md (the instructors' guide: Grading a class).
grade-class:
	@test -n "$(SUBMISSIONS)" || { echo "make grade-class SUBMISSIONS=DIR [STAGE=N] [SLURM=1|0]: DIR holds one folder or .tar.gz per student"; exit 2; }
	python3 common/course/grade_class.py --submissions $(SUBMISSIONS) $(foreach s,$(STAGE),--stage $(s)) \
		$(if $(SLURM),$(if $(filter 1 yes,$(SLURM)),--slurm,--local)) $(if $(CLASS_OUT),--out $(CLASS_OUT))
endif

# make slurm-script TARGET=test|bench|tune [OUT=job.sh]: a batch script for one GPU of a cluster;
# TARGET=distributed [NODES=N] [GPUS=G] [ARGS="..."]: the torch.distributed example over N x G GPUs.
slurm-script:
	@python3 common/course/slurm_script.py $(or $(TARGET),test) $(if $(OUT),--out $(OUT)) \
		$(if $(NODES),--nodes '$(NODES)') $(if $(GPUS),--gpus '$(GPUS)') $(if $(ARGS),--args '$(ARGS)')

# make leaderboard CSVS="alice.csv bob.csv ...": ranks by geomean x cuSOLVER, per GPU
leaderboard: $(VENV)/.installed
	@test -n "$(CSVS)" || { echo 'make leaderboard CSVS="a.csv b.csv ..."'; exit 2; }
	$(VENV)/bin/python common/course/leaderboard.py $(BUILD)/leaderboard.png $(CSVS)

$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV) && $(VENV)/bin/pip install -q -r requirements.txt && touch $@

# make plots: build/bench.csv (make bench) drawn as build/plots/stages_vs_cusolver.png,
# best_vs_roofline.png and layout_conversion.png (common/course/plot_bench.py); without the CSV it
# says so and fails (exit 2) before installing anything.
plots:
	@test -s $(BUILD)/bench.csv || { echo "no $(BUILD)/bench.csv: run make bench first"; exit 2; }
	@$(MAKE) -q --no-print-directory $(VENV)/.installed || $(MAKE) --no-print-directory $(VENV)/.installed
	$(VENV)/bin/python common/course/plot_bench.py $(BUILD)/bench.csv $(BUILD)/plots

# The layout pictures of the stage 04 and 05 READMEs (committed; regenerate after changing them).
layout-pictures: $(VENV)/.installed
	$(VENV)/bin/python common/course/plot_layouts.py 04_interleaved/layouts.png 05_chunked/chunked_layout.png

# make sanitize-stage-N: every kernel of stage N on small runs under compute-sanitizer (memcheck,
# racecheck, synccheck, initcheck; common/sanitize.sh). Zero reports pass. make sanitize: all.
SANITIZE = python3 common/course/run_suite.py --suite sanitize-stage-$(1) --points common/points-sanitize.tsv \
	--results $(RESULTS) --timeout 1800 -- 'bash common/sanitize.sh sanitize-stage-$(1) $(SANITIZE_CMDS_$(1))'
define sanitize_rule
sanitize-stage-$(1): $$(SANITIZE_DEPS_$(1))
	@mkdir -p $(RESULTS)
	@$$(call SANITIZE,$(1))
	@python3 common/course/test_summary.py $(RESULTS)/sanitize-stage-$(1).json
endef
$(foreach s,$(SANITIZE_STAGES),$(eval $(call sanitize_rule,$(s))))
.PHONY: sanitize $(addprefix sanitize-stage-,$(SANITIZE_STAGES))
sanitize: $(foreach s,$(SANITIZE_STAGES),$(SANITIZE_DEPS_$(s)))
	@mkdir -p $(RESULTS)
	@$(foreach s,$(SANITIZE_STAGES),$(call SANITIZE,$(s));) true
	@python3 common/course/test_summary.py $(foreach s,$(SANITIZE_STAGES),$(RESULTS)/sanitize-stage-$(s).json)
sanitize-stage-1:
	@echo "stage 01 runs on the CPU only: its sanitizers are the host ones (make SAN=1 test-stage-1)"

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
