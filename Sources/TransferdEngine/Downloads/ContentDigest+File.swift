import TransferdDomain
import _NIOFileSystem

/// The digests of bytes already in the partial file: a range of it, or, for a download over several connections,
/// its contiguous prefix read as it grows.
extension ContentDigest {
    /// How often the prefix of a file being filled out of order is looked at again.
    static let followInterval = Duration.milliseconds(20)

    /// The digests of `range` of the file.
    static func of(_ handle: ReadWriteFileHandle, in range: Range<Int64>, checksum: Checksum?) async throws -> ContentDigest {
        var digest = ContentDigest(checksum: checksum)
        try await digest.update(from: handle, in: range)
        return digest
    }

    /// The digests of the whole of `board`, hashed as its written prefix grows from byte 0; returns once every byte
    /// is written and hashed (or throws when cancelled: the writing failed).
    static func following(_ board: SourceBoard, in handle: ReadWriteFileHandle, checksum: Checksum?) async throws -> ContentDigest {
        var digest = ContentDigest(checksum: checksum)
        var hashed: Int64 = 0
        while hashed < board.whole.upperBound {
            let end = min(board.written.prefixEnd, board.whole.upperBound)
            if end > hashed {
                try await digest.update(from: handle, in: hashed..<end)
                hashed = end
            } else {
                try await Task.sleep(for: followInterval)
            }
        }
        return digest
    }

    private mutating func update(from handle: ReadWriteFileHandle, in range: Range<Int64>) async throws {
        for try await chunk in handle.readChunks(in: range, chunkLength: .mebibytes(1)) { update(chunk) }
    }
}
