import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TransferdDomain
import TransferdEngine
import TransferdS3

/// Aborts the multipart uploads of downloads into buckets that ended without their object, then forgets them, every
/// `interval`, beside the retention sweep and never in its way: a tenant's store may answer slowly or never, and the
/// sweep expires every tenant's content. Stores are worked side by side, each store's uploads one at a time; every
/// request has a short deadline and few tries, and what follows each abort is the policy's (``UploadAbortPolicy``):
/// a store whose abort fails is left alone for a while, and an upload that keeps failing is given up, logged and
/// counted (`transferd_object_upload_aborts_given_up_total`). Graceful shutdown cancels the aborts under way: they
/// are tried again after the next start.
package final class UploadAborter: Service {
    /// Uploads read in one pass at most; a pass goes on from where the last one stopped.
    static let uploadsPerPass = 100

    /// A store as its tenant names it.
    private struct StoreKey: Hashable {
        let tenantID: Int64
        let storage: String
    }

    /// Failures remembered between passes: each upload's, and each store's in a row with when it may be tried again.
    private struct Failures {
        var uploads: [Int64: Int] = [:]
        var stores: [StoreKey: (count: Int, until: Date)] = [:]
        /// The last task id the last pass read; 0 to begin again.
        var cursor: Int64 = 0
    }

    let store: any Store
    let objects: ObjectStores
    let policy: UploadAbortPolicy
    let interval: Duration
    let loop: WakeUpLoop
    let metrics: ServiceMetrics
    private let failures = Mutex(Failures())

    package init(
        store: any Store,
        objects: ObjectStores,
        policy: UploadAbortPolicy = UploadAbortPolicy(),
        interval: Duration,
        loop: WakeUpLoop,
        metrics: ServiceMetrics
    ) {
        (self.store, self.objects, self.policy, self.interval, self.loop, self.metrics) = (store, objects, policy, interval, loop, metrics)
    }

    var logger: Logger { loop.logger }

    package func run() async throws {
        await loop.run("abort abandoned multipart uploads") {
            let now = loop.clock.now
            try await cancelWhenGracefulShutdown { try await self.pass(at: now) }
            return now.addingTimeInterval(interval.timeInterval)
        }
    }

    /// One pass: the next uploads, those of stores not left alone, each store's in a task of its own.
    package func pass(at now: Date) async throws {
        let cursor = failures.withLock { $0.cursor }
        let abandoned = try await store.lookup { try await $0.tasks.abandonedObjectUploads(after: cursor, limit: Self.uploadsPerPass) }
        failures.withLock { $0.cursor = abandoned.count < Self.uploadsPerPass ? 0 : abandoned.last?.taskID ?? 0 }
        let byStore = Dictionary(grouping: abandoned) { StoreKey(tenantID: $0.tenantID, storage: $0.location.storage) }
        await withDiscardingTaskGroup { group in
            for (key, uploads) in byStore where failures.withLock({ ($0.stores[key]?.until ?? .distantPast) <= now }) {
                group.addTask { await self.abort(uploads, in: key, at: now) }
            }
        }
    }

    /// Aborts a store's uploads in turn, until one fails: the store is left alone then.
    private func abort(_ uploads: [AbandonedObjectUpload], in key: StoreKey, at now: Date) async {
        for upload in uploads where !Task.isCancelled {
            let outcome = await abort(upload)
            let action = failures.withLock { failures in
                policy.action(
                    after: outcome,
                    uploadFailures: failures.uploads[upload.taskID, default: 0],
                    storeFailures: failures.stores[key]?.count ?? 0
                )
            }
            switch action {
            case .forget:
                failures.withLock { ($0.uploads[upload.taskID], $0.stores[key]) = (nil, nil) }
                await forget(upload)
            case .retry(let backoff):
                leaveAlone(key, for: backoff, at: now, failedUpload: upload.taskID)
                return
            case .giveUp(let backoff):
                leaveAlone(key, for: backoff, at: now, failedUpload: nil)
                failures.withLock { $0.uploads[upload.taskID] = nil }
                logger.warning(
                    "a multipart upload was given up: its store did not abort it",
                    metadata: ["task": "\(upload.taskID)", "tenant": "\(upload.tenantID)", "storage": "\(upload.location.storage)"]
                )
                metrics.uploadAbortGivenUp()
                await forget(upload)
                return
            }
        }
    }

    /// The store's failures in a row grow by one, and it is left alone for `backoff`; the upload's too, when named.
    private func leaveAlone(_ key: StoreKey, for backoff: Duration, at now: Date, failedUpload: Int64?) {
        failures.withLock { failures in
            failures.stores[key] = ((failures.stores[key]?.count ?? 0) + 1, now.addingTimeInterval(backoff.timeInterval))
            if let failedUpload { failures.uploads[failedUpload, default: 0] += 1 }
        }
    }

    /// One abort, with the policy's deadline and tries.
    private func abort(_ upload: AbandonedObjectUpload) async -> UploadAbortPolicy.Outcome {
        do {
            var client = try await objects.client(tenantID: upload.tenantID, storage: upload.location.storage)
            client.requestTimeout = policy.requestTimeout
            client.attempts = policy.requestAttempts
            try await client.abortMultipartUpload(upload.location.key.value, upload: upload.progress.multipartUpload)
            return .aborted
        } catch let error as TransferError where error.code == .objectStorageRefused {
            logger.warning("a multipart upload could not be aborted", metadata: metadata(upload, reason: error.message))
            return .refused
        } catch let error as S3Error where !error.isTransient {
            logger.warning("a multipart upload could not be aborted", metadata: metadata(upload, reason: "\(error)"))
            return .refused
        } catch {
            return .failed
        }
    }

    private func metadata(_ upload: AbandonedObjectUpload, reason: String) -> Logger.Metadata {
        ["task": "\(upload.taskID)", "storage": "\(upload.location.storage)", "reason": "\(reason)"]
    }

    private func forget(_ upload: AbandonedObjectUpload) async {
        do {
            try await store.write { try await $0.tasks.forgetObjectUpload(id: upload.taskID) }
        } catch {
            logger.warning(
                "an aborted multipart upload could not be forgotten",
                metadata: ["task": "\(upload.taskID)", "error": "\(error)"]
            )
        }
    }
}
