#!/usr/bin/env bash
# The benchmarks, measured in a release build (a debug build's numbers mean nothing).
#
#   scripts/bench.sh [guard-stress bench options...]      e.g. --quick, --filter notify, --json figures.json
#
# Exit code: 0 measured, 1 the harness group's oracle was violated, 2 bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product guard-stress >&2
exec .build/release/guard-stress bench "$@"
