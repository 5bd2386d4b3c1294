import Foundation

/// Foundation's own errors for a seed file's text, said as a ``SeedFileError``: what `JSONSerialization` could not
/// parse, and what `JSONDecoder` could not decode, named by the `DecodingError`'s coding path.
extension SeedFileError {
    /// Why `JSONSerialization` refused the text of the seed file at `path`, from the error it threw: arrays and
    /// objects nested deeper than it follows, text that ends before the JSON does, or text that is not JSON.
    static func unparsable(_ error: any Error, path: String) -> SeedFileError {
        let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
        if detail.range(of: "too many nested", options: .caseInsensitive) != nil {
            return .nestedTooDeeply(path: path, limit: SeedFileStore.maximumNesting)
        }
        if detail.range(of: "end of file", options: .caseInsensitive) != nil { return .truncated(path: path) }
        return .notJSON(path: path, reason: "the text is not valid JSON" + (detail.isEmpty ? "" : " (\(detail))"))
    }

    /// Why `JSONDecoder` refused the seed file at `path`, naming the field by its coding path (`scenario.controllers`,
    /// `operations[0][3]`) and saying what it must be and what it is. `json` is the file as `JSONSerialization` parsed
    /// it (where the value at a path is looked up); `decode` decodes a changed copy of it.
    static func undecodable(
        _ error: DecodingError, path: String, json: Any, decode: (Data) throws -> Void
    ) -> SeedFileError {
        let reason: String
        switch error {
        case .keyNotFound(let key, let context):
            reason = "the field \"\(text(context.codingPath + [key]))\" is missing"
        case .typeMismatch(let type, let context):
            reason = "\(field(context.codingPath)) must be \(expectation(type)), not \(found(at: context.codingPath, in: json))"
        case .valueNotFound(let type, let context):
            reason = "\(field(context.codingPath)) is null; it must be \(expectation(type))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // The text parsed, so the decoder met a number its field cannot hold; it says so without a path.
            if let (fieldPath, number) = wholeNumberFieldHolding(json, decode: decode) {
                let integral = number.doubleValue.rounded() == number.doubleValue
                reason = "the field \"\(text(fieldPath))\" must be a whole number"
                    + (integral ? " from \(Int.min) to \(Int.max)" : "") + ", not \(number)"
            } else {
                reason = "a value does not fit its field (\(context.debugDescription))"
            }
        case .dataCorrupted(let context):
            reason = "\(field(context.codingPath)) is invalid: \(context.debugDescription)"
        @unknown default:
            reason = "\(error)"
        }
        return .malformed(path: path, reason: reason)
    }

    /// A parsed JSON value in words: `null`, `true`, `a number (3.5)`, `a string ("x")`, `a list`, `an object`.
    static func describing(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return number.boolValue ? "true" : "false" }
            return "a number (\(number))"
        case let string as String:
            return "a string (\"\(string.count > 40 ? String(string.prefix(40)) + "…" : string)\")"
        case is [Any]: return "a list"
        case is [String: Any]: return "an object"
        default: return "\(type(of: value))"
        }
    }

    /// `the field "scenario.controllers"`, or `the top level` for the empty path.
    private static func field(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "the top level" : "the field \"\(text(path))\""
    }

    /// `scenario.controllers`, `operations[0][3]`.
    private static func text(_ path: [any CodingKey]) -> String {
        path.reduce("") { text, key in
            key.intValue.map { text + "[\($0)]" } ?? text + (text.isEmpty ? "" : ".") + key.stringValue
        }
    }

    /// What a value of `type` must be, in words: `a whole number`, `a string`, `a list`, ...
    private static func expectation(_ type: Any.Type) -> String {
        let name = String(describing: type)
        switch name {
        case "Int", "Int64", "Int32", "Int16", "Int8", "UInt", "UInt64", "UInt32", "UInt16", "UInt8": return "a whole number"
        case "Double", "Float": return "a number"
        case "String": return "a string"
        case "Bool": return "true or false"
        default:
            if name.hasPrefix("Array") { return "a list" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a \(name)"
        }
    }

    /// What is at `path` in `json`, in words (``describing(_:)``).
    private static func found(at path: [any CodingKey], in json: Any) -> String {
        var value: Any? = json
        for key in path {
            if let list = value as? [Any], let index = key.intValue {
                value = list.indices.contains(index) ? list[index] : nil
            } else {
                value = (value as? [String: Any])?[key.stringValue]
            }
        }
        return value.map(describing) ?? "something else"
    }

    /// The whole-number field holding a number that is not a whole number from `Int.min` to `Int.max`, found by the
    /// decoder itself: `JSONDecoder` reports such a number without a coding path (on Linux and Apple platforms
    /// alike), but it reports a string in a number's field with the path and the type it wanted. So every such
    /// number is written as a string and the copy decoded: a mismatch at a whole-number field is the answer; one at
    /// a field of another type (a probability) puts that number back and decodes again.
    private static func wholeNumberFieldHolding(
        _ json: Any, decode: (Data) throws -> Void
    ) -> (path: [any CodingKey], number: NSNumber)? {
        var misfits: [String: NSNumber] = [:]
        var kept: Set<String> = []
        while true {
            let copy = stringifyingMisfits(json, path: "", keeping: kept, into: &misfits)
            guard let data = try? JSONSerialization.data(withJSONObject: copy) else { return nil }
            do {
                try decode(data)
                return nil
            } catch DecodingError.typeMismatch(let type, let context) {
                let key = text(context.codingPath)
                guard let number = misfits[key], !kept.contains(key) else { return nil }
                if expectation(type) == "a whole number" { return (context.codingPath, number) }
                kept.insert(key)
            } catch {
                return nil
            }
        }
    }

    /// `value` (at `path`, spelled as ``text(_:)`` spells it) with each number that no whole-number field holds
    /// written as its text, except those at the paths in `kept`; `misfits` gets each such number by its path.
    private static func stringifyingMisfits(
        _ value: Any, path: String, keeping kept: Set<String>, into misfits: inout [String: NSNumber]
    ) -> Any {
        switch value {
        case let number as NSNumber where !fitsAnInt(number):
            misfits[path] = number
            return kept.contains(path) ? number : "\(number)"
        case let list as [Any]:
            return list.enumerated().map { index, element in
                stringifyingMisfits(element, path: path + "[\(index)]", keeping: kept, into: &misfits)
            }
        case let object as [String: Any]:
            return object.reduce(into: [String: Any]()) { copy, member in
                copy[member.key] = stringifyingMisfits(
                    member.value, path: path + (path.isEmpty ? "" : ".") + member.key, keeping: kept, into: &misfits)
            }
        default:
            return value
        }
    }

    /// Whether `JSONDecoder` reads `number` into an `Int`: a whole number from `Int.min` to `Int.max`.
    private static func fitsAnInt(_ number: NSNumber) -> Bool {
        if number is NSDecimalNumber { return Int(number.description) != nil }
        switch String(cString: number.objCType) {
        case "Q": return number.uint64Value <= UInt64(Int.max)
        case "d", "f":
            let value = number.doubleValue
            return value.rounded() == value && value >= -0x1p63 && value < 0x1p63
        default: return true
        }
    }
}
