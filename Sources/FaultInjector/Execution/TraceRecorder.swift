/// Records a run's trace: told by the stress world what each worker does, as it happens; the controlled runner's
/// scheduler implements it to build the step-by-step trace. The chaos runner installs none.
protocol TraceRecorder: AnyObject, Sendable {
    /// Worker `worker` began (or skipped) an operation, ended one, or received a notification.
    func record(_ kind: TraceEvent.Kind, worker: Int)
}
