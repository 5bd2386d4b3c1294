import FaultInjector
import Foundation

/// The names a story gives the instances a run made, so that a violation says what the story says: the slot an
/// operation names (`c0`, `o1`), primed for each later instance the slot held (`c0′` after the first
/// `release-observer c0`, then `c0″`), and an observer by its controller (`the observer of c0`). The oracle writes
/// instance ids (`controller 3, object 1`); ``rename(_:)`` rewrites those it knows.
struct StoryNames {
    private var controllers: [Int: String] = [:]
    private var objects: [Int: String] = [:]
    private var observers: [Int: String] = [:]

    /// The names of the instances `records` (a run of `scenario`) touched, each slot's instances primed in the
    /// order the run first used them.
    init(records: [OperationRecord], scenario: Scenario) {
        var generations: [String: [Int]] = [:]
        func name(_ base: String, _ id: Int) -> String {
            var seen = generations[base, default: []]
            if !seen.contains(id) { seen.append(id) }
            generations[base] = seen
            let generation = seen.firstIndex(of: id)!
            switch generation {
            case 0: return base
            case 1...3: return base + String(repeating: "′", count: generation)
            default: return "\(base)(\(generation + 1))"
            }
        }
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for record in records.sorted(by: { ($0.call, $0.id) < ($1.call, $1.id) }) {
            guard let slots = Self.slots(of: record, byID: byID, scenario: scenario) else { continue }
            if let c = slots.controller, record.controller >= 0, controllers[record.controller] == nil {
                controllers[record.controller] = name("c\(c)", record.controller)
            }
            if let o = slots.object, record.object >= 0, objects[record.object] == nil {
                objects[record.object] = name("o\(o)", record.object)
            }
            if record.observer >= 0, observers[record.observer] == nil, let controller = controllers[record.controller] {
                observers[record.observer] = "the observer of \(controller)"
            }
        }
    }

    /// The controller and object slot `record` names: its own operation's (a worker's own), or for a handler action
    /// its handler's controller and the object slot the action names.
    private static func slots(
        of record: OperationRecord, byID: [Int: OperationRecord], scenario: Scenario
    ) -> (controller: Int?, object: Int?)? {
        let lists = scenario.operations
        if record.index >= 0 {
            guard record.worker >= 0, record.worker < lists.count, record.index < lists[record.worker].count else { return nil }
            let used = lists[record.worker][record.index].slotsUsed
            let controller = used.controller >= 0 ? used.controller : nil
            let object: Int?
            switch lists[record.worker][record.index] {
            case .link(let o, _), .mutate(let o, _), .announce(let o, _), .changeItems(let o, _), .releaseObject(let o):
                object = o
            case .observe(_, let o, _, _, _), .observeForwarding(_, let o, _, _, _, _), .observeTyped(_, let o, _, _, _),
                .unobserve(_, let o, _), .unobserveContext(_, let o, _, _), .unobserveTyped(_, let o, _),
                .doubleUnobserve(_, let o, _), .unobserveObject(_, let o), .isObserving(_, let o, _),
                .observedKeyPaths(_, let o):
                object = o
            case .unobserveAll, .countRegistrations, .releaseObserver, .releaseController:
                object = nil
            }
            return (controller, object)
        }
        guard let parent = byID[record.parent], parent.kind == .observe else { return nil }
        return (nil, parent.action.objectSlot)
    }

    /// `message` with every `controller N`, `object N` and `observer N` this run's names know renamed.
    func rename(_ message: String) -> String {
        let pattern = try! NSRegularExpression(pattern: #"\b(controller|object|observer) ([0-9]+)\b"#)
        var result = ""
        var last = message.startIndex
        for match in pattern.matches(in: message, range: NSRange(message.startIndex..., in: message)) {
            guard let whole = Range(match.range, in: message), let kindRange = Range(match.range(at: 1), in: message),
                let idRange = Range(match.range(at: 2), in: message), let id = Int(message[idRange])
            else { continue }
            let table: [Int: String]
            switch message[kindRange] {
            case "controller": table = controllers
            case "object": table = objects
            default: table = observers
            }
            guard let name = table[id] else { continue }
            result += message[last..<whole.lowerBound] + name
            last = whole.upperBound
        }
        return result + message[last...]
    }
}
