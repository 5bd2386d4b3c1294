@testable import FaultInjector
import Foundation
import XCTest

/// A round's process built with a sanitizer dies the sanitizer's way: the verdict names the sanitizer
/// (`crash(ThreadSanitizer)`), never the exit status it chose (`crash(exit 66)`), and a Swift trap whose ending the
/// sanitizer garbled is still a trap. The logs are what those processes wrote (process ids and addresses kept).
final class SanitizerVerdictTests: XCTestCase {
    private static let threadSanitizerSegfault = """
        ThreadSanitizer:DEADLYSIGNAL
        ==8110==ERROR: ThreadSanitizer: SEGV on unknown address 0x000000000008 (pc 0x560666cbe0ed bp 0x000000000000 sp 0x7fffe7cabaf0 T8110)
        ==8110==The signal is caused by a WRITE memory access.
        ==8110==Hint: address points to the zero page.
            #0 main <null> (trap+0xfd0ed)
        ThreadSanitizer can not provide additional info.
        SUMMARY: ThreadSanitizer: SEGV (/tmp/trap+0xfd0ed) in main
        ==8110==ABORTING
        """

    private static let threadSanitizerRace = """
        ==================
        WARNING: ThreadSanitizer: Swift access race (pid=8124)
          Modifying access of Swift variable at 0x720800000090 by thread T1:
        SUMMARY: ThreadSanitizer: Swift access race (/tmp/trap+0xfcc29) in closure
        ==================
        ThreadSanitizer: reported 1 warnings
        """

    private static let addressSanitizerUseAfterFree = """
        =================================================================
        ==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x55d5 bp 0x7ffd sp 0x7ffc
        READ of size 8 at 0x602000000010 thread T0
        SUMMARY: AddressSanitizer: heap-use-after-free (/tmp/x+0x1234) in main
        ==4242==ABORTING
        """

    /// A `fatalError` under ThreadSanitizer: Swift's backtracer catches the trap's SIGILL, ThreadSanitizer fails in
    /// it, and the process ends by SIGSEGV.
    private static let trapUnderThreadSanitizer = """
        FaultInjector/CrashFixtureTarget.swift:95: Fatal error: fixture-trap: deliberate trap while observing

        *** Signal 4: Backtracing from 0x7fb9f2af9361...ThreadSanitizer: CHECK failed: tsan_rtl.cpp:261 "((!thr->slot)) != (0)" (0x0, 0x0) (tid=8107)
        """

    func testASegfaultCaughtByThreadSanitizerIsACrashNamedAfterIt() {
        let verdict = Verdict(processEnd: .exited(66), log: Self.threadSanitizerSegfault, seconds: 1.2)
        XCTAssertEqual(verdict.signature, "crash(ThreadSanitizer)")
        XCTAssertEqual(verdict.crashSignals, ["ThreadSanitizer": 1])
        XCTAssertEqual(
            verdict.violations.first?.message,
            "the round's process was ended by ThreadSanitizer (exited with status 66) after 1.2 s: ERROR: "
                + "ThreadSanitizer: SEGV on unknown address 0x000000000008 (pc 0x560666cbe0ed bp 0x000000000000 sp "
                + "0x7fffe7cabaf0 T8110)")
        XCTAssertEqual(verdict.violations.first?.kind, .crash)
    }

    func testAReportThreadSanitizerExitedOnIsACrashNamedAfterIt() {
        let verdict = Verdict(processEnd: .exited(66), log: Self.threadSanitizerRace, seconds: 3)
        XCTAssertEqual(verdict.signature, "crash(ThreadSanitizer)")
        XCTAssertTrue(
            verdict.violations.first?.message.hasSuffix(": WARNING: ThreadSanitizer: Swift access race (pid=8124)")
                ?? false, verdict.violations.first?.message ?? "")
    }

    func testAddressSanitizerIsRecognizedToo() {
        let verdict = Verdict(processEnd: .exited(1), log: Self.addressSanitizerUseAfterFree, seconds: 1)
        XCTAssertEqual(verdict.signature, "crash(AddressSanitizer)")
        XCTAssertTrue(
            verdict.violations.first?.message.contains(": ERROR: AddressSanitizer: heap-use-after-free") ?? false)
    }

    func testATrapWhoseEndingTheSanitizerGarbledIsStillATrap() {
        let verdict = Verdict(processEnd: .signalled(SIGSEGV), log: Self.trapUnderThreadSanitizer, seconds: 1)
        XCTAssertEqual(verdict.signature, "trap")
        XCTAssertEqual(verdict.crashSignals, ["SIGILL": 1], "the signal the trap raised, as the backtracer named it")
        XCTAssertEqual(
            verdict.violations.first?.message,
            "the round's process trapped (SIGILL, then killed by SIGSEGV) after 1.0 s: FaultInjector/"
                + "CrashFixtureTarget.swift:95: Fatal error: fixture-trap: deliberate trap while observing")
    }

    /// Without a sanitizer's words the ending decides, as before: a signal, an exit status, a trap's signal.
    func testWithoutASanitizerTheEndingDecides() {
        XCTAssertEqual(Verdict(processEnd: .exited(66), log: "", seconds: 1).signature, "crash(exit 66)")
        XCTAssertEqual(Verdict(processEnd: .signalled(SIGSEGV), log: "", seconds: 1).signature, "crash(SIGSEGV)")
        // A report the process survived (it went on and exited 0) did not end it.
        XCTAssertNil(ProcessDeathCause.find(in: Self.threadSanitizerRace, end: .exited(0)))
        // A trap that ended with its own signal needs no reading.
        XCTAssertNil(ProcessDeathCause.find(in: Self.trapUnderThreadSanitizer, end: .signalled(SIGILL)))
        XCTAssertEqual(
            Verdict(processEnd: .signalled(SIGILL), log: Self.trapUnderThreadSanitizer, seconds: 1).signature, "trap")
    }

    /// A trap whose process the sanitizer then ended with its own exit status is a trap too.
    func testATrapThatTheSanitizerExitedOnIsStillATrap() {
        let verdict = Verdict(processEnd: .exited(66), log: Self.trapUnderThreadSanitizer, seconds: 1)
        XCTAssertEqual(verdict.signature, "trap")
        XCTAssertEqual(
            verdict.violations.first?.message,
            "the round's process trapped (SIGILL, then exited with status 66) after 1.0 s: FaultInjector/"
                + "CrashFixtureTarget.swift:95: Fatal error: fixture-trap: deliberate trap while observing")
    }

    /// What tells the parent that a child which abandoned its round as blocked is in fact dying.
    func testADyingProcessIsToldByItsLog() {
        XCTAssertTrue(ProcessDeathCause.isDying(log: "ThreadSanitizer:DEADLYSIGNAL\n"))
        XCTAssertTrue(ProcessDeathCause.isDying(log: Self.threadSanitizerSegfault))
        XCTAssertTrue(ProcessDeathCause.isDying(log: Self.addressSanitizerUseAfterFree))
        XCTAssertTrue(ProcessDeathCause.isDying(log: Self.trapUnderThreadSanitizer))
        XCTAssertTrue(ProcessDeathCause.isDying(log: "\n*** Program crashed: Bad pointer dereference at 0x8 ***\n"))
        XCTAssertFalse(ProcessDeathCause.isDying(log: Self.threadSanitizerRace), "a race report alone does not kill")
        XCTAssertFalse(ProcessDeathCause.isDying(log: "guard-stress: round 3 of 10\n"))
        XCTAssertFalse(ProcessDeathCause.isDying(log: ""))
    }
}
