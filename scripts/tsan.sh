#!/usr/bin/env bash
# Every test in a ThreadSanitizer build (build-thread). Not part of CI: it
# takes about as long as the rest of CI together on a 2-core machine.
#   scripts/tsan.sh [ctest arguments]     e.g. scripts/tsan.sh -R 'agent|integration'
set -euo pipefail
cd "$(dirname "$0")/.."
PROF_SANITIZE=thread exec scripts/test.sh "$@"
