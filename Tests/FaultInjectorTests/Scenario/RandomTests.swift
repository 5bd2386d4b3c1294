@testable import FaultInjector
import XCTest

final class SplitMix64Tests: XCTestCase {
    /// The reference values of Vigna's splitmix64.c for seed 1234567 (also on Rosetta Code, "Pseudo-random
    /// numbers/Splitmix64"). Checked by hand against the algorithm: state += 0x9E3779B97F4A7C15, then
    /// z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31.
    func testMatchesPublishedReferenceValues() {
        var generator = SplitMix64(seed: 1_234_567)
        XCTAssertEqual(generator.next(), 6_457_827_717_110_365_317)
        XCTAssertEqual(generator.next(), 3_203_168_211_198_807_973)
        XCTAssertEqual(generator.next(), 9_817_491_932_198_370_423)
        XCTAssertEqual(generator.next(), 4_593_380_528_125_082_431)
        XCTAssertEqual(generator.next(), 16_408_922_859_458_223_821)
    }

    func testSameSeedGivesSameSequence() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        let a = (0..<1_000).map { _ in first.next() }
        let b = (0..<1_000).map { _ in second.next() }
        XCTAssertEqual(a, b)
        XCTAssertEqual(Set(a).count, a.count, "a 64-bit generator should not repeat within 1,000 outputs")
    }

    func testDifferentSeedsGiveDifferentSequences() {
        var first = SplitMix64(seed: 1)
        var second = SplitMix64(seed: 2)
        let a = (0..<16).map { _ in first.next() }
        let b = (0..<16).map { _ in second.next() }
        XCTAssertNotEqual(a, b)
    }

    func testMixIsTheOutputFunctionOfTheIncrementedState() {
        // next() is mix(state + golden gamma); mix itself maps 0 to 0 (xor-shifts and products only).
        var generator = SplitMix64(seed: 0)
        XCTAssertEqual(generator.next(), SplitMix64.mix(0x9E37_79B9_7F4A_7C15))
        XCTAssertEqual(SplitMix64.mix(0), 0)
    }
}

final class Xoshiro256StarStarTests: XCTestCase {
    /// xoshiro256** seeded through SplitMix64(1234567), i.e. from state
    /// {6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431}. Computed with an
    /// independent transcription of Blackman and Vigna's xoshiro256starstar.c that reproduces the published
    /// vector for state {1, 2, 3, 4} (11520, 0, 1509978240, 1215971899390074240).
    func testMatchesReferenceImplementationSeededBySplitMix64() {
        var generator = Xoshiro256StarStar(seed: 1_234_567)
        XCTAssertEqual(generator.next(), 3_504_822_795_582_309_479)
        XCTAssertEqual(generator.next(), 1_819_558_768_956_484_042)
        XCTAssertEqual(generator.next(), 1_250_851_346_055_027_673)
        XCTAssertEqual(generator.next(), 16_940_231_675_099_994_102)
    }

    func testSameSeedGivesSameSequence() {
        var first = Xoshiro256StarStar(seed: 99)
        var second = Xoshiro256StarStar(seed: 99)
        XCTAssertEqual((0..<1_000).map { _ in first.next() }, (0..<1_000).map { _ in second.next() })
        var third = Xoshiro256StarStar(seed: 99)
        var fourth = Xoshiro256StarStar(seed: 99)
        XCTAssertEqual(
            (0..<1_000).map { _ in third.next(below: 37) }, (0..<1_000).map { _ in fourth.next(below: 37) })
    }

    func testDifferentSeedsGiveDifferentSequences() {
        var first = Xoshiro256StarStar(seed: 7)
        var second = Xoshiro256StarStar(seed: 8)
        XCTAssertNotEqual((0..<16).map { _ in first.next() }, (0..<16).map { _ in second.next() })
    }

    func testNextBelowStaysInRangeForManyBounds() {
        var generator = Xoshiro256StarStar(seed: 2024)
        let bounds = [1, 2, 3, 7, 10, 100, 1_000_003, Int.max / 3, Int(UInt64(1) << 62) + 1, Int.max]
        for bound in bounds {
            for _ in 0..<2_000 {
                let value = generator.next(below: bound)
                XCTAssertTrue((0..<bound).contains(value), "\(value) is outside 0..<\(bound)")
                if !(0..<bound).contains(value) { return }
            }
        }
        for _ in 0..<100 { XCTAssertEqual(generator.next(below: 1), 0) }
    }

    func testNextInClosedRangeStaysInRangeAndReachesBothEnds() {
        var generator = Xoshiro256StarStar(seed: 11)
        var seen = Set<Int>()
        for _ in 0..<5_000 {
            let value = generator.next(in: -3...3)
            XCTAssertTrue((-3...3).contains(value))
            seen.insert(value)
        }
        XCTAssertEqual(seen, Set(-3...3))
    }

    /// Pearson's chi-square over 100,000 draws of `next(below: 10)`: 9 degrees of freedom, mean 9; a value above
    /// 40 has probability below 1e-5 for a uniform generator. A biased reduction (say `% 10` on few bits, or an
    /// off-by-one that never returns 9) lands far above.
    func testNextBelowIsRoughlyUniform() {
        for (seed, bound) in [(UInt64(1), 10), (UInt64(77), 7), (UInt64(31_337), 16)] {
            var generator = Xoshiro256StarStar(seed: seed)
            let draws = 100_000
            var counts = [Int](repeating: 0, count: bound)
            for _ in 0..<draws { counts[generator.next(below: bound)] += 1 }
            let expected = Double(draws) / Double(bound)
            let chiSquare = counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
            XCTAssertLessThan(chiSquare, 40, "bound \(bound): counts \(counts)")
            XCTAssertFalse(counts.contains(0), "bound \(bound): some value never came up: \(counts)")
        }
    }

    /// With bound 2^62 + 1, Lemire's method rejects about a quarter of the raw draws (2^64 mod bound is
    /// 2^62 - 3); results must stay in range and split evenly between the lower and upper halves. Int.max (almost
    /// no rejection) is checked the same way.
    func testNextBelowWithLargeBoundsIsUnbiasedBetweenHalves() {
        var generator = Xoshiro256StarStar(seed: 5)
        for bound in [Int(UInt64(1) << 62) + 1, Int.max] {
            var upper = 0
            let draws = 20_000
            for _ in 0..<draws {
                let value = generator.next(below: bound)
                XCTAssertTrue((0..<bound).contains(value))
                if value >= bound / 2 { upper += 1 }
            }
            XCTAssertEqual(Double(upper) / Double(draws), 0.5, accuracy: 0.03, "bound \(bound)")
        }
    }

    func testChanceZeroNeverAndOneAlways() {
        var generator = Xoshiro256StarStar(seed: 3)
        for _ in 0..<20_000 {
            XCTAssertFalse(generator.chance(0))
            XCTAssertTrue(generator.chance(1))
        }
        XCTAssertFalse(generator.chance(-0.5))
        XCTAssertTrue(generator.chance(2))
    }

    func testChanceMatchesItsProbability() {
        var generator = Xoshiro256StarStar(seed: 4)
        let draws = 100_000
        for probability in [0.01, 0.25, 0.5, 0.9] {
            let hits = (0..<draws).reduce(0) { count, _ in count + (generator.chance(probability) ? 1 : 0) }
            XCTAssertEqual(Double(hits) / Double(draws), probability, accuracy: 0.01, "p = \(probability)")
        }
    }

    func testPickNeverPicksAZeroWeight() {
        var generator = Xoshiro256StarStar(seed: 6)
        let weights = [0, 3, 0, 1, 0]
        var counts = [Int](repeating: 0, count: weights.count)
        for _ in 0..<40_000 { counts[generator.pick(weights: weights)] += 1 }
        XCTAssertEqual(counts[0], 0)
        XCTAssertEqual(counts[2], 0)
        XCTAssertEqual(counts[4], 0)
        XCTAssertEqual(Double(counts[1]) / Double(counts[3]), 3, accuracy: 0.2, "\(counts)")
        for _ in 0..<1_000 {
            XCTAssertEqual(generator.pick(weights: [0, 0, 5]), 2)
            XCTAssertEqual(generator.pick(weights: [9, 0, 0]), 0)
        }
    }

    func testPickFollowsTheDefaultOperationMix() {
        // The scenario drawer picks operations with the mix's weights; every non-zero weight must come up, in
        // proportion.
        let weights = OperationMix().weights
        var generator = Xoshiro256StarStar(seed: 8)
        var counts = [Int](repeating: 0, count: weights.count)
        let draws = 100_000
        for _ in 0..<draws { counts[generator.pick(weights: weights)] += 1 }
        let total = Double(weights.reduce(0, +))
        for (index, weight) in weights.enumerated() {
            XCTAssertEqual(
                Double(counts[index]) / Double(draws), Double(weight) / total, accuracy: 0.01, "operation \(index)")
        }
    }
}

final class StreamSeedsTests: XCTestCase {
    func testSameInputsGiveSameSeed() {
        for purpose in [StreamSeeds.Purpose.operations, .faults, .rounds] {
            for index in [0, 1, 63] {
                XCTAssertEqual(
                    StreamSeeds.seed(run: 1_234, purpose: purpose, index: index),
                    StreamSeeds.seed(run: 1_234, purpose: purpose, index: index))
            }
        }
        var first = StreamSeeds.generator(run: 9, purpose: .faults, index: 3)
        var second = StreamSeeds.generator(run: 9, purpose: .faults, index: 3)
        XCTAssertEqual((0..<100).map { _ in first.next() }, (0..<100).map { _ in second.next() })
    }

    func testDifferentWorkersPurposesAndRunsGiveDifferentSeeds() {
        var seeds = Set<UInt64>()
        var count = 0
        for run: UInt64 in [0, 1, 2, 1_234, .max] {
            for purpose in [StreamSeeds.Purpose.operations, .faults, .rounds] {
                for index in 0..<256 {
                    seeds.insert(StreamSeeds.seed(run: run, purpose: purpose, index: index))
                    count += 1
                }
            }
        }
        XCTAssertEqual(seeds.count, count, "two (run, purpose, worker) triples share a seed")
    }

    func testGeneratorIsSeededWithTheStreamSeed() {
        var fromStream = StreamSeeds.generator(run: 77, purpose: .operations, index: 5)
        var direct = Xoshiro256StarStar(seed: StreamSeeds.seed(run: 77, purpose: .operations, index: 5))
        XCTAssertEqual((0..<10).map { _ in fromStream.next() }, (0..<10).map { _ in direct.next() })
        var otherWorker = StreamSeeds.generator(run: 77, purpose: .operations, index: 6)
        var sameWorker = StreamSeeds.generator(run: 77, purpose: .operations, index: 5)
        XCTAssertNotEqual((0..<10).map { _ in otherWorker.next() }, (0..<10).map { _ in sameWorker.next() })
    }
}
