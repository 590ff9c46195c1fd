#!/bin/sh
# Runs "$@" in a new time namespace whose CLOCK_MONOTONIC is shifted by RANK × $RASTRO_TEST_CLOCK_STEP_S
# seconds (RANK from the MPI launcher): each rank gets a known clock offset against rank 0, as on
# hosts whose clocks disagree. The multi-node tests check that `rastro merge` recovers them.
r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
exec unshare --time --monotonic "$((r * ${RASTRO_TEST_CLOCK_STEP_S:-0}))" "$@"
