import Foundation

/// Turns a `DecodingError` met while reading a seed file into one sentence that names the field by its path
/// (`scenario.controllers`, `operations[0][3]`) and says what it must be and what it is.
///
/// Foundation's `JSONDecoder` on Linux reports a number that does not fit its field (3.5 or 1e20 where a whole
/// number goes) as "The given data was not valid JSON." with no path. The field is then found by decoding the file
/// again with such numbers replaced by 0, one after another, until the error goes away.
enum SeedFileDecodingProblem {
    /// What is wrong, as a phrase for "PATH is not a valid seed file: …". `json` is the file as parsed by
    /// `JSONSerialization` (where the value found at a path is looked up); `decode` decodes a changed copy of it.
    static func describe(_ error: DecodingError, json: Any, decode: (Data) throws -> Void) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "the field \"\(text(context.codingPath + [key]))\" is missing"
        case .typeMismatch(let type, let context):
            return "\(field(context.codingPath)) must be \(expectation(type)), not \(found(at: context.codingPath, in: json))"
        case .valueNotFound(let type, let context):
            return "\(field(context.codingPath)) is null; it must be \(expectation(type))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            guard let culprit = numberThatDoesNotFit(json, decode: decode) else {
                return "a value does not fit its field (\(context.debugDescription))"
            }
            let number = culprit.number
            let bounds = number.doubleValue.rounded() == number.doubleValue ? " from \(Int.min) to \(Int.max)" : ""
            return "the field \"\(text(culprit.path))\" must be a whole number\(bounds), not \(number)"
        case .dataCorrupted(let context):
            return "\(field(context.codingPath)) is invalid: \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// One step of a path into the parsed JSON.
    enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    /// `the field "scenario.controllers"`, or `the top level` for the empty path.
    private static func field(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "the top level" : "the field \"\(text(path))\""
    }

    private static func text(_ path: [any CodingKey]) -> String {
        text(path.map { key in key.intValue.map(Step.index) ?? .key(key.stringValue) })
    }

    /// `scenario.controllers`, `operations[0][3]`.
    static func text(_ path: [Step]) -> String {
        var result = ""
        for step in path {
            switch step {
            case .key(let name): result += (result.isEmpty ? "" : ".") + name
            case .index(let index): result += "[\(index)]"
            }
        }
        return result
    }

    /// What a value of `type` must be, in words: `a whole number`, `a string`, `a list`, ...
    static func expectation(_ type: Any.Type) -> String {
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

    /// What is at `path` in `json`, in words: `a string ("many")`, `a number (3.5)`, `a list`, ...
    private static func found(at path: [any CodingKey], in json: Any) -> String {
        var value: Any? = json
        for key in path {
            if let list = value as? [Any], let index = key.intValue {
                value = list.indices.contains(index) ? list[index] : nil
            } else if let object = value as? [String: Any] {
                value = object[key.stringValue]
            } else {
                value = nil
            }
        }
        return value.map(kind) ?? "something else"
    }

    /// `null`, `true`, `a number (3.5)`, `a string ("x")`, `a list`, `an object`.
    static func kind(_ value: Any) -> String {
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

    /// The first number in `json` (in document order) that is not a whole number fitting an `Int` and whose
    /// replacement by 0 (after those before it) makes the path-less error go away; `nil` if none does.
    private static func numberThatDoesNotFit(_ json: Any, decode: (Data) throws -> Void) -> (path: [Step], number: NSNumber)? {
        var suspects: [(path: [Step], number: NSNumber)] = []
        collectSuspects(json, path: [], into: &suspects)
        var changed = json
        for suspect in suspects.prefix(200) {
            changed = replacing(suspect.path[...], in: changed, with: NSNumber(value: 0))
            guard let data = try? JSONSerialization.data(withJSONObject: changed) else { return nil }
            do {
                try decode(data)
                return suspect
            } catch let error as DecodingError {
                if case .dataCorrupted(let context) = error, context.codingPath.isEmpty { continue }
                return suspect
            } catch {
                return suspect
            }
        }
        return nil
    }

    private static func collectSuspects(_ value: Any, path: [Step], into suspects: inout [(path: [Step], number: NSNumber)]) {
        switch value {
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "d", "f": if Int(exactly: number.doubleValue) == nil { suspects.append((path, number)) }
            case "Q": if number.uint64Value > UInt64(Int.max) { suspects.append((path, number)) }
            default: break
            }
        case let list as [Any]:
            for (index, element) in list.enumerated() { collectSuspects(element, path: path + [.index(index)], into: &suspects) }
        case let object as [String: Any]:
            for key in object.keys.sorted() { collectSuspects(object[key]!, path: path + [.key(key)], into: &suspects) }
        default:
            break
        }
    }

    /// `json` with the value at `path` replaced by `replacement`.
    private static func replacing(_ path: ArraySlice<Step>, in json: Any, with replacement: Any) -> Any {
        guard let step = path.first else { return replacement }
        switch step {
        case .index(let index):
            guard var list = json as? [Any], list.indices.contains(index) else { return json }
            list[index] = replacing(path.dropFirst(), in: list[index], with: replacement)
            return list
        case .key(let key):
            guard var object = json as? [String: Any], let inner = object[key] else { return json }
            object[key] = replacing(path.dropFirst(), in: inner, with: replacement)
            return object
        }
    }
}
