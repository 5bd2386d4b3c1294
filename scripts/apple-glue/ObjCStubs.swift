// Signature stubs of the Apple APIs KVOGuard's Apple-only code uses (Objective-C runtime, Foundation's key-value
// observing, os logging), transcribed from Apple's SDK documentation. No behaviour: they exist only so that
// scripts/typecheck-apple-glue.sh can type-check the `#if canImport(ObjectiveC)` / `#if canImport(os)` code on Linux.
// A stub that differs from the SDK makes the check wrong, so keep every declaration exactly as Apple declares it.

import Foundation

// MARK: - Objective-C runtime (module ObjectiveC)

public struct Selector: Hashable {
    public init(_ name: String) {}
}

public func NSSelectorFromString(_ aSelectorName: String) -> Selector { Selector(aSelectorName) }

public enum objc_AssociationPolicy: UInt {
    case OBJC_ASSOCIATION_ASSIGN = 0
    case OBJC_ASSOCIATION_RETAIN_NONATOMIC = 1
    case OBJC_ASSOCIATION_COPY_NONATOMIC = 3
    case OBJC_ASSOCIATION_RETAIN = 769
    case OBJC_ASSOCIATION_COPY = 771
}

public func objc_getAssociatedObject(_ object: Any, _ key: UnsafeRawPointer) -> Any? { nil }

public func objc_setAssociatedObject(
    _ object: Any, _ key: UnsafeRawPointer, _ value: Any?, _ policy: objc_AssociationPolicy
) {}

public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result { try body() }

// MARK: - NSObject and Foundation's key-value coding and observing

open class NSObject: Hashable {
    public init() {}

    public static func == (lhs: NSObject, rhs: NSObject) -> Bool { lhs === rhs }
    open func hash(into hasher: inout Hasher) {}

    open func responds(to aSelector: Selector!) -> Bool { false }

    // NSKeyValueCoding
    open func value(forKey key: String) -> Any? { nil }

    // NSKeyValueObserverRegistration
    open func addObserver(
        _ observer: NSObject, forKeyPath keyPath: String, options: NSKeyValueObservingOptions = [],
        context: UnsafeMutableRawPointer?
    ) {}
    open func removeObserver(_ observer: NSObject, forKeyPath keyPath: String, context: UnsafeMutableRawPointer?) {}
    open func removeObserver(_ observer: NSObject, forKeyPath keyPath: String) {}

    // NSKeyValueObserving
    open func observeValue(
        forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
        context: UnsafeMutableRawPointer?
    ) {}
    open var observationInfo: UnsafeMutableRawPointer?

    // NSKeyValueObserverNotification
    open func willChangeValue(forKey key: String) {}
    open func didChangeValue(forKey key: String) {}
    open func willChange(_ changeKind: NSKeyValueChange, valuesAt indexes: IndexSet, forKey key: String) {}
    open func didChange(_ changeKind: NSKeyValueChange, valuesAt indexes: IndexSet, forKey key: String) {}
    open func willChangeValue(
        forKey key: String, withSetMutation mutationKind: NSKeyValueSetMutationKind, using objects: Set<AnyHashable>
    ) {}
    open func didChangeValue(
        forKey key: String, withSetMutation mutationKind: NSKeyValueSetMutationKind, using objects: Set<AnyHashable>
    ) {}

    // NSKeyValueObservingCustomization
    open class func automaticallyNotifiesObservers(forKey key: String) -> Bool { true }
    open class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> { [] }
}

open class NSArray: NSObject {}
open class NSSet: NSObject {}
open class NSOrderedSet: NSObject {}

public struct NSKeyValueChangeKey: Hashable, RawRepresentable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let kindKey = NSKeyValueChangeKey(rawValue: "kind")
    public static let newKey = NSKeyValueChangeKey(rawValue: "new")
    public static let oldKey = NSKeyValueChangeKey(rawValue: "old")
    public static let indexesKey = NSKeyValueChangeKey(rawValue: "indexes")
    public static let notificationIsPriorKey = NSKeyValueChangeKey(rawValue: "notificationIsPrior")
}

public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let new = NSKeyValueObservingOptions(rawValue: 0x01)
    public static let old = NSKeyValueObservingOptions(rawValue: 0x02)
    public static let initial = NSKeyValueObservingOptions(rawValue: 0x04)
    public static let prior = NSKeyValueObservingOptions(rawValue: 0x08)
}

public enum NSKeyValueChange: UInt, Sendable {
    case setting = 1
    case insertion = 2
    case removal = 3
    case replacement = 4
}

public enum NSKeyValueSetMutationKind: UInt, Sendable {
    case union = 1
    case minus = 2
    case intersect = 3
    case set = 4
}

// MARK: - os (unified logging)

public final class OSLog: @unchecked Sendable {
    public init(subsystem: String, category: String) {}
    public static let `default` = OSLog(subsystem: "", category: "")
}

public struct OSLogType: Sendable {
    public static let `default` = OSLogType()
    public static let error = OSLogType()
}

public func os_log(
    _ message: StaticString, dso: UnsafeRawPointer? = nil, log: OSLog = .default, type: OSLogType = .default,
    _ args: any CVarArg...
) {}

public struct OSLogPrivacy: Sendable {
    public static let `public` = OSLogPrivacy()
    public static let `private` = OSLogPrivacy()
    public static let auto = OSLogPrivacy()
}

public struct OSLogMessage: ExpressibleByStringInterpolation {
    public struct StringInterpolation: StringInterpolationProtocol {
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) {}
        public mutating func appendInterpolation(
            _ argumentString: @autoclosure @escaping () -> String, privacy: OSLogPrivacy = .auto
        ) {}
    }

    public init(stringLiteral value: String) {}
    public init(stringInterpolation: StringInterpolation) {}
}

public struct Logger {
    public init(_ logObj: OSLog) {}
    public init(subsystem: String, category: String) {}
    public func error(_ message: OSLogMessage) {}
}

// MARK: - OSLog (module OSLog, macOS 12+)

open class OSLogEntry {
    open var composedMessage: String { "" }
}

open class OSLogEntryLog: OSLogEntry {}

open class OSLogPosition {}

open class OSLogStore {
    public enum Scope { case system, currentProcessIdentifier }
    public struct EnumeratorOptions: OptionSet {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
    }

    public init(scope: Scope) throws {}
    open func position(timeIntervalSinceEnd seconds: TimeInterval) -> OSLogPosition { OSLogPosition() }
    open func getEntries(
        with options: EnumeratorOptions = [], at position: OSLogPosition? = nil, matching predicate: NSPredicate? = nil
    ) throws -> AnySequence<OSLogEntry> { AnySequence([]) }
}

// MARK: - NSPredicate (its format strings are unavailable in swift-corelibs-foundation)

open class NSPredicate {
    public init(format predicateFormat: String, _ args: any CVarArg...) {}
}
