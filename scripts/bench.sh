#!/usr/bin/env bash
# The main job: set-up, build, check the machine, run the quick suite, write the HTML report.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
run_step "set-up" "$ROOT/scripts/setup.sh"
configure_and_build
step "doctor"
"$BUILD_DIR/layerbench" doctor || true   # exit 1 only means "no usable GPU": the CPU still runs
run_step "workloads" "$BUILD_DIR/layerbench" list --model resnet50
