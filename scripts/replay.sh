#!/usr/bin/env bash
# Replays a seed file in a release build with deterministic hashing.
#
#   scripts/replay.sh FILE [--runs K] [--target guard|raw]
#
# Exit code: 1 the failure reproduced, 0 it did not, 2 the file is missing or bad.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ]; then
    echo "usage: scripts/replay.sh FILE [--runs K] [--target guard|raw]" >&2
    exit 2
fi
file="$1"
shift
case "$file" in /*) ;; *) file="$OLDPWD/$file" ;; esac

swift build -c release --product guard-stress >&2
SWIFT_DETERMINISTIC_HASHING=1 exec .build/release/guard-stress replay "$file" "$@"
