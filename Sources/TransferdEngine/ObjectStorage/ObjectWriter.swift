import AsyncHTTPClient
import NIOCore
import Synchronization
import TransferdDomain
import TransferdS3

/// Streams a download's body into an object of a tenant's store: gathers it into parts of the upload's part size and
/// uploads several at once, each with its SHA-256, while the next ones fill, as s3transfer does; memory holds the
/// parts in flight (`partsInFlight`) and the one filling, never the object. The store acknowledges parts in any
/// order, and what the attempt keeps (`kept`) is the acknowledged prefix: its checkpoints record it, and a later
/// attempt (after a restart, on another instance) continues the same multipart upload at the first part not
/// acknowledged. A body no longer than one part is written with one `PUT`.
struct ObjectWriter {
    /// The multipart upload's machine as the attempt advances it, read by the attempt's checkpoints.
    final class Kept: Sendable {
        private let machine: Mutex<ObjectUploadStateMachine>

        init(_ machine: ObjectUploadStateMachine) {
            self.machine = Mutex(machine)
        }

        /// The upload with its acknowledged prefix.
        var progress: ObjectUploadProgress? { machine.withLock { $0.upload } }
        /// The bytes acknowledged, and the upload holding them.
        var durable: (bytes: Int64, objectUpload: ObjectUploadProgress?) { machine.withLock { ($0.upload?.bytes ?? 0, $0.upload) } }

        fileprivate func advance(
            _ input: (inout ObjectUploadStateMachine) -> ObjectUploadStateMachine.Step
        ) -> ObjectUploadStateMachine.Step {
            machine.withLock { input(&$0) }
        }

        fileprivate func acknowledge(_ part: ObjectUploadProgress.Part) {
            machine.withLock { $0.acknowledged(part) }
        }
    }

    /// The bytes of parts in flight at most: eight parts of 8 MiB, as s3transfer's ten threads hold about as much;
    /// one part when parts are bigger than that.
    static let bytesInFlight = 64 << 20

    /// How many parts of `partSize` go at once.
    static func partsInFlight(partSize: Int) -> Int { max(1, bytesInFlight / partSize) }

    let client: S3Client
    let location: ObjectLocation
    let transfer: ActiveTransfer
    /// Limits every byte passes, the service's and the task's.
    let limits: [BandwidthLimit]
    /// The object may not grow past this (`fileTooLarge`), whatever the server announced.
    let maximumSize: Int64
    let contentType: String?
    let kept: Kept
    /// No part goes past what the task has reserved: a part waits for its reservation.
    let allowance: StorageAllowance
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
        let window = Self.partsInFlight(partSize: partSize)
        var part = Self.partBuffer(partSize)
        var offset = start

        func take(_ bytes: ByteBuffer) throws {
            if offset + Int64(bytes.readableBytes) > maximumSize { throw TransferError.tooLarge(limit: maximumSize) }
            onBytes(bytes)
            part.writeImmutableBuffer(bytes)
            offset += Int64(bytes.readableBytes)
            transfer.add(bytes.readableBytes)
        }

        try await withThrowingTaskGroup(of: Void.self) { sending in
            var inFlight = 0
            // A part goes once more than a part has gathered: the body's last part goes with the completion.
            func sendFullParts() async throws {
                while part.readableBytes > partSize {
                    // The gathered bytes become the part; what came after it starts the next one.
                    var full = part
                    full.moveWriterIndex(to: part.readerIndex + partSize)
                    part = Self.partBuffer(partSize, after: part.readableBytesView.dropFirst(partSize))
                    try await allowance.cover(through: offset - Int64(part.readableBytes))
                    let (number, upload) = try await destination(of: kept.advance { $0.partFilled() }, partSize: Int64(partSize))
                    if inFlight == window {
                        try await sending.next()
                        inFlight -= 1
                    }
                    sending.addTask { try await kept.acknowledge(send(full, number: number, of: upload)) }
                    inFlight += 1
                }
            }
            // Leaving early (a failure of the origin, the store or a limit) cancels the parts in flight: those not
            // acknowledged yet are not kept, and the next attempt sends them again.
            for try await chunk in body {
                let received = chunk.readableBytes
                try await ContentDecoder.take(chunk, decodingWith: decoder, into: take, between: sendFullParts)
                try await BandwidthLimit.consume(received, through: limits, whileWaiting: transfer.touch)
            }
            if expected >= 0, offset != expected {
                throw TransferError(
                    code: .networkConnectionLost,
                    message: "The server sent \(offset - start) of the \(expected - start) bytes it announced."
                )
            }
            try await sending.waitForAll()
        }
        try await allowance.cover(through: offset)
        return (offset, try await finish(part))
    }

    /// A part of `partSize` beginning with `bytes`, with room for the chunk that fills it, so that it never grows by
    /// doubling.
    private static func partBuffer(_ partSize: Int, after bytes: ByteBufferView = ByteBufferView()) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: partSize + (1 << 20))
        buffer.writeBytes(bytes)
        return buffer
    }

    /// Uploads what is left as the last part and completes the upload with it, the parts before all acknowledged;
    /// or, for an object that never filled a part, writes it with one request.
    private func finish(_ rest: ByteBuffer) async throws -> String {
        do {
            switch kept.advance({ $0.bodyEnded(restBytes: rest.readableBytes) }) {
            case .put:
                return try await alive { try await client.put(location.key.value, bytes: rest, contentType: contentType) }
            case .complete(let lastPart, let progress):
                var parts = progress.parts
                if let lastPart { parts.append(try await send(rest, number: lastPart, of: progress)) }
                let upload = progress.multipartUpload
                let sent = parts.map { S3Part(number: $0.number, etag: $0.etag, checksumSHA256: $0.checksumSHA256) }
                return try await alive { try await client.completeMultipartUpload(location.key.value, upload: upload, parts: sent) }
            case .create, .send, .abort, .none:
                // The body ends once, after its parts: the machine is never asked twice.
                throw CancellationError()
            }
        } catch {
            throw TransferError.objectStorage(error, storage: location.storage)
        }
    }

    /// Where a filled part goes, as the machine's `step` says: the upload begun, or a new one, created and recorded
    /// before any part goes to it (and aborted when the task does not record it).
    private func destination(
        of step: ObjectUploadStateMachine.Step,
        partSize: Int64
    ) async throws -> (number: Int, upload: ObjectUploadProgress) {
        if case .send(let number, let upload) = step { return (number, upload) }
        do {
            guard case .create = step else {
                // Parts fill one at a time, each after the one before found its upload: the machine is never creating.
                throw CancellationError()
            }
            let created = try await alive { try await client.createMultipartUpload(location.key.value, contentType: contentType) }
            let progress = ObjectUploadProgress(uploadId: created.uploadId, checksums: created.checksums, partSize: partSize)
            let recorded: Bool
            do {
                recorded = try await begun(progress)
            } catch {
                _ = kept.advance { $0.created(progress, recorded: false) }
                try? await client.abortMultipartUpload(location.key.value, upload: created)
                throw error
            }
            switch kept.advance({ $0.created(progress, recorded: recorded) }) {
            case .send(let number, let upload): return (number, upload)
            default:
                try? await client.abortMultipartUpload(location.key.value, upload: created)
                transfer.interrupt(.byClient)
                throw CancellationError()
            }
        } catch {
            throw TransferError.objectStorage(error, storage: location.storage)
        }
    }

    /// Uploads one part of the upload.
    private func send(_ bytes: ByteBuffer, number: Int, of progress: ObjectUploadProgress) async throws -> ObjectUploadProgress.Part {
        do {
            let upload = progress.multipartUpload
            let part = try await alive { try await client.uploadPart(location.key.value, upload: upload, number: number, bytes: bytes) }
            return ObjectUploadProgress.Part(
                number: number,
                etag: part.etag,
                checksumSHA256: part.checksumSHA256,
                size: Int64(bytes.readableBytes)
            )
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
