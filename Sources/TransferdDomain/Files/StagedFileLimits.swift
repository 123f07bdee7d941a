/// How big staged files may be and how long they are kept.
package struct StagedFileLimits: Sendable {
    /// The largest file accepted (`Tus-Max-Size`).
    package var maximumSize: Int64
    /// How long an unfinished upload may stay unfinished (`Upload-Expires`).
    package var uploadExpiration: Duration
    /// How long a complete file is kept.
    package var retention: Duration

    package init(maximumSize: Int64 = 100 << 30, uploadExpiration: Duration = .seconds(86_400), retention: Duration = .seconds(7 * 86_400))
    {
        self.maximumSize = maximumSize
        self.uploadExpiration = uploadExpiration
        self.retention = retention
    }
}
