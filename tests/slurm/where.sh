#!/bin/sh
# A rank for the allocation tests: says which rank it is (PMI_RANK, from
# tern-run) and in which network namespace, that is on which test node, it
# runs.
echo "rank $PMI_RANK in $(ip netns identify)"
