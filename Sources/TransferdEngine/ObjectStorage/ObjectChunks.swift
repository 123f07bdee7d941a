import AsyncHTTPClient
import NIOCore
import TransferdDomain
import TransferdS3

/// An object's bytes as an upload sends them, read from the store as the connection takes them. A read that breaks
/// off is continued with a ranged `GET` from where it stopped, while the object keeps the ETag it started with
/// (`If-Match`), up to `resumptions` times in an attempt: the upload to the target goes on without starting again.
struct ObjectChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// Ranged reads an attempt continues with at most.
    static let resumptions = 5

    let client: S3Client
    let location: ObjectLocation
    let size: Int64
    let etag: String

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: ObjectChunks
        var offset: Int64 = 0
        var body: HTTPClientResponse.Body.AsyncIterator?
        var resumed = 0

        mutating func next() async throws -> ByteBuffer? {
            while offset < chunks.size {
                if body == nil {
                    do {
                        let range = offset > 0 ? offset..<chunks.size : nil
                        body = try await chunks.client.get(chunks.location.key.value, range: range, ifMatch: chunks.etag).body
                            .makeAsyncIterator()
                    } catch {
                        throw TransferError.objectStorage(error, storage: chunks.location.storage)
                    }
                }
                do {
                    if let chunk = try await body?.next() {
                        offset += Int64(chunk.readableBytes)
                        return chunk
                    }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // Broken off: continued below.
                }
                body = nil
                resumed += 1
                guard resumed <= ObjectChunks.resumptions else {
                    throw TransferError(
                        code: .objectStorageUnavailable,
                        message: "Reading `\(chunks.location.uri)` broke off \(resumed) times; \(offset) of \(chunks.size) bytes were sent."
                    )
                }
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: self)
    }
}
