#!/usr/bin/env bash
# Builds guard-stress with the Swift runtime linked into it (`--static-swift-stdlib`, the usual way to ship a Linux
# server binary) and runs a short default campaign with it: GuardCore must find stored properties without the
# runtime's exported symbols, and never print that it cannot.
#
#   scripts/static-check.sh [SECONDS]        (campaign length, default 5)
#
# The build goes to .build-static (STATIC_SCRATCH_PATH overrides it). Exit code: 0 the campaign passed, 1 it failed,
# printed the reflection notice, or the binary still loads the Swift runtime dynamically, 2 the build failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${STATIC_SCRATCH_PATH:-$root/.build-static}"
seconds="${1:-5}"

if ! swift build -c release --static-swift-stdlib --package-path "$root" --product guard-stress \
    --scratch-path "$scratch" >&2; then
    echo "scripts/static-check.sh: the static build of guard-stress failed (exit 2; nothing was run)" >&2
    exit 2
fi
binary="$scratch/release/guard-stress"
if command -v ldd >/dev/null 2>&1 && ldd "$binary" 2>/dev/null | grep -q "libswiftCore"; then
    echo "scripts/static-check.sh: $binary loads libswiftCore dynamically: not a static build" >&2
    exit 1
fi
log="$(mktemp -t kvoguard-static.XXXXXX)"
trap 'rm -f "$log"' EXIT
"$binary" run --duration "$seconds" 2>"$log"
status=$?
cat "$log" >&2
if grep -q "cannot read stored properties" "$log"; then
    echo "scripts/static-check.sh: the static binary cannot read stored properties (see above)" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "scripts/static-check.sh: the static binary's campaign exited $status" >&2
    exit 1
fi
echo "scripts/static-check.sh: the statically linked guard-stress passed a ${seconds}-second default campaign"
