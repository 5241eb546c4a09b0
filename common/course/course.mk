# The course suite: the checks that read every stage at once (make help against the READMEs, the
# READMEs' commands, every program's command-line conventions, the points the READMEs promise,
# every CUDA source's "Alone:" line, make sass / profile, the source layout, the float64 whole-GPU
# path's launch order). Registered after the stages (the top Makefile includes it last), so that
# make test runs it after them and make test-common needs nothing of stages 02-06. It builds the programs its checks run:
# test_cli_conventions.sh (the `valued` programs; it also checks every other program already
# built) and test_readme_commands.sh (the READMEs' build/ commands); test_alone_lines.sh skips a
# program not built (make test builds them all).
TEST_SUITES += course
SUITE_DEPS_course := $(BUILD)/datasets/gen_dataset $(BUILD)/datasets/dataset_check $(BUILD)/datasets/hp3_study \
	$(BUILD)/03_left_right_top/cholesky_one $(BUILD)/04_interleaved/cholesky_batched \
	$(BUILD)/06_tuning/cholesky_tuned $(BUILD)/06_tuning/tune $(BUILD)/06_tuning/test_plan $(BUILD)/06_tuning/test_float64
SUITE_CMDS_course := 'bash common/tests/test_make_help.sh' 'bash common/tests/test_cli_conventions.sh' \
	'bash common/tests/test_readme_commands.sh' 'bash common/tests/test_readme_points.sh' \
	'bash common/tests/test_alone_lines.sh' 'bash common/tests/test_make_tools.sh' 'bash common/tests/test_format.sh' \
	'bash common/tests/test_launch_model.sh'
SUITE_POINTS_course := common/points-course.tsv
SUITE_TIMEOUT_course := 600
