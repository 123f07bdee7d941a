import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import _NIOFileSystem

/// Performs one attempt of a download: follows redirects, streams the body into the task's partial file while
/// hashing it, and reports progress at checkpoints. It never holds more than one chunk of the body in memory.
struct DownloadRunner: Sendable {
    static let maximumRedirects = 10
    /// Bytes gathered before one write to disk.
    static let writeBatchSize = 512 << 10

    let client: HTTPClient
    let files: FileStore
    let lifecycle: TaskLifecycle
    let progressInterval: Duration

    /// Runs the attempt until it ends, is interrupted by the client, or stalls for `requestTimeout`.
    func run(_ job: TransferJob, transfer: ActiveTransfer) async -> TaskStateMachine.TransferOutcome {
        let outcome = await withTaskGroup(of: TaskStateMachine.TransferOutcome?.self) { group in
            group.addTask { await download(job, transfer: transfer) }
            group.addTask {
                await transfer.waitForInterruption()
                return nil
            }
            group.addTask {
                await watchForStall(transfer, timeout: job.requestTimeout)
                return nil
            }
            var outcome = TaskStateMachine.TransferOutcome.interrupted
            while let result = await group.next() {
                // The download ended, or something interrupted it: either way the other children must stop.
                group.cancelAll()
                if let result { outcome = result }
            }
            return outcome
        }
        switch (outcome, transfer.interruption) {
        case (.succeeded, _), (_, nil):
            return outcome
        case (_, .stalled):
            let seconds = job.requestTimeout.components.seconds
            return .failed(TransferError(code: .timedOut, message: "No data arrived for \(seconds) s (timeoutIntervalForRequest)."))
        case (_, .byClient):
            return .interrupted
        }
    }

    private func download(_ job: TransferJob, transfer: ActiveTransfer) async -> TaskStateMachine.TransferOutcome {
        do {
            guard job.resourceDeadline > Date() else {
                throw TransferError(code: .timedOut, message: "The task outlived timeoutIntervalForResource.")
            }
            let deadline = NIODeadline.now() + .milliseconds(Int64(job.resourceDeadline.timeIntervalSinceNow * 1000))
            try await lifecycle.recordAttemptStarted(taskID: job.taskID)
            let (response, url) = try await fetchFollowingRedirects(job, deadline: deadline)
            let decoder = try ContentDecoder(job: job, headers: response.headers)
            // A decoded body's size is unknown until it has been decoded.
            let expected = decoder == nil ? response.headers.first(name: "content-length").flatMap { Int64($0) } ?? -1 : -1
            let mimeType = response.headers.first(name: "content-type")
            try await lifecycle.recordResponse(
                taskID: job.taskID,
                url: url,
                response: TransferResponse(
                    statusCode: Int(response.status.code),
                    headers: Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { "\($0), \($1)" },
                    mimeType: mimeType.map { String($0.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces) }
                ),
                expectedBytes: expected
            )
            guard (200..<300).contains(response.status.code) else {
                let retryAfter = RetryAfter.parse(response.headers, now: Date())
                return .failed(.badServerResponse(status: Int(response.status.code), retryAfter: retryAfter))
            }
            let file = try await store(
                response.body,
                of: job,
                transfer: transfer,
                expected: expected,
                contentType: mimeType,
                decoder: decoder
            )
            return .succeeded(file)
        } catch {
            if Task.isCancelled { return .interrupted }
            return .failed(TransferError(transportError: error))
        }
    }

    /// Sends the request, following at most ten redirects; returns the final response and the URL that gave it.
    private func fetchFollowingRedirects(_ job: TransferJob, deadline: NIODeadline) async throws -> (HTTPClientResponse, String) {
        var url = job.url
        for _ in 0...Self.maximumRedirects {
            var request = HTTPClientRequest(url: url)
            request.method = .GET
            for header in job.headers { request.headers.add(name: header.name, value: header.value) }
            if !request.headers.contains(name: "user-agent") { request.headers.add(name: "User-Agent", value: "transferd") }
            let response = try await client.execute(request, deadline: deadline)
            guard [301, 302, 303, 307, 308].contains(response.status.code),
                let location = response.headers.first(name: "location")
            else {
                return (response, url)
            }
            guard let next = URL(string: location, relativeTo: URL(string: url))?.absoluteURL.absoluteString,
                let scheme = URLComponents(string: next)?.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else {
                throw TransferError(code: .unsupportedURL, message: "The server redirected to an unsupported URL.")
            }
            url = next
        }
        throw TransferError(code: .httpTooManyRedirects, message: "The server redirected more than \(Self.maximumRedirects) times.")
    }

    /// Streams the body into the partial file. Chunks are hashed as they arrive and gathered into batches of
    /// `writeBatchSize`; one batch is written while the next is gathered, so hashing and disk writes overlap and
    /// memory stays bounded by two batches. A requested checksum is verified before the file counts as finished.
    private func store(
        _ body: HTTPClientResponse.Body,
        of job: TransferJob,
        transfer: ActiveTransfer,
        expected: Int64,
        contentType: String?,
        decoder: ContentDecoder?
    ) async throws -> StoredFile {
        let path = FilePath(files.partialPath(taskID: job.taskID))
        return try await FileSystem.shared.withFileHandle(forWritingAt: path, options: .newFile(replaceExisting: true)) { handle in
            try await withThrowingTaskGroup(of: Void.self) { writes in
                var hasher = SHA256()
                var crc = job.checksum?.algorithm == .crc32 ? CRC32() : nil
                var batch = ByteBuffer()
                var received: Int64 = 0
                var checkpoint = (at: ContinuousClock.now, bytes: Int64(0))

                func writeBatch() async throws {
                    try await writes.next()  // at most one write in flight
                    let bytes = batch
                    let offset = received - Int64(bytes.readableBytes)
                    writes.addTask { try await handle.write(contentsOf: bytes, toAbsoluteOffset: offset) }
                    batch = ByteBuffer()
                }

                func take(_ bytes: ByteBuffer) {
                    bytes.withUnsafeReadableBytes { bytes in
                        hasher.update(bufferPointer: bytes)
                        crc?.update(bytes)
                    }
                    batch.writeImmutableBuffer(bytes)
                    received += Int64(bytes.readableBytes)
                }

                for try await chunk in body {
                    if let decoder { try decoder.decode(chunk, into: take) } else { take(chunk) }
                    transfer.update(received: received, expected: expected)
                    if batch.readableBytes >= Self.writeBatchSize { try await writeBatch() }
                    if ContinuousClock.now - checkpoint.at >= progressInterval {
                        try await lifecycle.recordProgress(
                            taskID: job.taskID,
                            received: received,
                            expected: expected,
                            bytesWritten: received - checkpoint.bytes
                        )
                        checkpoint = (ContinuousClock.now, received)
                    }
                }
                if batch.readableBytes > 0 { try await writeBatch() }
                try await writes.waitForAll()
                if expected >= 0, received != expected {
                    throw TransferError(
                        code: .networkConnectionLost,
                        message: "The server sent \(received) of the \(expected) bytes it announced."
                    )
                }
                let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
                if let expected = job.checksum {
                    let actual = expected.algorithm == .crc32 ? crc?.hex ?? "" : digest
                    guard actual == expected.value else {
                        throw TransferError(
                            code: .checksumMismatch,
                            message: "The \(expected.algorithm.rawValue) of the download is \(actual), not \(expected.value)."
                        )
                    }
                }
                try await handle.synchronize()
                return StoredFile(size: received, sha256: digest, contentType: contentType)
            }
        }
    }

    /// Interrupts the transfer once no byte has arrived for `timeout`; returns when cancelled.
    private func watchForStall(_ transfer: ActiveTransfer, timeout: Duration) async {
        while !Task.isCancelled {
            let idle = ContinuousClock.now - transfer.lastActivity
            if idle >= timeout {
                transfer.interrupt(.stalled)
                return
            }
            try? await Task.sleep(for: timeout - idle)
        }
    }
}
