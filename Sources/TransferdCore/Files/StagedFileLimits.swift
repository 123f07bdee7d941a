/// How big staged files may be and how long they are kept.
public struct StagedFileLimits: Sendable {
    /// The largest file accepted (`Tus-Max-Size`).
    public var maximumSize: Int64
    /// How long an unfinished upload may stay unfinished (`Upload-Expires`).
    public var uploadExpiration: Duration
    /// How long a complete file is kept.
    public var retention: Duration

    public init(maximumSize: Int64 = 100 << 30, uploadExpiration: Duration = .seconds(86_400), retention: Duration = .seconds(7 * 86_400)) {
        self.maximumSize = maximumSize
        self.uploadExpiration = uploadExpiration
        self.retention = retention
    }
}
