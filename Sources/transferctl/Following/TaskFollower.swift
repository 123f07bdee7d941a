import NIOHTTP1
import TransferdClient

/// Follows tasks of one session to their ends through the session's live event stream, showing them as they go,
/// and returns them as they ended.
struct TaskFollower {
    let client: APIConnection
    let session: String

    /// Follows `transfers` from the session's events after `sequence` (the newest before they were created, so
    /// that none of theirs is missed) until every one has completed.
    func follow(
        _ tasks: [APITask],
        names: [String]? = nil,
        after sequence: Int64,
        display: TransferDisplay
    ) async throws -> [FollowedTransfer] {
        var transfers = tasks.indices.map { FollowedTransfer(session: session, task: tasks[$0], name: names?[$0]) }
        let index = Dictionary(uniqueKeysWithValues: tasks.enumerated().map { ($1.taskIdentifier, $0) })
        display.show(transfers)
        let stream = EventStream(client: client, path: "/v1/sessions/\(session)/events?after=\(sequence)")
        try await stream.follow { message in
            let event = try message.event()
            guard let identifier = event.taskIdentifier, let position = index[identifier] else { return true }
            transfers[position].apply(event)
            display.show(transfers)
            return !transfers.allSatisfy(\.phase.isFinished)
        }
        return transfers
    }

    /// The task as it is now.
    func task(_ identifier: Int) async throws(CommandFailure) -> APITask {
        try await client.get("/v1/sessions/\(session)/tasks/\(identifier)").decode()
    }

    /// Creates the session unless it exists (a reconnect leaves it as it is), and returns it.
    static func openSession(_ identifier: String, client: APIConnection) async throws(CommandFailure) -> APISession {
        try await client.send(.PUT, "/v1/sessions/\(identifier)", json: [String: String]()).decode()
    }
}
