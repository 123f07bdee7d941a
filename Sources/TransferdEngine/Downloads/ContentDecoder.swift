import CompressNIO
import NIOCore
import NIOHTTP1
import TransferdDomain

/// Decodes a `Content-Encoding: gzip` body on its way to disk, a window at a time, for sessions that ask for it
/// (`decodeContent`). Other responses are stored as the origin sent them.
package final class ContentDecoder {
    private let decompressor: ZlibDecompressor
    private var window = ByteBuffer()

    /// A decoder when the job wants decoded content and the response is gzip-encoded; nil otherwise.
    package init?(job: TransferJob, headers: HTTPHeaders) throws {
        guard job.decodeContent, headers.first(name: "content-encoding")?.lowercased() == "gzip" else { return nil }
        decompressor = try ZlibDecompressor(algorithm: .gzip)
        window.reserveCapacity(BodyWriter.batchSize)
    }

    /// Decodes one chunk, handing each decoded window to `consume`.
    package func decode(_ chunk: ByteBuffer, into consume: (ByteBuffer) -> Void) throws {
        var input = chunk
        do {
            try input.decompressStream(with: decompressor, window: &window) { consume($0) }
        } catch {
            throw TransferError(code: .cannotDecodeContentData, message: "The gzip-encoded body could not be decoded.")
        }
        window.clear()
    }
}
