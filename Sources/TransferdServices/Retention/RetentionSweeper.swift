import Foundation
import Logging
import ServiceLifecycle
import TransferdDomain
import TransferdEngine
import TransferdS3
import TransferdStorage

/// Removes what has outlived its keeping, every `interval`: the content of finished downloads and the reply
/// bodies of uploads once their session's `retentionPeriod` has passed since completion (writing
/// `task.content_expired`), staged files past their expiry, and idempotency keys older than a day. Nothing that a
/// waiting upload will send is removed. It also aborts the multipart uploads of downloads into buckets that ended
/// without their object. (An object a download made in a tenant's store is the tenant's: it is never removed.)
package struct RetentionSweeper: Service {
    /// Abandoned multipart uploads aborted in one pass at most.
    static let abortsPerPass = 100

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
        try await abortAbandonedUploads()
    }

    /// Aborts the multipart uploads of downloads into buckets that ended without their object, then forgets them. One
    /// the store cannot abort now (it is unreachable, or answers 5xx) is tried again at the next pass; one it refuses
    /// (the store was removed, its key changed) is forgotten, with a warning: nothing here can abort it.
    private func abortAbandonedUploads() async throws {
        let abandoned = try await store.lookup { try await $0.tasks.abandonedObjectUploads(limit: Self.abortsPerPass) }
        for upload in abandoned {
            do {
                let client = try await objects.client(tenantID: upload.tenantID, storage: upload.location.storage)
                try await client.abortMultipartUpload(upload.location.key.value, upload: upload.progress.multipartUpload)
            } catch let error as S3Error where error.isTransient {
                continue
            } catch let error as TransferError where error.code == .objectStorageRefused {
                logger.warning(
                    "a multipart upload could not be aborted",
                    metadata: ["task": "\(upload.taskID)", "storage": "\(upload.location.storage)", "reason": "\(error.message)"]
                )
            } catch let error as S3Error {
                logger.warning(
                    "a multipart upload could not be aborted",
                    metadata: ["task": "\(upload.taskID)", "storage": "\(upload.location.storage)", "reason": "\(error)"]
                )
            } catch {
                continue
            }
            try await store.write { try await $0.tasks.forgetObjectUpload(id: upload.taskID) }
        }
    }
}
