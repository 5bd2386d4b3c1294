#!/usr/bin/env bash
# A longer stress campaign against the guard in a release build.
#
#   scripts/stress.sh [SECONDS] [extra guard-stress run options...]
#
# SECONDS defaults to 300. Seed files of failing rounds go to $OUT (default: stress-seeds/).
# Exit code: 0 the oracle held in every round, 1 it was violated, 2 bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

duration="${1:-300}"
shift || true
out="${OUT:-stress-seeds}"

swift build -c release --product guard-stress >&2
exec .build/release/guard-stress run --duration "$duration" --out "$out" "$@"
