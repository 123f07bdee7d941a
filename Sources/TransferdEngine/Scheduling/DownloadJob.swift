import TransferdDomain

/// What a download attempt needs beyond what every transfer does, resolved from the task's ``DownloadTransfer`` and
/// its session when the scheduler claims it.
package struct DownloadJob: Sendable {
    package let checksum: Checksum?
    /// Whether a gzip-encoded response is decoded on the way to disk.
    package let decodeContent: Bool
    /// The bytes kept from earlier attempts and the validator they came with, when the transfer can continue.
    package let resumePoint: ResumePoint?
    /// How many parallel range requests may fetch the body.
    package let connections: Int
    /// The largest the download may be: its `maxBytes`, at most the service's limit.
    package let maxBytes: Int64
    /// What it does with redirects: its own policy, else its session's.
    package let redirectPolicy: RedirectPolicy
    /// Where the content goes.
    package let destination: DownloadDestination
    /// The object's multipart upload so far, for a download into a bucket.
    package let objectUpload: ObjectUploadProgress?

    /// Where a download continues: the partial file's checkpoint (its prefix, and the ranges past it that a download
    /// from several sources kept) and the representation it belongs to.
    package struct ResumePoint: Sendable, Equatable {
        package let bytes: Int64
        package let validator: ResumeValidator
        package var kept = KeptRanges()

        /// Where the kept bytes end: the partial file is at least this long.
        package var end: Int64 { max(bytes, kept.ranges.last?.upperBound ?? 0) }
    }

    package init(_ download: DownloadTransfer, configuration: SessionConfiguration, bounds: TransferBounds) {
        checksum = download.checksum
        decodeContent = configuration.decodeContent
        let kept = download.keptRanges ?? KeptRanges()
        resumePoint = download.resumeValidator.flatMap {
            download.partialBytes > 0 || !kept.isEmpty ? ResumePoint(bytes: download.partialBytes, validator: $0, kept: kept) : nil
        }
        connections = download.connections
        maxBytes = min(download.maxBytes ?? bounds.maximumDownloadBytes, bounds.maximumDownloadBytes)
        redirectPolicy = download.redirectPolicy ?? configuration.redirectPolicy
        destination = download.destination
        objectUpload = download.objectUpload
    }
}
