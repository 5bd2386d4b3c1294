#!/usr/bin/env bash
# A longer stress campaign against the guard in a release build.
#
#   scripts/stress.sh [SECONDS] [extra guard-stress run options...]
#
# SECONDS defaults to 300. Seed files of failing rounds go to $OUT (default: the repository's stress-seeds/).
# Relative paths ($OUT, report files) are taken from the directory you run the script in.
# Exit code: 0 the oracle held in every round, 1 it was violated, 2 bad usage or the build failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

duration="${1:-300}"
shift || true
out="${OUT:-$root/stress-seeds}"

if ! swift build -c release --package-path "$root" --product guard-stress >&2; then
    echo "scripts/stress.sh: the build of guard-stress failed (exit 2; no campaign ran)" >&2
    exit 2
fi
exec "$root/.build/release/guard-stress" run --duration "$duration" --out "$out" "$@"
