#!/usr/bin/env bash
# Replays a seed file in a release build with deterministic hashing.
#
#   scripts/replay.sh FILE [--runs K] [--target guard|raw] [--json OUT] ...
#
# Relative paths (FILE, report files) are taken from the directory you run the script in.
# Exit code: 1 the failure reproduced, 0 it did not, 2 the file is missing or bad, or the build failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if [ $# -lt 1 ]; then
    echo "usage: scripts/replay.sh FILE [--runs K] [--target guard|raw]" >&2
    exit 2
fi

if ! swift build -c release --package-path "$root" --product guard-stress >&2; then
    echo "scripts/replay.sh: the build of guard-stress failed (exit 2; nothing was replayed)" >&2
    exit 2
fi
SWIFT_DETERMINISTIC_HASHING=1 exec "$root/.build/release/guard-stress" replay "$@"
