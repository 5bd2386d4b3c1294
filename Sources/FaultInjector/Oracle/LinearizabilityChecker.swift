/// Checks that the results of the calls on one (controller, object) can be explained by some order of the calls that
/// respects real time (each call takes effect at one instant between its call and return).
///
/// The state is one of three per key (never registered, registered, removed), packed two bits a key, and results
/// are exact (`registered` vs `duplicate`, `removed` vs `alreadyRemoved` vs `notRegistered`, for one key path and for
/// the whole object; the queries' answers), which is what makes the guard's answers checkable. The search is Lowe's
/// just-in-time linearization: configurations (state, set of pending calls already placed) advance event by event,
/// and only calls that must take effect are placed; a budget bounds the work.
struct LinearizabilityChecker {
    /// The result one call reported about its key or object.
    enum Removal {
        case removed, alreadyRemoved, notRegistered
    }

    /// What one call does to the state, given the result it reported.
    enum Effect {
        /// Observe of key number `key`: `registered` (it was not registered) or a duplicate (it was).
        case observe(key: Int, registered: Bool)
        /// Unobserve of key number `key`.
        case unobserve(key: Int, Removal)
        /// Unobserve of the whole object: `removed` if any key was registered (all of them are then removed),
        /// `alreadyRemoved` if none was but one was removed before, `notRegistered` if none ever was.
        case unobserveObject(Removal)
        /// Unobserve of everything (its count is checked elsewhere): every registered key becomes removed.
        case clear
        /// `isObserving` of key number `key` answered `answer`.
        case isObserving(key: Int, answer: Bool)
        /// `observedKeyPaths` answered exactly the keys in `keys` (one bit per key number).
        case observedKeys(UInt64)

        /// The state after the call, or `nil` if the result is impossible in `state`.
        func apply(to state: UInt64) -> UInt64? {
            switch self {
            case .observe(let key, let registered):
                let current = Self.state(of: key, in: state)
                if registered { return current == Self.registered ? nil : Self.setting(key, to: Self.registered, in: state) }
                return current == Self.registered ? state : nil
            case .unobserve(let key, let result):
                let current = Self.state(of: key, in: state)
                switch result {
                case .removed: return current == Self.registered ? Self.setting(key, to: Self.removed, in: state) : nil
                case .alreadyRemoved: return current == Self.removed ? state : nil
                case .notRegistered: return current == Self.never ? state : nil
                }
            case .unobserveObject(let result):
                let registered = Self.registeredBits(state)
                switch result {
                case .removed: return registered != 0 ? Self.clearing(state) : nil
                case .alreadyRemoved: return registered == 0 && state != 0 ? state : nil
                case .notRegistered: return state == 0 ? state : nil
                }
            case .clear:
                return Self.clearing(state)
            case .isObserving(let key, let answer):
                return (Self.state(of: key, in: state) == Self.registered) == answer ? state : nil
            case .observedKeys(let keys):
                return Self.keys(ofSpread: Self.registeredBits(state)) == keys ? state : nil
            }
        }

        static let never: UInt64 = 0
        static let registered: UInt64 = 1
        static let removed: UInt64 = 2
        private static let lowBits: UInt64 = 0x5555_5555_5555_5555

        static func state(of key: Int, in state: UInt64) -> UInt64 {
            (state >> UInt64(2 * key)) & 3
        }

        static func setting(_ key: Int, to value: UInt64, in state: UInt64) -> UInt64 {
            let shift = UInt64(2 * key)
            return (state & ~(3 << shift)) | (value << shift)
        }

        /// The low bit of each registered key's pair.
        static func registeredBits(_ state: UInt64) -> UInt64 {
            state & ~(state >> 1) & lowBits
        }

        /// Every registered key becomes removed.
        static func clearing(_ state: UInt64) -> UInt64 {
            let registered = registeredBits(state)
            return (state & ~(registered | registered << 1)) | registered << 1
        }

        /// One bit per key number from a pair-spread mask.
        static func keys(ofSpread spread: UInt64) -> UInt64 {
            var keys: UInt64 = 0
            var bits = spread
            while bits != 0 {
                let position = bits.trailingZeroBitCount
                keys |= 1 << UInt64(position / 2)
                bits &= bits - 1
            }
            return keys
        }
    }

    struct Call {
        let call: UInt64
        let ret: UInt64
        let effect: Effect
        /// How a violation message names the call; `nil` to have ``check(_:describing:)`` describe it only if needed.
        let label: String?

        init(call: UInt64, ret: UInt64, effect: Effect, label: String? = nil) {
            self.call = call
            self.ret = ret
            self.effect = effect
            self.label = label
        }
    }

    /// What ``check(_:describing:)`` found for one key.
    enum Outcome: Equatable {
        case linearizable
        /// No order explains the results; the message names the call at which every explanation died.
        case violated(String)
        /// The search budget ran out.
        case inconclusive
    }

    /// Largest number of placements explored per key before giving up.
    var budget = 200_000

    private struct Configuration: Hashable {
        var state: UInt64
        var placed: PendingCallSet
    }

    /// Checks `calls`; a violation names the call with its label, or (for a call without one) with what `describe`
    /// says about its index (only built when a verdict names it: most calls never are).
    func check(_ calls: [Call], describing describe: (Int) -> String = { "call \($0)" }) -> Outcome {
        // Events in time order; at equal times calls come first (the more permissive reading).
        var events: [(time: UInt64, isReturn: Bool, call: Int)] = []
        events.reserveCapacity(calls.count * 2)
        for (index, call) in calls.enumerated() {
            events.append((call.call, false, index))
            events.append((call.ret, true, index))
        }
        events.sort { ($0.time, $0.isReturn ? 1 : 0) < ($1.time, $1.isReturn ? 1 : 0) }

        var configurations: [Configuration] = [Configuration(state: 0, placed: PendingCallSet())]
        var bitOfCall = [Int](repeating: -1, count: calls.count)
        /// The pending calls as (bit, call index).
        var pending: [(bit: Int, call: Int)] = []
        var freeBits = Array((0..<128).reversed())
        var steps = 0

        for event in events {
            if !event.isReturn {
                guard let bit = freeBits.popLast() else { return .inconclusive }
                bitOfCall[event.call] = bit
                pending.append((bit, event.call))
                continue
            }
            let bit = bitOfCall[event.call]
            var next: [Configuration]
            if pending.count == 1, configurations.count == 1, !configurations[0].placed.contains(bit) {
                // The common sequential case: nothing else is pending, so the call takes effect now or never.
                steps += 1
                if steps > budget { return .inconclusive }
                next = calls[event.call].effect.apply(to: configurations[0].state).map {
                    [Configuration(state: $0, placed: configurations[0].placed)]
                } ?? []
            } else {
                var reached: Set<Configuration> = []
                for start in configurations {
                    var stack = [start]
                    var seen: Set<Configuration> = [start]
                    while let configuration = stack.popLast() {
                        if configuration.placed.contains(bit) {
                            reached.insert(
                                Configuration(state: configuration.state, placed: configuration.placed.removing(bit)))
                            continue
                        }
                        for (pendingBit, pendingCall) in pending where !configuration.placed.contains(pendingBit) {
                            steps += 1
                            if steps > budget { return .inconclusive }
                            guard let state = calls[pendingCall].effect.apply(to: configuration.state) else { continue }
                            let placed = Configuration(state: state, placed: configuration.placed.inserting(pendingBit))
                            if seen.insert(placed).inserted { stack.append(placed) }
                        }
                    }
                }
                next = Array(reached)
            }
            pending.removeAll { $0.bit == bit }
            freeBits.append(bit)
            if next.isEmpty {
                let label = calls[event.call].label ?? describe(event.call)
                return .violated("no order of the calls explains \(label)")
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
