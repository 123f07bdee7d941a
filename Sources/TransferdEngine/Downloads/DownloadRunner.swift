import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TransferdDomain
import TransferdS3
import TransferdStorage
import _NIOFileSystem

/// Performs one attempt of a download: follows redirects, continues the partial file with `Range` + `If-Range`
/// when earlier attempts left bytes, streams the body to disk while hashing it (or in parallel segments), and
/// checkpoints what is flushed so that a later attempt, even after a crash, continues from there.
package struct DownloadRunner: TransferRunner {
    static let maximumRedirects = 10
    /// The smallest segment worth its own connection.
    static let minimumSegmentSize: Int64 = 256 << 10
    /// How often an attempt looks again for a partial file another attempt holds.
    static let lockRetryInterval = Duration.milliseconds(50)

    let environment: TransferEnvironment
    /// The free-space floor transfers stop at.
    let disk: DiskSpace

    package init(environment: TransferEnvironment, disk: DiskSpace) {
        self.environment = environment
        self.disk = disk
    }

    package func run(_ job: TransferJob, _ download: DownloadJob, transfer: ActiveTransfer) async -> TaskStateMachine.TransferOutcome {
        await AttemptSupervisor.supervise(job, transfer: transfer, clock: environment.clock) {
            await self.download(job, download, transfer: transfer)
        }
    }

    private func download(_ job: TransferJob, _ download: DownloadJob, transfer: ActiveTransfer) async -> TaskStateMachine.TransferOutcome {
        do {
            if job.challengeUnanswered { return .failed(TransferJob.unansweredChallenge) }
            let deadline = try environment.deadline(of: job)
            switch download.destination {
            case .dataDirectory: return try await downloadToFile(job, download, transfer: transfer, deadline: deadline)
            case .object(let location):
                return try await downloadToObject(location, job, download, transfer: transfer, deadline: deadline)
            }
        } catch {
            return job.outcome(ofThrown: error)
        }
    }

    /// A download into the data directory: its partial file, then the published file.
    private func downloadToFile(
        _ job: TransferJob,
        _ download: DownloadJob,
        transfer: ActiveTransfer,
        deadline: NIODeadline
    ) async throws -> TaskStateMachine.TransferOutcome {
        try disk.checkForTransfer()
        let partialFile = try await lockPartialFile(of: job)
        // Released when the attempt stops, unless it published the file: then once its end is recorded.
        var published = false
        defer { if !published { partialFile.release() } }
        var resumePoint = download.resumePoint
        var restartReason: RestartReason?
        if let point = resumePoint, try partialFile.size() < point.end {
            (resumePoint, restartReason) = (nil, .partialFileMissing)
        }
        let opened = try await open(
            job,
            download,
            resumePoint: resumePoint,
            restartReason: restartReason,
            deadline: deadline,
            transfer: transfer
        )
        guard case .body(let body, let contentType) = opened else { return opened.outcome }
        let file = try await store(body, of: job, download, transfer: transfer, contentType: contentType)
        try await environment.files.publish(taskID: job.taskID)
        transfer.hold(partialFile)
        published = true
        return .succeeded(file)
    }

    /// A download into an object of a tenant's store: its multipart upload, continued from the parts kept.
    private func downloadToObject(
        _ location: ObjectLocation,
        _ job: TransferJob,
        _ download: DownloadJob,
        transfer: ActiveTransfer,
        deadline: NIODeadline
    ) async throws -> TaskStateMachine.TransferOutcome {
        let client: S3Client
        do {
            client = try await environment.objects.client(tenantID: transfer.tenantID, storage: location.storage)
        } catch {
            throw TransferError.objectStorage(error, storage: location.storage)
        }
        let opened = try await open(
            job,
            download,
            resumePoint: download.resumePoint,
            restartReason: nil,
            deadline: deadline,
            transfer: transfer
        )
        guard case .body(let body, let contentType) = opened else { return opened.outcome }
        return .succeeded(try await storeObject(body, in: location, client: client, download, transfer: transfer, contentType: contentType))
    }

    /// What the first request of an attempt gave: the body to store, or the attempt's outcome already (a challenge,
    /// a refusal).
    enum Opened {
        case body(FirstBody, contentType: String?)
        case ended(TaskStateMachine.TransferOutcome)

        var outcome: TaskStateMachine.TransferOutcome {
            switch self {
            case .body: preconditionFailure("an opened body has no outcome yet")
            case .ended(let outcome): outcome
            }
        }
    }

    /// Sends the attempt's first request (after the kept bytes at `resumePoint`, or from the start when the origin
    /// cannot continue them), follows redirects, and reports the response that starts the body.
    private func open(
        _ job: TransferJob,
        _ download: DownloadJob,
        resumePoint: DownloadJob.ResumePoint?,
        restartReason: RestartReason?,
        deadline: NIODeadline,
        transfer: ActiveTransfer
    ) async throws -> Opened {
        var (resumePoint, restartReason) = (resumePoint, restartReason)
        var (source, failedSources) = (0, [Int]())
        var (response, url, timeline): (HTTPClientResponse, String, RequestTimeline)
        func request(_ source: Int, from point: DownloadJob.ResumePoint?) async throws -> (HTTPClientResponse, String, RequestTimeline) {
            let range = firstRange(job, download, point)
            return try await fetch(job, download, from: job.sources[source], range: range, deadline: deadline, transfer: transfer)
        }
        // The first source that answers opens the attempt; the ones before it are dropped (`task.source_dropped`).
        while true {
            let hasNext = source + 1 < job.sources.count
            do {
                (response, url, timeline) = try await request(source, from: resumePoint)
                if resumePoint != nil, response.status == .rangeNotSatisfiable {
                    (resumePoint, restartReason) = (nil, RestartReason.rangeNotSatisfiable)
                    (response, url, timeline) = try await request(source, from: nil)
                }
            } catch  where hasNext && !Task.isCancelled {
                let message = (error as? TransferError)?.message ?? "\(error)"
                try? await environment.reporter.sourceDropped(
                    transfer,
                    SourceDropped(url: job.sources[source], reason: .failed, message: message)
                )
                (source, failedSources) = (source + 1, failedSources + [source])
                continue
            }
            let code = response.status.code
            guard hasNext, code >= 400, code != 401, code != 407 else { break }
            let dropped = SourceDropped(url: job.sources[source], reason: .failed, message: "It answered HTTP \(code).")
            try? await environment.reporter.sourceDropped(transfer, dropped)
            (source, failedSources) = (source + 1, failedSources + [source])
        }
        if let challenge = job.challenge(in: response, from: url) {
            let summary = TransferResponse(response)
            transfer.responseArrived(ArrivedResponse(url: url, response: summary, start: nil))
            return .ended(challenge)
        }
        // A conditional request's `304 Not Modified` is the answer asked for: nothing new, and nothing to keep.
        if response.status == .notModified, job.isConditional {
            transfer.responseArrived(ArrivedResponse(url: url, response: TransferResponse(response), start: nil))
            return .ended(.succeeded(nil))
        }
        // A redirect the policy did not follow is the task's response, and its body the content.
        let redirectKept = Self.redirectStatuses.contains(response.status.code)
        if redirectKept, resumePoint != nil { (resumePoint, restartReason) = (nil, .rangeIgnored) }
        let decoder = try ContentDecoder(decodeContent: download.decodeContent, headers: response.headers)
        let mimeType = response.headers.first(name: "content-type")
        let summary = TransferResponse(response)
        guard (200..<300).contains(response.status.code) || redirectKept else {
            transfer.responseArrived(ArrivedResponse(url: url, response: summary, start: nil))
            let retryAfter = RetryAfter.parse(response.headers.first(name: "retry-after"), now: environment.clock.now)
            return .ended(.failed(.badServerResponse(status: Int(response.status.code), retryAfter: retryAfter)))
        }
        let start = try AttemptStart(summary, resumePoint: resumePoint, restartReason: restartReason, decoded: decoder != nil)
        transfer.responseArrived(ArrivedResponse(url: url, response: summary, start: start))
        if start.expectedBytes > download.maxBytes { throw TransferError.tooLarge(limit: download.maxBytes) }
        // A declared length is reserved whole before the first byte: a tenant over its quota waits (`storageQuota`).
        let allowance = StorageAllowance(
            for: download.destination.storingPath,
            transfer: transfer,
            reporter: environment.reporter,
            kept: start.offset
        )
        if start.expectedBytes >= 0 { try await allowance.cover(through: start.expectedBytes, asFarAs: start.expectedBytes) }
        transfer.begin(received: start.offset, expected: start.expectedBytes)
        let body = FirstBody(
            body: response.body,
            source: source,
            failedSources: failedSources,
            url: url,
            start: start,
            decoder: decoder,
            deadline: deadline,
            timeline: timeline,
            allowance: allowance
        )
        return .body(body, contentType: mimeType)
    }

    /// Takes the task's partial file for this attempt, waiting while an attempt whose lease ran out still holds it
    /// (it stops at its lease's end, however late a loaded machine runs that). Throws when the attempt is stopped.
    private func lockPartialFile(of job: TransferJob) async throws -> PartialFileLock {
        while true {
            if let lock = try await environment.files.lockPartial(taskID: job.taskID) { return lock }
            try await Task.sleep(for: Self.lockRetryInterval)
        }
    }

    /// The response an attempt opened with, and what it says about where its bytes go.
    struct FirstBody {
        package let body: HTTPClientResponse.Body
        /// The source (`TransferJob/sources`) that answered, and the ones that failed before it.
        package let source: Int
        package let failedSources: [Int]
        /// The URL after redirects.
        package let url: String
        package let start: AttemptStart
        package let decoder: ContentDecoder?
        package let deadline: NIODeadline
        /// The metrics of the request that brought it.
        package let timeline: RequestTimeline
        /// How far the attempt may write.
        package let allowance: StorageAllowance
    }

    /// A byte range to ask for: `Range: bytes=first-[last]`, with `If-Range` when continuing known bytes.
    struct RangeRequest {
        package var first: Int64
        package var last: Int64?
        package var ifRange: ResumeValidator?
    }

    /// What the first request of an attempt asks for: the bytes after the resume point; or, for a download that
    /// may use several connections (or sources), `bytes=0-`, so that a `206` proves the origin honours ranges before
    /// splitting.
    private func firstRange(_ job: TransferJob, _ download: DownloadJob, _ resumePoint: DownloadJob.ResumePoint?) -> RangeRequest? {
        if let resumePoint { return RangeRequest(first: resumePoint.bytes, ifRange: resumePoint.validator) }
        return download.connections > 1 || !job.mirrors.isEmpty ? RangeRequest(first: 0) : nil
    }

    /// Writes the body into the partial file after the kept bytes, as one stream hashed on the way, or, when the
    /// task asks for several connections or sources and the origin allows it, as parallel segments hashed once
    /// complete. A requested checksum is verified before the file counts as finished (a mismatch of bytes from
    /// several sources is first repaired from one, ``repair(_:first:of:_:transfer:handle:size:)``); the file is
    /// flushed to disk.
    private func store(
        _ first: FirstBody,
        of job: TransferJob,
        _ download: DownloadJob,
        transfer: ActiveTransfer,
        contentType: String?
    ) async throws -> StoredFile {
        let path = FilePath(environment.files.partialPath(taskID: job.taskID))
        let start = first.start
        return try await FileSystem.shared.withFileHandle(forReadingAndWritingAt: path, options: .modifyFile(createIfNecessary: true)) {
            handle in
            let board = sourceBoard(job, download, first: first)
            let keptPastOffset = board.map { $0.written.byteCount - start.offset } ?? 0
            // Bytes past the offset are kept only by a board that continues them.
            if keptPastOffset == 0 { try await handle.resize(to: .bytes(start.offset)) }
            transfer.add(Int(keptPastOffset))
            let writer = BodyWriter(
                handle: handle,
                transfer: transfer,
                limits: transfer.limits,
                flushInterval: environment.progressInterval,
                maximumSize: download.maxBytes,
                allowance: first.allowance
            )
            let prefix = BodyWriter.Mark(start.offset)
            var digest = ContentDigest(checksum: download.checksum)
            let checkpoints = Checkpoints(transfer: transfer, kept: prefix.value, reporter: environment.reporter) {
                // Only what was written before the flush is claimed.
                guard let written = board?.written else {
                    let flushed = prefix.value
                    try await handle.synchronize()
                    return (flushed, nil, nil)
                }
                try await handle.synchronize()
                let past = written.afterPrefix
                return (written.prefixEnd, past.isEmpty ? nil : past, nil)
            }
            let size = try await checkpointing(checkpoints, transfer: transfer) {
                let size: Int64
                if let board {
                    // Hashed as the contiguous prefix grows, so that little is left to hash once the last byte is in.
                    async let followed = ContentDigest.following(board, in: handle, checksum: download.checksum)
                    try await writeFromSources(board, first: first, of: job, download, transfer: transfer, writer: writer)
                    digest = try await followed
                    size = start.expectedBytes
                } else {
                    digest = try await ContentDigest.of(handle, in: 0..<start.offset, checksum: download.checksum)
                    size = try await writer.write(first.body, from: start.offset, decoder: first.decoder, mark: prefix) {
                        digest.update($0)
                    }
                    first.timeline.finished(bodyBytes: size - start.offset)
                }
                if start.expectedBytes >= 0, size != start.expectedBytes {
                    throw TransferError(
                        code: .networkConnectionLost,
                        message: "The server sent \(size - start.offset) of the \(start.expectedBytes - start.offset) bytes it announced."
                    )
                }
                return size
            }
            let checksum = download.checksum
            let sha256: String
            do {
                sha256 = try digest.finish(verifying: checksum)
            } catch let mismatch as TransferError where mismatch.code == .checksumMismatch {
                guard let board, try await repair(board, first: first, of: job, download, transfer: transfer, handle: handle, size: size)
                else { throw mismatch }
                sha256 = try await ContentDigest.of(handle, in: 0..<size, checksum: checksum).finish(verifying: checksum)
            }
            try await handle.synchronize()
            return StoredFile(size: size, sha256: sha256, contentType: contentType)
        }
    }

    /// Runs `write` while checkpointing every `progressInterval`, and once more when `write` fails or is stopped (it
    /// stalled, outlived its resource timeout, ran out of space), so that every byte kept can be continued by a later
    /// attempt.
    func checkpointing<T>(
        _ checkpoints: Checkpoints,
        transfer: ActiveTransfer,
        watchingDisk: Bool = true,
        write: () async throws -> T
    ) async throws -> T {
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: environment.progressInterval)
                    if watchingDisk, disk.isBelowFloor { transfer.interrupt(.outOfSpace) }
                    try await checkpoints.take()
                }
            }
            defer { group.cancelAll() }
            do {
                return try await write()
            } catch {
                group.cancelAll()
                try? await group.waitForAll()
                await checkpoints.takeLast()
                throw error
            }
        }
    }
}
