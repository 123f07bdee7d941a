import Foundation
import ServiceLifecycle
import TransferdDomain
import TransferdEngine
import TransferdStorage

/// Removes what has outlived its keeping, every `interval`: the content of finished downloads and the reply
/// bodies of uploads once their session's `retentionPeriod` has passed since completion (writing
/// `task.content_expired`), staged files past their expiry, and idempotency keys older than a day. Nothing that a
/// waiting upload will send is removed.
package struct RetentionSweeper: Service {
    let store: any Store
    let eventLog: EventLog
    let files: FileStore
    let interval: Duration
    let loop: WakeUpLoop

    package init(store: any Store, eventLog: EventLog, files: FileStore, interval: Duration, loop: WakeUpLoop) {
        self.store = store
        self.eventLog = eventLog
        self.files = files
        self.interval = interval
        self.loop = loop
    }

    package func run() async throws {
        await loop.run("remove expired content") {
            let now = loop.clock.now
            try await sweep(now: now)
            return now.addingTimeInterval(interval.timeInterval)
        }
    }

    /// One pass; files leave the disk only once the rows that name them are committed.
    package func sweep(now: Date) async throws {
        let (taskIDs, fileIDs) = try await store.write { repositories in
            let expiredTasks = try await repositories.tasks.expiredContent(at: now)
            for var task in expiredTasks {
                let file = task.transfer.download?.file
                task.transfer.updateDownload { $0.file = nil }
                task.transfer.updateUpload { $0.reply = nil }
                try await repositories.tasks.update(task)
                try await eventLog.append(repositories, .taskContentExpired(ContentExpired(file: file)), for: task)
            }
            let fileIDs = try await repositories.stagedFiles.deleteExpired(at: now)
            try await repositories.idempotencyKeys.deleteCreated(
                before: now.addingTimeInterval(-IdempotencyService.lifetime),
                tenantID: nil,
                key: nil
            )
            return (expiredTasks.map(\.rowID), fileIDs)
        }
        for taskID in taskIDs {
            files.removeContent(taskID: taskID)
            files.removeReply(taskID: taskID)
        }
        for fileID in fileIDs { files.removeStaged(fileID: fileID) }
    }
}
