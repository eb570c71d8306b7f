#!/bin/sh
# CI's share of the crash soak (tests/soak.sh, which says what each kill
# checks): record, checkout, sync (either side) and reconcile, killed
# with SIGKILL at 60 random points. `make soak` runs thousands.
SOAK_ITERATIONS=${SOAK_ITERATIONS:-60}
export SOAK_ITERATIONS
exec sh "${HEARTH_SOURCE_DIR:-.}/tests/soak.sh"
