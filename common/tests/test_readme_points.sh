#!/usr/bin/env bash
# test_readme_points.sh - the points a README promises are the points the grader gives: each
# stage's points.tsv (and grade.py's performance points) against the stage READMEs, the top
# README's points table and INSTRUCTORS.md, and that every group a suite plans has a row in its
# points file (readme_points.py says how). Runs without a GPU.
suite=readme-points
source common/harness.sh
checker_lines "README points" readme_points.py 6 python3 common/tests/readme_points.py
finish
