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
