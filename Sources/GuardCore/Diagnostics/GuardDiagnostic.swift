/// One observer mistake the guard absorbed instead of letting it reach the runtime (where it would crash).
///
/// Events are built only when a mistake happens; a normal notification never allocates one.
public struct GuardDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of mistake the guard absorbs.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// `observe` for a (controller, object, key path) that is already registered; the first registration stays.
        case duplicateObservation
        /// `unobserve` of a registration that was removed before.
        case doubleRemoval
        /// `unobserve` of a registration that never existed.
        case removalOfUnregistered
        /// A `nil`, already deallocated or deinitializing object, an empty or malformed key path, an empty key path
        /// list, or a key path the object cannot be observed for.
        case invalidArgument
        /// A notification arrived for an observer that is gone; it was dropped. Reported exactly once per
        /// registration that drops one, whichever thread drops it first and however the drop meets a removal: a
        /// registration that was still active, or one a removal begun after the observer was gone (the teardown of a
        /// controller the observer owned, an `unobserve` from the observer's deinit) had retired but the backend still
        /// notified. A registration removed while its observer lived reports nothing. A handler running on another
        /// thread holds the observer until it returns, so an observer the application released can still receive
        /// notifications meanwhile; the report comes with the first notification dropped once its deinit began.
        case observerDeallocated
        /// A dotted key path stopped making sense: an object along its chain does not have the next key (or is not
        /// observable). Its value reads as `nil` and its deeper changes go unheard until the chain is whole again.
        case keyPathUnavailable
    }

    /// Why an argument was invalid (``Kind/invalidArgument`` only).
    public enum InvalidArgument: String, Sendable, Hashable, CaseIterable, Codable {
        /// The object was `nil` (for example a weak reference whose object is gone).
        case nilObject
        /// The key path was empty or had an empty component.
        case emptyKeyPath
        /// The list of key paths was empty.
        case emptyKeyPathList
        /// The backend cannot observe that key path on that object (unknown key, not an observable object, or a key
        /// path through an array or a set, or with a collection operator, which Foundation cannot observe either).
        case unobservableKeyPath
        /// The controller's observer is gone, so no handler could ever run.
        case observerDeallocated
        /// The key path, or a key path it is declared to depend on, has more than
        /// ``KeyPathSyntax/maximumGuardedComponents`` (128) components. Following a
        /// dotted key path takes stack space for each component, when it is registered, notified and removed, so a
        /// longer one could overflow a thread's stack (Foundation has no limit and overflows).
        case keyPathTooLong
        /// The object was running its deinit (it asked to be observed from there): it is going away, so there is
        /// nothing to observe, and holding it would outlive its deinit, which stops the process.
        case objectDeinitializing
    }

    /// A source location, `file:line`.
    public struct CallSite: Sendable, Hashable, CustomStringConvertible {
        /// The file, as `#fileID` gives it (`Module/File.swift`).
        public let file: String
        /// The line.
        public let line: UInt

        /// Creates a call site.
        public init(file: String, line: UInt) {
            self.file = file
            self.line = line
        }

        /// `Module/File.swift:42`.
        public var description: String { "\(file):\(line)" }
    }

    /// What happened.
    public let kind: Kind
    /// For ``Kind/invalidArgument``, which argument and why.
    public let invalidArgument: InvalidArgument?
    /// The observer's type name (the controller's observer; it may be gone).
    public let observerType: String
    /// The observed object's type name, if there was an object.
    public let objectType: String?
    /// The observed object's address, if there was an object.
    public let objectAddress: UInt?
    /// The key path involved, if any.
    public let keyPath: String?
    /// Where the guard was called from (for notifications, where the registration was made).
    public let callSite: CallSite
    /// The thread the mistake happened on.
    public let thread: String

    /// Creates an event.
    public init(
        kind: Kind, invalidArgument: InvalidArgument? = nil, observerType: String, objectType: String?,
        objectAddress: UInt?, keyPath: String?, callSite: CallSite, thread: String
    ) {
        self.kind = kind
        self.invalidArgument = invalidArgument
        self.observerType = observerType
        self.objectType = objectType
        self.objectAddress = objectAddress
        self.keyPath = keyPath
        self.callSite = callSite
        self.thread = thread
    }

    /// One readable line, e.g. `KVOGuard: double removal: observer ViewModel, object <Person: 0x...>, key path
    /// "age" at App/ViewModel.swift:42 on thread 12 (absorbed; no crash)`.
    public var description: String {
        var text = "KVOGuard: \(summary): observer \(Self.oneLine(observerType))"
        if let objectType {
            let object = ObjectDescription.describe(typeName: Self.oneLine(objectType), address: objectAddress ?? 0)
            text += ", object " + object
        }
        if let keyPath {
            let shown = keyPath.unicodeScalars.count > Self.longestKeyPathShown
                ? String(keyPath.unicodeScalars.prefix(Self.longestKeyPathShown)) + "…" : keyPath
            text += ", key path \"\(Self.oneLine(shown, escapingQuotes: true))\""
            if shown != keyPath { text += " (\(keyPath.utf8.count) bytes in all)" }
        }
        text += " at \(Self.oneLine(callSite.description)) on \(Self.oneLine(thread)) (absorbed; no crash)"
        return text
    }

    /// The most of a key path a one-line description shows (in Unicode scalars); a longer one is cut there and marked
    /// with "…" and its full length. ``keyPath`` always holds all of it.
    static let longestKeyPathShown = 512

    /// `text` with line breaks, other control characters and (inside quotes) quotes and backslashes escaped as in
    /// Swift string literals, so an event is always one line that no field can forge more of.
    private static func oneLine(_ text: String, escapingQuotes: Bool = false) -> String {
        func breaksTheLine(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
        }
        func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
            breaksTheLine(scalar) || (escapingQuotes && (scalar == "\"" || scalar == "\\"))
        }
        guard text.unicodeScalars.contains(where: needsEscaping) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where breaksTheLine(scalar): escaped += "\\u{" + String(scalar.value, radix: 16) + "}"
            case _ where needsEscaping(scalar): escaped += "\\" + String(scalar)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private var summary: String {
        switch kind {
        case .duplicateObservation: return "duplicate observation ignored"
        case .doubleRemoval: return "double removal ignored"
        case .removalOfUnregistered: return "removal of an unregistered observation ignored"
        case .observerDeallocated: return "notification for a deallocated observer dropped"
        case .keyPathUnavailable: return "key path cannot be followed on the current objects; it reads as nil"
        case .invalidArgument:
            switch invalidArgument {
            case .nilObject: return "invalid argument (object is nil or deallocated)"
            case .emptyKeyPath: return "invalid argument (empty key path)"
            case .emptyKeyPathList: return "invalid argument (empty key path list)"
            case .unobservableKeyPath where keyPath?.hasPrefix("\\") == true:
                return "invalid argument (Swift key path without a key-value name: observe a string key path instead)"
            case .unobservableKeyPath: return "invalid argument (key path cannot be observed on this object)"
            case .observerDeallocated: return "invalid argument (the controller's observer is gone)"
            case .keyPathTooLong:
                return "invalid argument (key path has more than \(KeyPathSyntax.maximumGuardedComponents) components)"
            case .objectDeinitializing: return "invalid argument (object is running its deinit)"
            case nil: return "invalid argument"
            }
        }
    }
}
