/// The digest a client expects of a finished download; a mismatch fails the task with `checksumMismatch`.
public struct Checksum: Codable, Sendable, Equatable {
    public enum Algorithm: String, Codable, Sendable, CaseIterable {
        case sha256, crc32

        /// Hex digits of a digest of this algorithm.
        var hexLength: Int {
            switch self {
            case .sha256: 64
            case .crc32: 8
            }
        }
    }

    public var algorithm: Algorithm
    /// Lowercase hex.
    public var value: String
}
