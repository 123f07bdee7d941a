import Foundation
import Logging
import ServiceLifecycle
import TransferdDomain
import TransferdEngine
import TransferdStorage

/// Removes what has outlived its keeping, every `interval`: the content of finished downloads and the reply
/// bodies of uploads once their session's `retentionPeriod` has passed since completion (writing
/// `task.content_expired`), staged files past their expiry, and idempotency keys older than a day. Nothing that a
/// waiting upload will send is removed. It touches no tenant's store (an object a download made there is the
/// tenant's: it is never removed), so that none can hold it up: the multipart uploads that downloads into buckets
/// abandoned are aborted beside it (``UploadAborter``).
package struct RetentionSweeper: Service {
    let store: any Store
    let eventLog: EventLog
    let files: FileStore
    let objects: ObjectStores
    let kept: KeptContent
    let interval: Duration
    let loop: WakeUpLoop
    let logger: Logger

    package init(
        store: any Store,
        eventLog: EventLog,
        files: FileStore,
        objects: ObjectStores,
        interval: Duration,
        loop: WakeUpLoop,
        logger: Logger
    ) {
        self.store = store
        self.eventLog = eventLog
        self.files = files
        self.objects = objects
        kept = KeptContent(files: files, objects: objects, logger: logger)
        self.interval = interval
        self.loop = loop
        self.logger = logger
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
        let (expired, expiredFiles) = try await store.write { repositories in
            let expiredTasks = try await repositories.tasks.expiredContent(at: now)
            for var task in expiredTasks {
                let file = task.transfer.download?.file
                task.transfer.updateDownload { $0.file = nil }
                task.transfer.updateUpload { $0.reply = nil }
                try await repositories.tasks.update(task)
                try await eventLog.append(repositories, .taskContentExpired(ContentExpired(file: file)), for: task)
            }
            let expiredFiles = try await repositories.stagedFiles.deleteExpired(at: now)
            try await repositories.idempotencyKeys.deleteCreated(
                before: now.addingTimeInterval(-IdempotencyService.lifetime),
                tenantID: nil,
                key: nil
            )
            return (expiredTasks, expiredFiles)
        }
        for task in expired {
            await kept.removeContent(of: task)
            await kept.removeReply(of: task)
        }
        for file in expiredFiles { await kept.removeStaged(file) }
    }
}
