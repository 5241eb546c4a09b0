# The installable C library: the one door (cholesky_plan.h) as libcourse_cholesky, for projects
# outside the course (library/README.md, "Building against it").
#   make lib                      build/lib-<archs>/: the shared library (SONAME libcourse_cholesky.so.1,
#                                 the public API only), the static archive, the .pc and CMake files
#   make install PREFIX=dir       include/course_cholesky/, lib/, lib/pkgconfig/, lib/cmake/CourseCholesky/
#   LIB_ARCHS="80 90"             the GPUs it runs on: this GPU's when there is one, else 80 and 90
#                                 (Hopper's SASS as sm_90a) with the PTX of 90 for newer GPUs
# Its objects are the stages' own (the kernels stay where they are taught), compiled once more for
# LIB_ARCHS unless that is this build's one architecture; their list is LIB_OBJS, here only.
LIB_VERSION := $(shell awk '/define CHOLESKY_VERSION_(MAJOR|MINOR|PATCH)/ {v = v (v == "" ? "" : ".") $$3} END {print v}' 06_tuning/library/cholesky_plan.h)
LIB_SOVERSION := $(firstword $(subst ., ,$(LIB_VERSION)))
LIB_ARCHS ?= $(if $(DETECTED_CC),$(DETECTED_CC),80 90)
LIB_TAG := $(subst $() ,-,$(strip $(LIB_ARCHS)))
# The library's objects: built in build/ (never with the sanitizers: an outside program links it)
# when LIB_ARCHS is this build's architecture, else in build/lib-objects-<archs>/.
LIB_BUILD := $(if $(and $(filter 1,$(words $(LIB_ARCHS))),$(filter $(strip $(LIB_ARCHS)),$(SM_LIST))),build,build/lib-objects-$(LIB_TAG))
LIB_DIR := build/lib-$(LIB_TAG)
LIB_OBJS = $(filter-out $(LIB_PROGRAM_OBJS),$(PLAN_OBJS)) $(S6)/library/tuned_installed.o \
	$(COMMON_LIB)
# What only programs link: the parts that read the environment (stage 03's grid_program.c, stage
# 06's tuned_env.c), and tuned.o, which knows where the source tree's tables and make tune's are.
LIB_PROGRAM_OBJS = $(BUILD)/03_left_right_top/grid_program.o $(S6)/tuned_env.o $(S6)/library/tuned.o
# The installed library's tuned.c: no path into the source tree or the build (an installed copy
# reads the tables compiled in, whatever the source folder holds or later make tune writes).
$(S6)/library/tuned_installed.o: 06_tuning/library/tuned.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CCACHE) $(CC) $(CFLAGS) -DTUNED_TABLES_DIR='""' -DTUNED_OWN_DIR='""' -MMD -MP -c $< -o $@
LIB_SO_NAME := libcourse_cholesky.so.$(LIB_SOVERSION)

# Inside the sub-make (BUILD = LIB_BUILD, ARCHS = LIB_ARCHS): link what LIB_OBJS built.
.PHONY: lib lib-link install print-lib-build
print-lib-build: # for test_install.sh: this build's architecture and CUDA
	@echo $(SM) $(CUDA_HOME)
lib-link: $(LIB_OBJS) 06_tuning/library/library.map
	@mkdir -p $(LIB_OUT)
	$(NVCC) -shared $(LDFLAGS) $(filter %.o %.a,$^) -o $(LIB_OUT)/libcourse_cholesky.so.$(LIB_VERSION) -lm \
		-Xlinker -soname=$(LIB_SO_NAME) -Xlinker --version-script=06_tuning/library/library.map \
		-Xlinker --as-needed -Xlinker --no-undefined -Xlinker -Map=$(LIB_OUT)/libcourse_cholesky.map
	@bash 06_tuning/library/check_no_exit.sh --no-env $(LIB_OUT)/libcourse_cholesky.map $(COMMON_LIB) || { rm -f $(LIB_OUT)/libcourse_cholesky.so.*; exit 1; }
	@# The static archive: one object with the same symbols made global as the shared library exports.
	@# (Also the hidden comdat DW.ref.__gxx_personality_v0 of the C++ objects' unwind tables: made local,
	@# a program linked with a static libstdc++ keeps our copy of its group and finds no definition.)
	@{ sed -n 's/^ *\(cholesky_[a-z0-9_]*\);$$/\1/p' 06_tuning/library/library.map; echo DW.ref.__gxx_personality_v0; } > $(LIB_OUT)/public.syms
	ld -r -o $(LIB_OUT)/course_cholesky.o $(filter %.o %.a,$^)
	objcopy --keep-global-symbols=$(LIB_OUT)/public.syms $(LIB_OUT)/course_cholesky.o
	rm -f $(LIB_OUT)/libcourse_cholesky.a && ar rcs $(LIB_OUT)/libcourse_cholesky.a $(LIB_OUT)/course_cholesky.o
	@rm -f $(LIB_OUT)/course_cholesky.o

lib:
	@$(MAKE) --no-print-directory BUILD=$(LIB_BUILD) SAN= DEBUG= ARCHS="$(LIB_ARCHS)" LIB_OUT=$(abspath $(LIB_DIR)) lib-link
	@echo "libcourse_cholesky $(LIB_VERSION) for $(LIB_ARCHS): $(LIB_DIR)/ (make install PREFIX=dir puts it where C and CMake look)"

# make install PREFIX=dir: the header, the libraries, pkg-config's course_cholesky.pc (and
# course_cholesky-static.pc, the archive) and CMake's
# CourseCholesky package (find_package(CourseCholesky) -> CourseCholesky::course_cholesky).
PREFIX ?= /usr/local
install: lib
	@test -n "$(PREFIX)" || { echo "make install PREFIX=dir"; exit 2; }
	@p=$(abspath $(PREFIX)) && mkdir -p $$p/include/course_cholesky $$p/lib/pkgconfig $$p/lib/cmake/CourseCholesky && \
	install -m 644 06_tuning/library/cholesky_plan.h $$p/include/course_cholesky/ && \
	install -m 755 $(LIB_DIR)/libcourse_cholesky.so.$(LIB_VERSION) $$p/lib/ && \
	ln -sf libcourse_cholesky.so.$(LIB_VERSION) $$p/lib/$(LIB_SO_NAME) && \
	ln -sf $(LIB_SO_NAME) $$p/lib/libcourse_cholesky.so && \
	install -m 644 $(LIB_DIR)/libcourse_cholesky.a $$p/lib/ && \
	for pc in course_cholesky course_cholesky-static; do sed -e "s|@VERSION@|$(LIB_VERSION)|g; s|@CUDA_HOME@|$(CUDA_HOME)|g" \
		06_tuning/library/$$pc.pc.in > $$p/lib/pkgconfig/$$pc.pc || exit 1; done && \
	sed -e "s|@VERSION@|$(LIB_VERSION)|g; s|@SOVERSION@|$(LIB_SOVERSION)|g" \
		06_tuning/library/CourseCholeskyConfig.cmake.in > $$p/lib/cmake/CourseCholesky/CourseCholeskyConfig.cmake && \
	sed -e "s|@VERSION@|$(LIB_VERSION)|g" \
		06_tuning/library/CourseCholeskyConfigVersion.cmake.in > $$p/lib/cmake/CourseCholesky/CourseCholeskyConfigVersion.cmake && \
	echo "installed libcourse_cholesky $(LIB_VERSION) ($(LIB_ARCHS)) into $$p"

# The library's tests (make test-library): its boundary under random arguments and threads
# (test_library.c, linked as the installed library is), and the installed copy used by an outside
# project (test_install.sh: make install, exported symbols, the example with pkg-config and CMake).
$(S6)/library/test_library: $(S6)/library/test_library.o $(PROBE_OBJS) $(PLAN_OBJS) $(COMMON_LIB)
	$(LINK)
ALL_BINS += $(S6)/library/test_library
TEST_SUITES += library
SUITE_DEPS_library := $(S6)/library/test_library $(S6)/test_student_kernels $(LIB_OBJS) $(S6)/libcourse_cholesky.so
SUITE_CMDS_library := $(S6)/library/test_library "bash 06_tuning/library/test_install.sh"
SUITE_POINTS_library := 06_tuning/library/points.tsv
SUITE_TIMEOUT_library := 900
