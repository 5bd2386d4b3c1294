#!/usr/bin/env bash
# Type-checks KVOGuard's Apple-only code (everything under `#if canImport(ObjectiveC)`, `canImport(os)`,
# `canImport(OSLog)` and `os(macOS)`) on Linux, against the signature stubs in scripts/apple-glue/ObjCStubs.swift.
#
# What it catches: calls into GuardCore / FaultInjector / test helpers that no longer exist or changed shape, wrong
# labels, types or optionality, Swift 6 strict-concurrency errors, in code no Linux build compiles. What it cannot
# catch: a stub that differs from Apple's SDK, availability, and anything about behaviour. The macOS CI job is the
# real check; this one runs in seconds on every Linux build (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --build-tests >/dev/null
bin=$(swift build --show-bin-path)
modules="$bin/Modules"
modulemap="$bin/GuardCoreAtomics.build/module.modulemap"
package_name=$(grep -o '"-package-name","[^"]*"' .build/debug.yaml | head -n 1 | cut -d'"' -f4)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

common=(-swift-version 6 -package-name "$package_name" -I "$work" -I "$modules" -Xcc "-fmodule-map-file=$modulemap")

# The stub module stands in for ObjectiveC, os and OSLog.
swiftc -emit-module -parse-as-library -module-name ObjCStubs -swift-version 6 \
    scripts/apple-glue/ObjCStubs.swift -emit-module-path "$work/ObjCStubs.swiftmodule" 2>&1

# Copies with the Apple-only branches switched on, the Apple modules replaced by the stubs, and Apple-only class
# names qualified so they resolve to the stubs rather than to swift-corelibs-foundation.
activate() {
    local module_imports=$1
    shift
    for file in "$@"; do
        sed -E \
            -e 's/canImport\((ObjectiveC|os|OSLog)\)/true/g' -e 's/os\(macOS\)/true/g' \
            -e 's/^import (ObjectiveC|os|OSLog)$/import ObjCStubs/' \
            -e 's/@objc (dynamic )?//g' -e 's/@objc class/class/g' \
            -e 's/\b(NSObject|NSArray|NSSet|NSOrderedSet)\b/ObjCStubs.\1/g' \
            -e 's/\b(Selector|NSSelectorFromString|autoreleasepool|NSPredicate)\b/ObjCStubs.\1/g' \
            "$file" | { printf '%s\nimport ObjCStubs\n' "$module_imports"; cat; } >"$work/$(basename "$file")"
        echo "$work/$(basename "$file")"
    done
}

echo "==> GuardCore's Apple-only files"
guardcore=$(activate "@testable import GuardCore" \
    Sources/GuardCore/NSObject/*.swift Sources/GuardCore/Diagnostics/SystemLogSink.swift \
    Sources/GuardCore/Backend/AutomaticBackend.swift)
# shellcheck disable=SC2086
swiftc -emit-module -parse-as-library -module-name GuardCoreAppleGlue "${common[@]}" -enable-testing \
    $guardcore -emit-module-path "$work/GuardCoreAppleGlue.swiftmodule"

echo "==> FaultInjector's Apple-only files"
faultinjector=$(activate $'@testable import FaultInjector\n@testable import GuardCore\nimport GuardCoreAppleGlue' \
    Sources/FaultInjector/SystemUnderTest/NSObjectTwinModel.swift)
# shellcheck disable=SC2086
swiftc -typecheck -parse-as-library "${common[@]}" $faultinjector

echo "==> the tests' Apple-only files"
tests=$(activate $'import XCTest\n@testable import GuardCore\nimport GuardCoreAppleGlue' \
    Tests/GuardCoreTests/Conformance/*.swift Tests/GuardCoreTests/Diagnostics/DefaultSinkTests.swift \
    Tests/GuardCoreTests/NSObject/*.swift \
    Tests/GuardCoreTests/Support/MisuseRecording.swift)
# shellcheck disable=SC2086
swiftc -typecheck -parse-as-library -module-name GuardCoreTests "${common[@]}" $tests

echo "Apple-only code type-checks against the stubs."
