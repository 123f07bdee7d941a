import Testing

/// Polls `condition` until it holds, failing the test after `timeout`: for states only observable by asking.
package func waitUntil(
    timeout: Duration = .seconds(30),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
    throw CancellationError()
}

/// Waits until `look` finds the work done, for as long as the progress it reads keeps growing: fails only when the
/// progress stood still for `stall`. For work of many steps, each of which moves it on (a session's deliveries, one
/// at a time), this tells a stop from a machine that is merely slow, where a deadline for the whole would not.
package func waitUntil(
    progressing stall: Duration,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ look: () async throws -> (done: Bool, progress: Int64)
) async throws {
    var (progress, movedAt) = (Int64.min, ContinuousClock.now)
    while ContinuousClock.now < movedAt + stall {
        let seen = try await look()
        if seen.done { return }
        if seen.progress > progress { (progress, movedAt) = (seen.progress, ContinuousClock.now) }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("no progress for \(stall) (stood at \(progress))", sourceLocation: sourceLocation)
    throw CancellationError()
}
