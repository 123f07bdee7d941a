import AsyncHTTPClient
import NIOCore
import Synchronization
import TransferdDomain
import TransferdS3

/// Streams a download's body into an object of a tenant's store: gathers it into parts of the upload's part size and
/// uploads each once it is full, with its SHA-256, while the next one fills, so that memory holds two parts at most
/// and never the object. The
/// parts the store acknowledged are what the attempt keeps (`kept`): its checkpoints record them, and a later attempt
/// (after a restart, on another instance) continues the same multipart upload after the last one. A body shorter than
/// one part is written with one `PUT`.
struct ObjectWriter {
    /// The multipart upload as the attempt advances it, read by the attempt's checkpoints.
    final class Kept: Sendable {
        private let state: Mutex<ObjectUploadProgress?>

        init(_ progress: ObjectUploadProgress?) {
            state = Mutex(progress)
        }

        var progress: ObjectUploadProgress? { state.withLock { $0 } }
        /// The bytes acknowledged, and the upload holding them.
        var durable: (bytes: Int64, objectUpload: ObjectUploadProgress?) { state.withLock { ($0?.bytes ?? 0, $0) } }

        fileprivate func set(_ progress: ObjectUploadProgress?) {
            state.withLock { $0 = progress }
        }
    }

    let client: S3Client
    let location: ObjectLocation
    let transfer: ActiveTransfer
    /// Limits every byte passes, the service's and the task's.
    let limits: [BandwidthLimit]
    /// The object may not grow past this (`fileTooLarge`), whatever the server announced.
    let maximumSize: Int64
    let contentType: String?
    let kept: Kept
    /// Records a multipart upload just begun, before any part goes: the next attempt continues it, whatever happens
    /// to this one. False when the task no longer wants the transfer.
    let begun: @Sendable (ObjectUploadProgress) async throws -> Bool

    /// Writes the body (decoded first when `decoder` is set) after the `start` bytes the kept parts hold, and makes
    /// the object of all of it; `expected` (negative: unknown) picks a new upload's part size, and a body that ends
    /// short of it is `networkConnectionLost` (the parts kept stay, to be continued). `onBytes` sees every byte in
    /// order. Returns the object's size and ETag.
    func write(
        _ body: HTTPClientResponse.Body,
        from start: Int64,
        expected: Int64,
        decoder: ContentDecoder?,
        onBytes: (ByteBuffer) -> Void
    ) async throws -> (size: Int64, etag: String) {
        let partSize = Int(kept.progress?.partSize ?? ObjectUploadProgress.partSize(forExpected: expected))
        var part = ByteBuffer()
        var offset = start

        func take(_ bytes: ByteBuffer) throws {
            if offset + Int64(bytes.readableBytes) > maximumSize { throw TransferError.tooLarge(limit: maximumSize) }
            onBytes(bytes)
            part.writeImmutableBuffer(bytes)
            offset += Int64(bytes.readableBytes)
            transfer.add(bytes.readableBytes)
        }

        // The part being uploaded while the next one fills: the origin is read on meanwhile, and parts still go in
        // order, each once the one before it is acknowledged (two parts in memory at most).
        var sending: Task<Void, any Error>?
        func uploadFullParts() async throws {
            while part.readableBytes >= partSize, let full = part.readSlice(length: partSize) {
                try await sending?.value
                sending = Task { try await upload(full, partSize: Int64(partSize)) }
                part.discardReadBytes()
            }
        }

        do {
            for try await chunk in body {
                let received = chunk.readableBytes
                try await ContentDecoder.take(chunk, decodingWith: decoder, into: take, between: uploadFullParts)
                for limit in limits { try await limit.consume(received, whileWaiting: transfer.touch) }
            }
            if expected >= 0, offset != expected {
                throw TransferError(
                    code: .networkConnectionLost,
                    message: "The server sent \(offset - start) of the \(expected - start) bytes it announced."
                )
            }
            try await sending?.value
        } catch {
            // A part under way when the attempt stops is not kept: the next attempt sends it again.
            sending?.cancel()
            _ = await sending?.result
            throw error
        }
        return (offset, try await finish(part, partSize: Int64(partSize)))
    }

    /// Uploads what is left as the last part and completes the upload; or, for an object that never filled a part,
    /// writes it with one request.
    private func finish(_ rest: ByteBuffer, partSize: Int64) async throws -> String {
        do {
            guard let progress = kept.progress else {
                return try await alive { try await client.put(location.key.value, bytes: rest, contentType: contentType) }
            }
            if rest.readableBytes > 0 || progress.parts.isEmpty { try await upload(rest, partSize: partSize) }
            let final = kept.progress ?? progress
            let upload = final.multipartUpload
            let parts = final.parts.map { S3Part(number: $0.number, etag: $0.etag, checksumSHA256: $0.checksumSHA256) }
            return try await alive { try await client.completeMultipartUpload(location.key.value, upload: upload, parts: parts) }
        } catch {
            throw TransferError.objectStorage(error, storage: location.storage)
        }
    }

    /// Uploads the next part, beginning the multipart upload first when there is none.
    private func upload(_ bytes: ByteBuffer, partSize: Int64) async throws {
        do {
            var progress: ObjectUploadProgress
            if let current = kept.progress {
                progress = current
            } else {
                let created = try await alive { try await client.createMultipartUpload(location.key.value, contentType: contentType) }
                progress = ObjectUploadProgress(uploadId: created.uploadId, checksums: created.checksums, partSize: partSize)
                let recorded: Bool
                do {
                    recorded = try await begun(progress)
                } catch {
                    try? await client.abortMultipartUpload(location.key.value, upload: created)
                    throw error
                }
                guard recorded else {
                    try? await client.abortMultipartUpload(location.key.value, upload: created)
                    transfer.interrupt(.byClient)
                    throw CancellationError()
                }
                kept.set(progress)
            }
            let number = progress.parts.count + 1
            let upload = progress.multipartUpload
            let part = try await alive { try await client.uploadPart(location.key.value, upload: upload, number: number, bytes: bytes) }
            progress.parts.append(
                ObjectUploadProgress.Part(
                    number: number,
                    etag: part.etag,
                    checksumSHA256: part.checksumSHA256,
                    size: Int64(bytes.readableBytes)
                )
            )
            kept.set(progress)
        } catch {
            throw TransferError.objectStorage(error, storage: location.storage)
        }
    }

    /// Runs a request to the store while telling the transfer it is alive: no byte arrives from the origin while a
    /// part is uploaded, which is not a stall.
    private func alive<T: Sendable>(_ request: @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    transfer.touch()
                    try? await Task.sleep(for: .seconds(1))
                }
                return nil
            }
            defer { group.cancelAll() }
            return try await request()
        }
    }
}
