/// Finds a control character in a parsed JSON document (a seed file): no file guard-stress writes holds one in any
/// string or field name, and text read from a seed file is printed, so a file that holds one (a line break, an
/// escape sequence) is refused instead of being allowed to forge lines of output or drive the terminal.
enum ControlCharacterField {
    /// The first string or field name in `json` (as `JSONSerialization` parses it) that holds a line break or another
    /// control character: its path (`failure.signature`, `operations[0][3]`, printed without control characters) and
    /// the character; `nil` when there is none.
    static func first(in json: Any) -> (path: String, scalar: Unicode.Scalar)? {
        search(json, path: "")
    }

    /// Whether `scalar` breaks a line or drives a terminal: a control character (C0, DEL, C1) or a line or
    /// paragraph separator.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// `U+001B`.
    static func name(of scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private static func search(_ value: Any, path: String) -> (path: String, scalar: Unicode.Scalar)? {
        switch value {
        case let text as String:
            return text.unicodeScalars.first(where: isControl).map { (path, $0) }
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                let keyPath = path.isEmpty ? printable(key) : path + "." + printable(key)
                if let scalar = key.unicodeScalars.first(where: isControl) { return (keyPath, scalar) }
                if let found = search(object[key]!, path: keyPath) { return found }
            }
            return nil
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let found = search(element, path: path + "[\(index)]") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// `key` with each control character shown as `U+XXXX`.
    private static func printable(_ key: String) -> String {
        guard key.unicodeScalars.contains(where: isControl) else { return key }
        var shown = ""
        for scalar in key.unicodeScalars {
            if isControl(scalar) { shown += "<\(name(of: scalar))>" } else { shown.unicodeScalars.append(scalar) }
        }
        return shown
    }
}
