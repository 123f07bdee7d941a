import Foundation
import TransferdDomain

/// Rows for tests that write through a store's repositories: a session of the default tenant, its subscriber, and
/// downloads in it.
package enum StoredRows {
    /// Inserts a session of the default tenant.
    package static func session(_ identifier: String, at now: Date, _ repositories: any Repositories) async throws -> Int64 {
        try await repositories.sessions.insert(Session(identifier: identifier, tenantId: 1, configuration: .default, createdAt: now)).rowID
    }

    /// Subscribes a healthy webhook at `http://hook.test/` to the session: its events are queued as deliveries.
    package static func subscribe(_ sessionID: Int64, at now: Date, _ repositories: any Repositories) async throws {
        try await repositories.webhooks.save(
            WebhookSubscription(sessionId: sessionID, url: "http://hook.test/", secret: .generate(), state: .healthy, createdAt: now)
        )
    }

    /// A new download of the session (not inserted yet), task `number`, running when it `starts`.
    package static func download(_ number: Int, in sessionID: Int64, starts: Bool = true, at now: Date) -> TransferTask {
        let request = TransferRequest(url: "http://127.0.0.1:9/\(number)", method: "GET", headers: [:])
        let new = NewTask(transfer: .download(DownloadTransfer()), request: request, origin: "127.0.0.1:9", priority: 0.5, start: starts)
        return TransferTask(new, sessionID: sessionID, taskIdentifier: Int64(number), createdAt: now)
    }
}

extension StoredRows {
    /// Inserts a session and its first download, queued to run; answers the download's row id.
    package static func queuedDownload(in session: String, at now: Date, _ store: any Store) async throws -> Int64 {
        try await store.write { repositories in
            try await repositories.tasks.insert(download(1, in: try await StoredRows.session(session, at: now, repositories), at: now))
                .rowID
        }
    }
}

extension TaskQueueRepository {
    /// Leases the tasks of `ids` whatever their rows' revisions; the ids of those leased.
    @discardableResult
    package func lease(ids: [Int64], _ lease: TaskLease, startedAt: Date) async throws -> [Int64] {
        try await self.lease(ids.map { RowRevision(id: $0, revision: nil) }, lease, startedAt: startedAt).map(\.id)
    }
}
