/// Checks that the observe / unobserve results of one (controller, object, key path) can be explained by some
/// order of the calls that respects real time (each call takes effect at one instant between its call and return).
///
/// The object has three states (never registered, registered, removed) and results are exact (`registered` vs
/// `duplicate`, `removed` vs `alreadyRemoved` vs `notRegistered`), which is what makes the guard's answers
/// checkable. The search is Lowe's just-in-time linearization: configurations (state, set of pending calls already
/// placed) advance event by event, and only calls that must take effect are placed; a budget bounds the work.
struct LinearizabilityChecker {
    /// What one call does to the state, given the result it reported.
    enum Effect {
        case observeRegistered, observeDuplicate
        case unobserveRemoved, unobserveAlreadyRemoved, unobserveNotRegistered
        /// Unobserve of a whole object, or of everything: registered becomes removed; no result to check.
        case clear

        /// The state after the call, or `nil` if the result is impossible in `state`.
        func apply(to state: UInt8) -> UInt8? {
            switch self {
            case .observeRegistered: return state == Self.registered ? nil : Self.registered
            case .observeDuplicate: return state == Self.registered ? Self.registered : nil
            case .unobserveRemoved: return state == Self.registered ? Self.removed : nil
            case .unobserveAlreadyRemoved: return state == Self.removed ? Self.removed : nil
            case .unobserveNotRegistered: return state == Self.never ? Self.never : nil
            case .clear: return state == Self.registered ? Self.removed : state
            }
        }

        static let never: UInt8 = 0
        static let registered: UInt8 = 1
        static let removed: UInt8 = 2
    }

    struct Call {
        let call: UInt64
        let ret: UInt64
        let effect: Effect
        /// Built only when a verdict names the call (most calls are never named).
        private let describe: () -> String

        init(call: UInt64, ret: UInt64, effect: Effect, label: @autoclosure @escaping () -> String) {
            self.call = call
            self.ret = ret
            self.effect = effect
            self.describe = label
        }

        /// How a violation message names the call.
        var label: String { describe() }
    }

    enum Verdict: Equatable {
        case linearizable
        /// No order explains the results; the message names the call at which every explanation died.
        case violated(String)
        /// The search budget ran out.
        case inconclusive
    }

    /// Largest number of placements explored per key before giving up.
    var budget = 200_000

    private struct Configuration: Hashable {
        var state: UInt8
        var placed: PendingCallSet
    }

    func check(_ calls: [Call]) -> Verdict {
        // Events in time order; at equal times calls come first (the more permissive reading).
        var events: [(time: UInt64, isReturn: Bool, call: Int)] = []
        events.reserveCapacity(calls.count * 2)
        for (index, call) in calls.enumerated() {
            events.append((call.call, false, index))
            events.append((call.ret, true, index))
        }
        events.sort { ($0.time, $0.isReturn ? 1 : 0) < ($1.time, $1.isReturn ? 1 : 0) }

        var configurations: Set<Configuration> = [Configuration(state: Effect.never, placed: PendingCallSet())]
        var bitOfCall: [Int: Int] = [:]
        var callOfBit: [Int: Int] = [:]
        var freeBits = Array((0..<128).reversed())
        var steps = 0

        for event in events {
            if !event.isReturn {
                guard let bit = freeBits.popLast() else { return .inconclusive }
                bitOfCall[event.call] = bit
                callOfBit[bit] = event.call
                continue
            }
            let bit = bitOfCall.removeValue(forKey: event.call)!
            var next: Set<Configuration> = []
            for start in configurations {
                var stack = [start]
                var seen: Set<Configuration> = [start]
                while let configuration = stack.popLast() {
                    if configuration.placed.contains(bit) {
                        next.insert(Configuration(state: configuration.state, placed: configuration.placed.removing(bit)))
                        continue
                    }
                    for (pendingBit, pendingCall) in callOfBit where !configuration.placed.contains(pendingBit) {
                        steps += 1
                        if steps > budget { return .inconclusive }
                        guard let state = calls[pendingCall].effect.apply(to: configuration.state) else { continue }
                        let placed = Configuration(
                            state: state, placed: configuration.placed.inserting(pendingBit))
                        if seen.insert(placed).inserted { stack.append(placed) }
                    }
                }
            }
            callOfBit[bit] = nil
            freeBits.append(bit)
            if next.isEmpty {
                return .violated("no order of the calls explains \(calls[event.call].label)")
            }
            configurations = next
        }
        return .linearizable
    }
}

/// Which of the (at most 128) pending calls a configuration has already placed: a 128-bit set in two words, so the
/// checker needs no `UInt128` (which older Apple platforms lack).
struct PendingCallSet: Hashable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// Whether call slot `bit` (0..<128) is in the set.
    func contains(_ bit: Int) -> Bool {
        bit < 64 ? low & (1 << UInt64(bit)) != 0 : high & (1 << UInt64(bit - 64)) != 0
    }

    /// The set with `bit` added.
    func inserting(_ bit: Int) -> PendingCallSet {
        var copy = self
        if bit < 64 { copy.low |= 1 << UInt64(bit) } else { copy.high |= 1 << UInt64(bit - 64) }
        return copy
    }

    /// The set with `bit` removed.
    func removing(_ bit: Int) -> PendingCallSet {
        var copy = self
        if bit < 64 { copy.low &= ~(1 << UInt64(bit)) } else { copy.high &= ~(1 << UInt64(bit - 64)) }
        return copy
    }
}
