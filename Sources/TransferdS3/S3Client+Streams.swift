import AsyncHTTPClient
import NIOCore

extension S3Client {
    /// Streams `chunks` into the object `key`, holding one part in memory: one `PUT` when they fit one part, else a
    /// multipart upload of `partSize` parts, aborted when the chunks, `inspect` or the store fail. `inspect` sees every
    /// chunk, in order, before it is sent. Returns the object's size and `ETag`.
    public func upload<Chunks: AsyncSequence>(
        _ key: String,
        from chunks: Chunks,
        partSize: Int = 8 << 20,
        contentType: String? = nil,
        inspect: (ByteBuffer) throws -> Void = { _ in }
    ) async throws -> (size: Int64, etag: String) where Chunks.Element == ByteBuffer {
        var (part, size) = (ByteBuffer(), Int64(0))
        var multipart: (upload: S3MultipartUpload, parts: [S3Part])?
        do {
            for try await chunk in chunks {
                try inspect(chunk)
                part.writeImmutableBuffer(chunk)
                size += Int64(chunk.readableBytes)
                while part.readableBytes >= partSize, let full = part.readSlice(length: partSize) {
                    if multipart == nil { multipart = (try await createMultipartUpload(key, contentType: contentType), []) }
                    if let upload = multipart?.upload, let number = multipart.map({ $0.parts.count + 1 }) {
                        multipart?.parts.append(try await uploadPart(key, upload: upload, number: number, bytes: full))
                    }
                    part.discardReadBytes()
                }
            }
            guard var upload = multipart else { return (size, try await put(key, bytes: part, contentType: contentType)) }
            if part.readableBytes > 0 {
                upload.parts.append(try await uploadPart(key, upload: upload.upload, number: upload.parts.count + 1, bytes: part))
            }
            return (size, try await completeMultipartUpload(key, upload: upload.upload, parts: upload.parts))
        } catch {
            if let upload = multipart?.upload { try? await abortMultipartUpload(key, upload: upload) }
            throw error
        }
    }

    /// The objects `keys`, read one after the other as one body, each while the next is not yet asked for.
    public func concatenated(_ keys: [String]) -> S3ObjectsBody {
        S3ObjectsBody(client: self, keys: keys)
    }
}

/// Objects read in order as one stream of bytes (`S3Client.concatenated`).
public struct S3ObjectsBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer

    let client: S3Client
    let keys: [String]

    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: S3Client
        var remaining: ArraySlice<String>
        var current: HTTPClientResponse.Body.AsyncIterator?

        public mutating func next() async throws -> ByteBuffer? {
            while true {
                if current == nil {
                    guard let key = remaining.popFirst() else { return nil }
                    current = try await client.get(key).body.makeAsyncIterator()
                }
                if let chunk = try await current?.next() { return chunk }
                current = nil
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(client: client, remaining: keys[...])
    }
}
