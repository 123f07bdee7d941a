import Crypto
import Foundation
import NIOCore
import TransferdDomain

/// The digests of a download, fed its bytes in order: SHA-256 always, CRC-32 when the client's checksum asks for it.
struct ContentDigest {
    private var sha256 = SHA256()
    private var crc32: CRC32?

    init(checksum: Checksum?) {
        crc32 = checksum?.algorithm == .crc32 ? CRC32() : nil
    }

    mutating func update(_ bytes: ByteBuffer) {
        bytes.withUnsafeReadableBytes { bytes in
            sha256.update(bufferPointer: bytes)
            crc32?.update(bytes)
        }
    }

    /// The lowercase hex SHA-256; throws `checksumMismatch` when the client's checksum differs.
    func finish(verifying checksum: Checksum?) throws -> String {
        let digest = sha256.finalize().hex
        if let checksum {
            let actual = checksum.algorithm == .crc32 ? crc32?.hex ?? "" : digest
            guard actual == checksum.value else {
                throw TransferError(
                    code: .checksumMismatch,
                    message: "The \(checksum.algorithm.rawValue) of the download is \(actual), not \(checksum.value)."
                )
            }
        }
        return digest
    }
}
