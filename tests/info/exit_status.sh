#!/bin/sh
# Run a test command and say so when its exit status is not 0: ctest ignores
# the exit status of a test that has PASS_REGULAR_EXPRESSION, so the test's
# FAIL_REGULAR_EXPRESSION matches this line instead.
"$@"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "info-test: exit status $rc"
fi
exit "$rc"
