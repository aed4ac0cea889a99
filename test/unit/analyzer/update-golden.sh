#!/bin/sh
# Re-records every golden output from a build dir:
#   test/unit/analyzer/update-golden.sh build-analyzer
# Same as the golden tests with PROF_UPDATE_GOLDEN set; read the diff before
# committing.
set -eu
build=${1:?usage: update-golden.sh BUILD_DIR}
ninja -C "$build" profanalyze make_golden_capture make_advise_capture
PROF_UPDATE_GOLDEN=1 ctest --test-dir "$build" -R '^analyzer_golden_' --output-on-failure
