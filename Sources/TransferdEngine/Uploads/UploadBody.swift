import NIOCore
import TransferdDomain
import _NIOFileSystem

/// An upload's request body: optional framing around the source's bytes, read (from disk, or from a bucket) a chunk
/// at a time as the connection takes them. Each chunk counts as sent and passes the bandwidth limits on its way.
struct UploadBody<Chunks: AsyncSequence & Sendable>: AsyncSequence, Sendable where Chunks.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let framing: MultipartFraming?
    let chunks: Chunks
    let transfer: ActiveTransfer
    let limits: [BandwidthLimit]

    struct AsyncIterator: AsyncIteratorProtocol {
        var prefix: ByteBuffer?
        var file: Chunks.AsyncIterator?
        var suffix: ByteBuffer?
        let transfer: ActiveTransfer
        let limits: [BandwidthLimit]

        mutating func next() async throws -> ByteBuffer? {
            let chunk: ByteBuffer
            if let prefix {
                (chunk, self.prefix) = (prefix, nil)
            } else if let fileChunk = try await file?.next() {
                chunk = fileChunk
            } else if let suffix {
                (chunk, file, self.suffix) = (suffix, nil, nil)
            } else {
                return nil
            }
            transfer.add(chunk.readableBytes)
            try await BandwidthLimit.consume(chunk.readableBytes, through: limits, whileWaiting: transfer.touch)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            prefix: framing.map { ByteBuffer(string: $0.head) },
            file: chunks.makeAsyncIterator(),
            suffix: framing.map { ByteBuffer(string: $0.tail) },
            transfer: transfer,
            limits: limits
        )
    }
}
