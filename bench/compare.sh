#!/usr/bin/env bash
# Thin wrapper around compare.py; see docs/benchmarks.md.
exec python3 "$(dirname "${BASH_SOURCE[0]}")/compare.py" "$@"
