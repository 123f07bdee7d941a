import AsyncHTTPClient

/// What a store says of an object: its size, entity tag and type.
public struct S3ObjectInfo: Sendable, Equatable {
    public let size: Int64
    /// The `ETag` as the store sent it, quotes included.
    public let etag: String
    public let contentType: String?
    /// The `Last-Modified` header's text.
    public let lastModified: String?
}

/// A `GET`'s answer: the object's description and its body (a range of it, for a ranged `GET`), to be read by the
/// caller as it arrives.
public struct S3ObjectBody: Sendable {
    public let info: S3ObjectInfo
    /// The body's length: the range's, for a ranged `GET`.
    public let length: Int64
    public let body: HTTPClientResponse.Body
}

/// A part of a multipart upload, as the completion names it.
public struct S3Part: Sendable, Equatable, Codable {
    public let number: Int
    public let etag: String
    /// Base64 SHA-256 of the part, when the upload carries checksums.
    public let checksumSHA256: String?

    public init(number: Int, etag: String, checksumSHA256: String?) {
        (self.number, self.etag, self.checksumSHA256) = (number, etag, checksumSHA256)
    }
}

/// A multipart upload begun: its id, and whether its parts carry SHA-256 checksums (stores that do not know
/// `x-amz-checksum-sha256` get uploads without).
public struct S3MultipartUpload: Sendable, Equatable, Codable {
    public let uploadId: String
    public let checksums: Bool

    public init(uploadId: String, checksums: Bool) {
        (self.uploadId, self.checksums) = (uploadId, checksums)
    }
}
