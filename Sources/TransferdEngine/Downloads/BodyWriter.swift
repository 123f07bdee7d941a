import AsyncHTTPClient
import NIOCore
import Synchronization
import TransferdDomain
import _NIOFileSystem

/// Streams one response body into the partial file from an offset. Chunks are gathered into batches of
/// `batchSize`; one batch is written while the next is gathered, so memory stays bounded by two batches and
/// hashing overlaps the disk writes. A slow body is written at least every `flushInterval`, so that checkpoints
/// keep up with it.
struct BodyWriter {
    /// Where this writer's completed writes reach: the bytes before it are in the file (not yet flushed to disk).
    final class Mark: Sendable {
        private let end: Atomic<Int64>

        init(_ start: Int64) {
            end = Atomic(start)
        }

        var value: Int64 { end.load(ordering: .acquiring) }

        func advance(to offset: Int64) {
            end.store(offset, ordering: .releasing)
        }
    }

    static let batchSize = 512 << 10

    let handle: ReadWriteFileHandle
    let transfer: ActiveTransfer
    /// Limits every byte passes, the service's and the task's.
    let limits: [BandwidthLimit]
    let flushInterval: Duration
    /// The file may not grow past this (`fileTooLarge`), whatever the server announced.
    let maximumSize: Int64
    /// Nothing is written past what the task has reserved: a batch waits for its reservation.
    let allowance: StorageAllowance

    /// Writes the body (decoded first when `decoder` is set) from `start`, and stops at the end of `bound` when one is
    /// given (a segment). `onBytes` sees every stored byte in order. Returns the offset after the last byte.
    ///
    /// When the body fails or the attempt is stopped (a cancel, a stall), what arrived is still written before the
    /// error is rethrown, so that a retry or the resume data can continue from it: a body that stalls keeps its last
    /// batch in memory, as no chunk comes to have it written.
    func write(
        _ body: HTTPClientResponse.Body,
        from start: Int64,
        within bound: SegmentBound? = nil,
        decoder: ContentDecoder? = nil,
        mark: Mark,
        onBytes: (ByteBuffer) -> Void = { _ in }
    ) async throws -> Int64 {
        try await withThrowingTaskGroup(of: Void.self) { writes in
            var batch = ByteBuffer()
            var inFlight = ByteBuffer()
            var offset = start
            var lastWrite = ContinuousClock.now

            func writeBatch() async throws {
                try await writes.next()  // at most one write in flight, so the mark only moves forward
                try await allowance.cover(through: offset)
                let bytes = batch
                let at = offset - Int64(bytes.readableBytes)
                writes.addTask {
                    try await handle.write(contentsOf: bytes, toAbsoluteOffset: at)
                    mark.advance(to: at + Int64(bytes.readableBytes))
                }
                inFlight = bytes
                batch = ByteBuffer()
                lastWrite = .now
            }

            /// Writes what arrived and is not in the file yet (the batch, and the write in flight if it failed),
            /// as far as the reservation reaches, in a task of its own: a stopped attempt's task is cancelled, and
            /// so would its writes be.
            func writeRest() async {
                _ = try? await writes.waitForAll()
                var unwritten = inFlight
                unwritten.writeImmutableBuffer(batch)
                let (at, missing) = (mark.value, Int(offset - mark.value))
                let reserved = Int(min(Int64(missing), allowance.through - at))
                guard missing > 0, reserved > 0, missing <= unwritten.readableBytes,
                    let rest = unwritten.getSlice(at: unwritten.readerIndex + unwritten.readableBytes - missing, length: reserved)
                else { return }
                await Task {
                    guard (try? await handle.write(contentsOf: rest, toAbsoluteOffset: at)) != nil else { return }
                    mark.advance(to: at + Int64(reserved))
                }.value
            }

            func take(_ bytes: ByteBuffer) throws {
                if offset + Int64(bytes.readableBytes) > maximumSize { throw TransferError.tooLarge(limit: maximumSize) }
                onBytes(bytes)
                batch.writeImmutableBuffer(bytes)
                offset += Int64(bytes.readableBytes)
                transfer.add(bytes.readableBytes)
            }

            func flushWhenDue() async throws {
                if batch.readableBytes >= Self.batchSize || (batch.readableBytes > 0 && .now - lastWrite >= flushInterval) {
                    try await writeBatch()
                }
            }

            func finishWrites() async throws {
                if batch.readableBytes > 0 { try await writeBatch() }
                try await writes.waitForAll()
            }

            do {
                for try await var chunk in body {
                    let taken = bound?.take(chunk.readableBytes) ?? chunk.readableBytes
                    let reachesEnd = taken < chunk.readableBytes || bound?.remaining == 0
                    if taken < chunk.readableBytes { chunk = chunk.getSlice(at: chunk.readerIndex, length: taken) ?? chunk }
                    let received = chunk.readableBytes
                    try await ContentDecoder.take(chunk, decodingWith: decoder, into: take, between: flushWhenDue)
                    try await BandwidthLimit.consume(received, through: limits, whileWaiting: transfer.touch)
                    if reachesEnd { break }
                }
            } catch {
                await writeRest()
                throw error
            }
            try await finishWrites()
            return offset
        }
    }
}
