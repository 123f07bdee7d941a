import Testing
import TransferdTestOrigins

extension APIClient {
    /// Creates `session` with one download of `size` bytes that the origin sends at 500 kB/s (its ranges recorded
    /// under the session's name), and returns once a checkpoint recorded more than 400 kB of it.
    func startThrottledDownload(_ session: String, size: Int, origin: OriginServer) async throws {
        try await createSession(session)
        _ = try await createTask(session, url: origin.url("/files/\(size)?name=\(session)&faults=0&bytesPerSecond=500000"))
        // A progress event is written with a checkpoint: the bytes it counts are recorded, not just received (a
        // task read on its own instance shows them live, before any checkpoint on a loaded machine).
        _ = try await waitForEvent(session) { $0.type == "task.progress" && ($0.data.totalBytesWritten ?? 0) > 400_000 }
    }

    /// The data of the task's last `task.resumed_at_offset` event; fails the test when there is none.
    func resumedAtOffset(
        _ session: String,
        _ taskIdentifier: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> EventDataView {
        let events = try await allEvents(session)
        let event = events.last { $0.type == "task.resumed_at_offset" && $0.taskIdentifier == taskIdentifier }
        return try #require(event, "task \(taskIdentifier) has no task.resumed_at_offset", sourceLocation: sourceLocation).data
    }

    /// Checks that the task continued its partial file: it says so at an offset past 0, and the origin's last
    /// request for `name` asked for exactly the bytes after it. Returns the offset.
    @discardableResult
    func expectContinued(
        _ session: String,
        _ taskIdentifier: Int,
        origin: OriginServer,
        name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Int {
        let resumed = try await resumedAtOffset(session, taskIdentifier, sourceLocation: sourceLocation)
        let offset = resumed.fileOffset ?? 0
        #expect(offset > 0, "task \(taskIdentifier) continued from its checkpoint", sourceLocation: sourceLocation)
        #expect(resumed.restartReason == nil, sourceLocation: sourceLocation)
        #expect(origin.ranges(name).last == "bytes=\(offset)-", sourceLocation: sourceLocation)
        return offset
    }
}
