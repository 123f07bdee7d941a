/// The digest a client expects of a finished download; a mismatch fails the task with `checksumMismatch`.
package struct Checksum: Codable, Sendable, Equatable {
    package enum Algorithm: String, Codable, Sendable, CaseIterable {
        case sha256, crc32

        /// Hex digits of a digest of this algorithm.
        package var hexLength: Int {
            switch self {
            case .sha256: 64
            case .crc32: 8
            }
        }
    }

    package var algorithm: Algorithm
    /// Lowercase hex.
    package var value: String

    package init(
        algorithm: Algorithm,
        value: String
    ) {
        self.algorithm = algorithm
        self.value = value
    }
}
