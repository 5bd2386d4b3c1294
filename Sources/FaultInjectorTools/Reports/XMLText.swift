import FaultInjector

/// Escaping for XML 1.0: any string becomes well-formed element text or a quoted attribute value, whatever it holds
/// (markup characters, quotes, newlines, control characters from a crash log).
public enum XMLText {
    /// `text` as element content: `&`, `<` and `>` escaped, characters XML 1.0 cannot hold replaced by U+FFFD.
    public static func content(_ text: String) -> String {
        escape(text, inAttribute: false)
    }

    /// `text` as a double-quoted attribute value, quotes included: also `"` escaped, and tab, newline and carriage
    /// return written as character references so they survive attribute normalization.
    public static func attribute(_ text: String) -> String {
        "\"" + escape(text, inAttribute: true) + "\""
    }

    private static func escape(_ text: String, inAttribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "\t" where inAttribute: out += "&#9;"
            case "\n" where inAttribute: out += "&#10;"
            case "\r": out += "&#13;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                out.unicodeScalars.append(isAllowed(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return out
    }

    /// Whether XML 1.0 allows `scalar` in a document (`Char` production).
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }
}
