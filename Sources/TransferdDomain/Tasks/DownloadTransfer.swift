/// What only a download has: how it fetches (parallel ranges, a size cap, a redirect policy), what it verifies, where
/// its partial file stands, and the file it produced.
package struct DownloadTransfer: Sendable, Equatable {
    /// The digest the client expects, verified before the download counts as finished.
    package var checksum: Checksum?
    /// Parallel range requests for the body (1 = one stream).
    package var connections = 1
    /// Its own size cap; nil for the service's.
    package var maxBytes: Int64?
    /// Its own redirect policy; nil for its session's.
    package var redirectPolicy: RedirectPolicy?
    /// Where the content goes.
    package var destination: DownloadDestination = .dataDirectory
    /// The checkpoint: bytes flushed to the partial file, or acknowledged in the object's multipart upload, that a
    /// later attempt may keep.
    package var partialBytes: Int64 = 0
    /// The ranges of the partial file past `partialBytes` that a download from several sources made durable; nil
    /// when there are none.
    package var keptRanges: KeptRanges?

    /// Every byte the checkpoint keeps: the prefix and the ranges past it.
    package var keptBytes: Int64 { partialBytes + (keptRanges?.byteCount ?? 0) }
    /// The object's multipart upload while a download into a bucket is under way; nil otherwise, and once it is
    /// completed or aborted.
    package var objectUpload: ObjectUploadProgress?
    /// The validator of the response the partial bytes came from; nil when they cannot be continued.
    package var resumeValidator: ResumeValidator?
    package var notResumableReason: ResumeValidator.NotResumableReason?
    /// The finished file, once published.
    package var file: StoredFile?

    package init(
        checksum: Checksum? = nil,
        connections: Int = 1,
        maxBytes: Int64? = nil,
        redirectPolicy: RedirectPolicy? = nil,
        destination: DownloadDestination = .dataDirectory
    ) {
        (self.checksum, self.connections, self.maxBytes, self.redirectPolicy, self.destination) =
            (checksum, connections, maxBytes, redirectPolicy, destination)
    }
}
