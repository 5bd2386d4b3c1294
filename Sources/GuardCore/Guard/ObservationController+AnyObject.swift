extension ObservationController {
    /// Observes several key paths of any object the backend understands, with one untyped handler; one result per
    /// key path, in order. An empty list is an invalid argument (one diagnostic event, no results).
    @discardableResult
    public func observe(
        object: AnyObject?, keyPaths: [String], options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        handler: @escaping @Sendable (_ observer: Observer, _ object: AnyObject, _ change: KeyValueChange) -> Void
    ) -> [ObserveResult] {
        registerTyped(object, keyPaths: keyPaths, options: options, file: file, line: line, handler: handler)
    }
}
