/// How far a download into a bucket has come: its multipart upload, and the parts the store has acknowledged, in
/// order. Checkpointed after each part, so that a restart, or another instance taking the task over, continues the
/// same upload after its last part.
package struct ObjectUploadProgress: Sendable, Equatable, Codable {
    /// One acknowledged part.
    package struct Part: Sendable, Equatable, Codable {
        package let number: Int
        package let etag: String
        /// Base64 SHA-256 of the part, when the upload carries checksums.
        package let checksumSHA256: String?
        package let size: Int64

        package init(number: Int, etag: String, checksumSHA256: String?, size: Int64) {
            (self.number, self.etag, self.checksumSHA256, self.size) = (number, etag, checksumSHA256, size)
        }
    }

    package let uploadId: String
    /// Whether the parts carry `x-amz-checksum-sha256` (the store took the header when the upload began).
    package let checksums: Bool
    /// The size of every part but the last.
    package let partSize: Int64
    package var parts: [Part]

    package init(uploadId: String, checksums: Bool, partSize: Int64, parts: [Part] = []) {
        (self.uploadId, self.checksums, self.partSize, self.parts) = (uploadId, checksums, partSize, parts)
    }

    /// The bytes in the acknowledged parts: where the download continues.
    package var bytes: Int64 { parts.reduce(0) { $0 + $1.size } }

    /// The part size for a download of `expected` bytes (negative: unknown): 8 MiB, or more for a large object so
    /// that it fits the store's 10,000 parts, at most 64 MiB.
    package static func partSize(forExpected expected: Int64) -> Int64 {
        let (minimum, maximum): (Int64, Int64) = (8 << 20, 64 << 20)
        guard expected > 0 else { return minimum }
        let needed = (expected + 9_999) / 10_000
        let rounded = (needed + (1 << 20) - 1) / (1 << 20) << 20
        return min(max(minimum, rounded), maximum)
    }
}
