import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TransferdDomain
import TransferdS3
import TransferdStorage
import _NIOFileSystem

/// Performs one attempt of an upload: streams the source from disk or from a bucket (raw, or framed as
/// multipart/form-data) with its `Content-Length`, reports the bytes sent, and keeps the body of the server's reply up to a cap. Every
/// attempt sends the body from its first byte.
package struct UploadRunner: TransferRunner {
    let environment: TransferEnvironment
    /// The most bytes of a reply body kept.
    let replyLimit: Int

    package init(environment: TransferEnvironment, replyLimit: Int) {
        self.environment = environment
        self.replyLimit = replyLimit
    }

    package func run(_ job: TransferJob, _ upload: UploadJob, transfer: ActiveTransfer) async -> TaskStateMachine.TransferOutcome {
        await AttemptSupervisor.supervise(job, transfer: transfer, clock: environment.clock) {
            await send(job, upload: upload, transfer: transfer)
        }
    }

    private func send(_ job: TransferJob, upload: UploadJob, transfer: ActiveTransfer) async -> TaskStateMachine.TransferOutcome {
        do {
            if job.challengeUnanswered { return .failed(TransferJob.unansweredChallenge) }
            let deadline = try environment.deadline(of: job)
            switch upload.source {
            case .file(let path):
                let path = FilePath(path)
                guard let size = try await FileSystem.shared.info(forFileAt: path)?.size else {
                    throw TransferError(code: .fileDoesNotExist, message: "The file this upload sends is gone.")
                }
                return try await FileSystem.shared.withFileHandle(forReadingAt: path) { handle in
                    let chunks = handle.readChunks(in: 0..<size, chunkLength: .kibibytes(256))
                    return try await send(
                        job,
                        upload,
                        chunks,
                        size: size,
                        contentType: upload.contentType,
                        deadline: deadline,
                        transfer: transfer
                    )
                }
            case .object(let location):
                let (client, info): (S3Client, S3ObjectInfo?)
                do {
                    client = try await environment.objects.client(tenantID: transfer.tenantID, storage: location.storage)
                    info = try await client.head(location.key.value)
                } catch {
                    throw TransferError.objectStorage(error, storage: location.storage)
                }
                guard let info else {
                    throw TransferError(code: .fileDoesNotExist, message: "The object `\(location.uri)` this upload sends is not there.")
                }
                let chunks = ObjectChunks(client: client, location: location, size: info.size, etag: info.etag)
                let contentType = info.contentType ?? upload.contentType
                return try await send(
                    job,
                    upload,
                    chunks,
                    size: info.size,
                    contentType: contentType,
                    deadline: deadline,
                    transfer: transfer
                )
            }
        } catch {
            return job.outcome(ofThrown: error)
        }
    }

    /// Sends `chunks` (`size` bytes of `contentType`), framed when the upload is multipart, and keeps the reply.
    private func send<Chunks: AsyncSequence & Sendable>(
        _ job: TransferJob,
        _ upload: UploadJob,
        _ chunks: Chunks,
        size: Int64,
        contentType: String,
        deadline: NIODeadline,
        transfer: ActiveTransfer
    ) async throws -> TaskStateMachine.TransferOutcome where Chunks.Element == ByteBuffer {
        let multipart = upload.framing(contentType: contentType)
        let body = UploadBody(framing: multipart, chunks: chunks, transfer: transfer, limits: transfer.limits)
        let length = size + (multipart?.length ?? 0)
        var request = HTTPClientRequest.transfer(to: job.url)
        request.method = HTTPMethod(rawValue: upload.method)
        for header in job.headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        if !request.headers.contains(name: "user-agent") { request.headers.add(name: "User-Agent", value: "transferd") }
        if !request.headers.contains(name: "content-type") {
            request.headers.add(name: "Content-Type", value: multipart?.contentType ?? contentType)
        }
        try job.authorize(&request, for: job.url, with: environment.vault)
        request.body = .stream(body, length: .known(length))
        // The reply it keeps counts in its tenant's stored bytes: as much as it may keep is reserved before the
        // request goes, so that a tenant over its quota waits (`storageQuota`) instead of sending.
        let replyRoom = Int64(replyLimit)
        try await StorageAllowance(for: .replyBody, transfer: transfer, reporter: environment.reporter, kept: 0).cover(
            through: replyRoom,
            asFarAs: replyRoom
        )
        transfer.begin(received: 0, expected: length)
        let timeline = transfer.timeline(url: job.url, method: upload.method)
        let response = try await reportingProgress(job, transfer: transfer) { [request] in
            let route = try await environment.destinations.route(
                for: request.url,
                through: try job.effectiveProxy(with: environment.vault)
            )
            timeline.routed(route)
            return try await route.execute(request, deadline: deadline, logger: timeline.logger())
        }
        timeline.responded(response)
        timeline.sent(bodyBytes: length)
        try await recording {
            try await environment.reporter.responseReceived(
                transfer,
                url: job.url,
                response: TransferResponse(response),
                start: nil
            )
        }
        if let challenge = job.challenge(in: response, from: job.url) { return challenge }
        let (reply, received) = try await keepReply(response, job, upload)
        timeline.finished(bodyBytes: received)
        try await recording { try await environment.reporter.replyKept(transfer, reply: reply) }
        guard (200..<300).contains(response.status.code) else {
            let retryAfter = RetryAfter.parse(response.headers.first(name: "retry-after"), now: environment.clock.now)
            return .failed(.badServerResponse(status: Int(response.status.code), retryAfter: retryAfter))
        }
        return .succeeded(nil)
    }

    /// Runs `send` while recording the bytes sent every `progressInterval` (didSendBodyData).
    private func reportingProgress<Result: Sendable>(
        _ job: TransferJob,
        transfer: ActiveTransfer,
        send: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await send() }
            group.addTask {
                var reported: Int64 = 0
                while !Task.isCancelled {
                    try await Task.sleep(for: environment.progressInterval)
                    let (sent, expected) = transfer.counters
                    guard sent != reported else { continue }
                    // A report the store cannot take is skipped (the next one carries its bytes); one the task
                    // refuses stops the transfer.
                    let wanted = try? await environment.reporter.uploadProgress(
                        transfer,
                        sent: sent,
                        expected: expected,
                        bytesSent: sent - reported
                    )
                    if wanted == false { transfer.interrupt(.byClient) }
                    if wanted != nil { reported = sent }
                }
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }

    /// Keeps the reply body, up to `replyLimit` bytes, in `tasks/<id>.reply` or the content store's object; the
    /// rest is read and dropped. Returns what was kept and how many bytes arrived.
    private func keepReply(
        _ response: HTTPClientResponse,
        _ job: TransferJob,
        _ upload: UploadJob
    ) async throws -> (StoredReply, received: Int64) {
        let contentType = response.headers.first(name: "content-type")
        guard let location = upload.replyLocation else {
            let path = FilePath(environment.files.replyPath(taskID: job.taskID))
            return try await FileSystem.shared.withFileHandle(forWritingAt: path, options: .newFile(replaceExisting: true)) { handle in
                var kept: Int64 = 0
                let received = try await keptPart(of: response.body) { chunk in
                    try await handle.write(contentsOf: chunk, toAbsoluteOffset: kept)
                    kept += Int64(chunk.readableBytes)
                }
                return (StoredReply(size: kept, truncated: received > kept, contentType: contentType), received)
            }
        }
        // At most `replyLimit` bytes (1 MiB unless raised): held, then sent in one request.
        var kept = ByteBuffer()
        let received = try await keptPart(of: response.body) { kept.writeImmutableBuffer($0) }
        do {
            let client = try await environment.objects.client(tenantID: 0, storage: location.storage)
            _ = try await client.put(location.key.value, bytes: kept, contentType: contentType)
        } catch {
            throw TransferError.objectStorage(error, storage: location.storage)
        }
        let reply = StoredReply(
            size: Int64(kept.readableBytes),
            truncated: received > kept.readableBytes,
            contentType: contentType,
            object: location
        )
        return (reply, received)
    }

    /// Hands `keep` the body's first `replyLimit` bytes, and reads the rest; returns how many bytes arrived.
    private func keptPart(of body: HTTPClientResponse.Body, keep: (ByteBuffer) async throws -> Void) async throws -> Int64 {
        var (kept, received) = (0, Int64(0))
        for try await var chunk in body {
            received += Int64(chunk.readableBytes)
            let room = replyLimit - kept
            if chunk.readableBytes > room { chunk = chunk.getSlice(at: chunk.readerIndex, length: room) ?? ByteBuffer() }
            guard chunk.readableBytes > 0 else { continue }
            try await keep(chunk)
            kept += chunk.readableBytes
        }
        return received
    }
}
