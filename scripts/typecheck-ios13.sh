#!/usr/bin/env bash
# macOS only. Type-checks GuardCore (and FaultInjector and FaultInjectorTools) for the iOS simulator at exactly the iOS 13.0 deployment
# target, so every API newer than iOS 13.0 that is used without an `#available` check is an error. (xcodebuild builds
# the package too, but a recent Xcode may raise a deployment target below the range it supports.)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-arm64-apple-ios13.0-simulator}
sdk=$(xcrun --sdk iphonesimulator --show-sdk-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/module.modulemap" <<MAP
module GuardCoreAtomics {
    header "$PWD/Sources/GuardCoreAtomics/include/GuardCoreAtomics.h"
    export *
}
MAP
common=(-target "$target" -sdk "$sdk" -swift-version 6 -package-name KVOGuard -I "$work" -Xcc "-fmodule-map-file=$work/module.modulemap")
echo "==> GuardCore for $target"
# shellcheck disable=SC2046
xcrun swiftc -typecheck -parse-as-library -module-name GuardCore "${common[@]}" $(find Sources/GuardCore -name '*.swift' | sort)
# shellcheck disable=SC2046
xcrun swiftc -emit-module -parse-as-library -module-name GuardCore "${common[@]}" \
    $(find Sources/GuardCore -name '*.swift' | sort) -emit-module-path "$work/GuardCore.swiftmodule"
echo "==> FaultInjector for $target"
# shellcheck disable=SC2046
xcrun swiftc -typecheck -parse-as-library -module-name FaultInjector "${common[@]}" \
    $(find Sources/FaultInjector -name '*.swift' | sort)
# shellcheck disable=SC2046
xcrun swiftc -emit-module -parse-as-library -module-name FaultInjector "${common[@]}" \
    $(find Sources/FaultInjector -name '*.swift' | sort) -emit-module-path "$work/FaultInjector.swiftmodule"
echo "==> FaultInjectorTools for $target"
# shellcheck disable=SC2046
xcrun swiftc -typecheck -parse-as-library -module-name FaultInjectorTools "${common[@]}" \
    $(find Sources/FaultInjectorTools -name '*.swift' | sort)
echo "GuardCore, FaultInjector and FaultInjectorTools type-check for $target."
