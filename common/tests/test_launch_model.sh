#!/usr/bin/env bash
# test_launch_model.sh - the whole-GPU float64 path's launch order (03_left_right_top/launch_model.py):
# every two launches that touch a tile, one writing, ordered by streams, events and the linked
# launches' rule, read as an eager run and as a captured graph; and the model finds each planted
# mistake, so that the check can fail. Runs without a GPU.
suite=launch-model
source common/harness.sh
checker_lines "launch order" launch_model.py 10 python3 03_left_right_top/launch_model.py
finish
