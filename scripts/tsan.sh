#!/usr/bin/env bash
# The stress, concurrency and controlled-runner tests under ThreadSanitizer, and one crash-isolation campaign (a
# segfault under ThreadSanitizer is the verdict crash(ThreadSanitizer)). Fails on a failing test AND on any TSan
# report (a race does not fail a test by itself; only the exit code and the log show it). The whole suite passes
# under `swift test --sanitize=thread` too; it takes far longer than this selection.
#
#   scripts/tsan.sh [extra swift test options...]
#
# The filter can be narrowed with TSAN_FILTER (a regex over test names). Uses its own build folder, .build-tsan.
set -uo pipefail
cd "$(dirname "$0")/.."

filter="${TSAN_FILTER:-StressTests|ConcurrencyTests|ControlledRunnerTests|ControlledReplayTests|Conformance|TrampolineBackendTests|ObservationTokenTests|ObservedValuesTests|TokenAndMirroredTargetTests|PriorPairingRaceTests|KeyNameProbeRaceTests|WordLockTests|ObserverGoneReportCountTests|testASegfaultIsACrashVerdict}"
log="$(mktemp -t kvoguard-tsan.XXXXXX)"
trap 'rm -f "$log"' EXIT

swift test --scratch-path .build-tsan --sanitize=thread --filter "$filter" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "tsan.sh: ThreadSanitizer reported $(grep -c 'WARNING: ThreadSanitizer' "$log") race(s); see above" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    grep -E "error:|' failed \(|✘" "$log" | tail -n 40 >&2
    echo "tsan.sh: swift test exited $status" >&2
    exit "$status"
fi
if ! grep -qE "Executed [1-9][0-9]* tests?, with 0 failures" "$log"; then
    echo "tsan.sh: no test ran under ThreadSanitizer (filter: $filter)" >&2
    exit 1
fi
echo "tsan.sh: all tests passed under ThreadSanitizer with no report"
