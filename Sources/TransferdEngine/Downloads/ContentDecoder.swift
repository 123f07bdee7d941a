import CompressNIO
import NIOCore
import NIOHTTP1
import TransferdDomain

/// Decodes a `Content-Encoding: gzip` body on its way to disk, a window at a time, for sessions that ask for it
/// (`decodeContent`). Other responses are stored as the origin sent them.
///
/// A body that expands more than `maximumRatio`-fold (past its first `ratioAllowance` bytes) is refused as a
/// decompression bomb while it decodes, and the writer checks the task's size limit on every window, so that neither
/// the disk nor memory holds more than a window past a limit.
final class ContentDecoder {
    /// Decoded bytes an encoded byte may become: text and JSON compress 3–20-fold and rarely past 200; deflate's
    /// ceiling, where a bomb of zeros sits, is about 1,030-fold.
    static let maximumRatio: Int64 = 500
    /// Decoded bytes always allowed, whatever the ratio: small bodies compress well.
    static let ratioAllowance: Int64 = 1 << 20
    /// Encoded bytes decoded in one go: one go yields at most this times the ratio (or the allowance) before the
    /// writer may flush.
    static let sliceSize = 4096

    private let decompressor: ZlibDecompressor
    private var window = ByteBuffer()
    private var encodedBytes: Int64 = 0
    private var decodedBytes: Int64 = 0

    /// A decoder when the download wants decoded content and the response is gzip-encoded; nil otherwise.
    init?(decodeContent: Bool, headers: HTTPHeaders) throws {
        guard decodeContent, headers.first(name: "content-encoding")?.lowercased() == "gzip" else { return nil }
        decompressor = try ZlibDecompressor(algorithm: .gzip)
        window.reserveCapacity(BodyWriter.batchSize)
    }

    /// Decodes one slice of encoded bytes (at most `sliceSize`), handing each decoded window to `consume`, which may
    /// refuse it by throwing.
    func decode(_ slice: ByteBuffer, into consume: (ByteBuffer) throws -> Void) throws {
        var input = slice
        encodedBytes += Int64(slice.readableBytes)
        do {
            try input.decompressStream(with: decompressor, window: &window) { decoded in
                decodedBytes += Int64(decoded.readableBytes)
                guard decodedBytes <= max(Self.ratioAllowance, encodedBytes * Self.maximumRatio) else {
                    throw TransferError(
                        code: .cannotDecodeContentData,
                        message: "The gzip-encoded body expands more than \(Self.maximumRatio)-fold: refused as a decompression bomb."
                    )
                }
                try consume(decoded)
            }
        } catch let error as TransferError {
            throw error
        } catch {
            throw TransferError(code: .cannotDecodeContentData, message: "The gzip-encoded body could not be decoded.")
        }
        window.clear()
    }

    /// Hands a network `chunk` to `take`, decoded first when there is a `decoder`: a slice at a time, with `between`
    /// run after each, so that what one chunk decodes to never sits in memory whole.
    static func take(
        _ chunk: ByteBuffer,
        decodingWith decoder: ContentDecoder?,
        into take: (ByteBuffer) throws -> Void,
        between: () async throws -> Void
    ) async throws {
        guard let decoder else {
            try take(chunk)
            return try await between()
        }
        var chunk = chunk
        while let slice = chunk.readSlice(length: min(chunk.readableBytes, sliceSize)), slice.readableBytes > 0 {
            try decoder.decode(slice, into: take)
            try await between()
        }
    }
}
