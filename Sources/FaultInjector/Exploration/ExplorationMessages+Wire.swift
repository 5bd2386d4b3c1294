/// The wire form (``WireCodable``) of an execution's request and report, field by field in declaration order.

extension DecisionCheck: WireCodable {
    func write(to writer: inout WireWriter) {
        writer.write(Int(point))
        writer.write(current)
        writer.write(runnable)
        writer.writeOptional(signature) { $0.write($1) }
    }

    init(from reader: inout WireReader) throws {
        point = try reader.integer()
        current = try reader.int()
        runnable = try reader.uint64()
        signature = try reader.optional { try $0.uint64() }
    }
}

extension PortableAccess: WireCodable {
    func write(to writer: inout WireWriter) {
        writer.write(created)
        writer.write(name)
        writer.write(Int(word))
        writer.write(writes)
        writer.write(releaseOnly)
    }

    init(from reader: inout WireReader) throws {
        created = try reader.int64()
        name = try reader.int64()
        word = try reader.integer()
        writes = try reader.bool()
        releaseOnly = try reader.bool()
    }
}

extension SleepEntry: WireCodable {
    func write(to writer: inout WireWriter) {
        writer.write(worker)
        writer.write(depth)
        writer.writeList(accesses) { $1.write(to: &$0) }
    }

    init(from reader: inout WireReader) throws {
        worker = try reader.int()
        depth = try reader.int()
        accesses = try reader.list { try PortableAccess(from: &$0) }
    }
}

extension ExecutionRequest: WireCodable {
    func write(to writer: inout WireWriter) {
        writer.writeList(prefix) { $0.write($1) }
        writer.writeList(checks) { $1.write(to: &$0) }
        writer.writeList(sleep.entries) { $1.write(to: &$0) }
        writer.write(usesSleepSets)
    }

    init(from reader: inout WireReader) throws {
        prefix = try reader.list { try $0.int() }
        checks = try reader.list { try DecisionCheck(from: &$0) }
        sleep = SleepSet(try reader.list { try SleepEntry(from: &$0) })
        usesSleepSets = try reader.bool()
    }
}

extension StepAccess: WireCodable {
    func write(to writer: inout WireWriter) {
        // The object number and the two flags in one integer.
        writer.write(Int64(object) << 2 | (writes ? 1 : 0) | (releaseOnly ? 2 : 0))
    }

    init(from reader: inout WireReader) throws {
        let start = reader.offset
        let value = try reader.int64()
        guard let number = Int32(exactly: value >> 2) else { throw WireReader.Malformed(offset: start) }
        object = number
        writes = value & 1 != 0
        releaseOnly = value & 2 != 0
    }
}

extension ExploredStep: WireCodable {
    func write(to writer: inout WireWriter) {
        writer.write(worker)
        writer.write(current)
        writer.write(Int(point))
        writer.write(runnable)
        writer.writeList(accesses) { $1.write(to: &$0) }
    }

    init(from reader: inout WireReader) throws {
        worker = try reader.int()
        current = try reader.int()
        point = try reader.integer()
        runnable = try reader.uint64()
        accesses = try reader.list { try StepAccess(from: &$0) }
    }
}

extension ExploredExecution: WireCodable {
    func write(to writer: inout WireWriter) {
        writer.writeList(steps) { $1.write(to: &$0) }
        writer.writeList(objectWords) { $0.write(Int($1)) }
        writer.writeList(objectNames) { $0.write($1) }
        writer.writeOptional(sleepBlockedAt) { $0.write($1) }
    }

    init(from reader: inout WireReader) throws {
        steps = try reader.list { try ExploredStep(from: &$0) }
        objectWords = try reader.list { try $0.integer() }
        objectNames = try reader.list { try $0.int64() }
        sleepBlockedAt = try reader.optional { try $0.int() }
    }
}

extension ExecutionReport: WireCodable {
    func write(to writer: inout WireWriter) {
        execution.write(to: &writer)
        writer.writeOptional(problem) { $0.write($1) }
        writer.writeList(classHash) { $0.write($1) }
        writer.write(canonicalDigest)
        writer.write(signature)
        writer.writeList(examples) { $0.write($1) }
        writer.writeList(canonicalWorkers) { $0.write($1) }
        writer.write(scheduleWorkers)
        writer.write(schedulePoints)
    }

    init(from reader: inout WireReader) throws {
        execution = try ExploredExecution(from: &reader)
        problem = try reader.optional { try $0.string() }
        classHash = try reader.list { try $0.uint64() }
        canonicalDigest = try reader.string()
        signature = try reader.string()
        examples = try reader.list { try $0.string() }
        canonicalWorkers = try reader.list { try $0.int() }
        scheduleWorkers = try reader.string()
        schedulePoints = try reader.string()
    }
}
