#!/usr/bin/env bash
# test_kill_loop.sh — a short smoke of scripts/kill_loop.sh (the 100-kill loop
# of docs/reliability.md): 5 kills of a build of the examples at seeded random
# moments, each followed by a rerun that must exit 0, `kiln check` with no
# problem, and an output (and pack) hashing equal to a clean build's.
# Labelled "kill" in ctest (`ctest -LE kill` skips it); `make killtest` runs
# the full loop.
#
# Environment (set by ctest): KILN (the executable), KILN_TMP (scratch folder).
set -euo pipefail
: "${KILN:?set KILN to the kiln executable}"
exec bash "$(dirname "$0")/../../scripts/kill_loop.sh" -n "${KILLS:-5}" -s 16 -k "$KILN" \
    -w "${KILN_TMP:-${TMPDIR:-/tmp}}/kill_loop"
