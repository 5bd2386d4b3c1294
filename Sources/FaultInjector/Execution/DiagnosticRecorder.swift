import GuardCore

/// The diagnostic sink a run gives its controllers: each event becomes a ``DiagnosticRecord`` naming the operation
/// whose call site it carries, in the log of the worker whose thread reported it.
final class DiagnosticRecorder: DiagnosticSink, @unchecked Sendable {
    private let clock: RunClock
    private let strays = UnorderedRecords([DiagnosticRecord]())
    /// Told as each event arrives, before it is recorded: a sink is user code (set once, before the run starts).
    var startsUserCode: (@Sendable () -> Void)?

    init(clock: RunClock) {
        self.clock = clock
    }

    func record(_ event: GuardDiagnostic) {
        startsUserCode?()
        let operation =
            event.callSite.file == StressCall.file ? Int(truncatingIfNeeded: event.callSite.line) : -1
        let worker = WorkerContext.current
        let record = DiagnosticRecord(
            kind: event.kind, reason: event.invalidArgument, keyPath: event.keyPath, operation: operation,
            worker: worker?.index ?? -1, time: clock.now, objectAddress: event.objectAddress,
            observerType: event.observerType, objectType: event.objectType,
            namesReportingThread: event.thread == CurrentThread.description)
        if let worker {
            worker.diagnostics.append(record)
        } else {
            strays.update { $0.append(record) }
        }
    }

    /// Events reported on threads that are not workers.
    var recordedOffWorkers: [DiagnosticRecord] {
        strays.current
    }
}
