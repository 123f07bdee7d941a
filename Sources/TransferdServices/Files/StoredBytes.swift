import TransferdS3

/// Where kept bytes are read from: a file of the data directory, or an object in a bucket (with the `ETag` it must
/// still have, when the bytes were recorded with one).
package enum StoredBytes: Sendable {
    case file(path: String)
    case object(S3Client, key: String, etag: String?)
}
