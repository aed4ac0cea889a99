#!/bin/sh
# Golden-output test: runs profanalyze on the fixed golden capture and diffs
# with the recorded output. With PROF_UPDATE_GOLDEN set in the environment it
# records the output instead (see update-golden.sh; read the diff before
# committing: `git diff test/unit/analyzer/golden`).
#   golden_test.sh MAKE_GOLDEN_CAPTURE PROFANALYZE GOLDEN_FILE ARGS...
set -eu
maker=$1 profanalyze=$2 golden=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The file name shows up in `info`, so it is always golden.pb, run from $work.
"$maker" "$work/golden.pb"
cd "$work"
"$profanalyze" "$@" golden.pb > actual.txt
if [ -n "${PROF_UPDATE_GOLDEN:-}" ]; then
  cp actual.txt "$golden"
  echo "updated $golden"
else
  diff -u "$golden" actual.txt
fi
