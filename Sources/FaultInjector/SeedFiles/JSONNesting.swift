import Foundation

/// One pass over JSON text counting brackets outside strings: how deep they nest, and what is left open at the end.
struct JSONNesting {
    private(set) var depthAtEnd = 0
    private(set) var deepest = 0
    private(set) var endsInString = false

    init(of data: Data) {
        var escaped = false
        for byte in data {
            if endsInString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    endsInString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): endsInString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depthAtEnd += 1
                deepest = max(deepest, depthAtEnd)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depthAtEnd -= 1
            default: break
            }
        }
    }
}
