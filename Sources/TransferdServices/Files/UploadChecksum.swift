import Crypto
import Foundation
import NIOCore
import TransferdDomain

/// tus's `Upload-Checksum: <algorithm> <base64 digest>`: the digest the bytes of one `PATCH` must have.
package struct UploadChecksum: Sendable {
    /// The algorithms `Tus-Checksum-Algorithm` advertises.
    package enum Algorithm: String, CaseIterable, Sendable {
        case sha1, sha256, md5
    }

    /// A digest being computed over the bytes as they arrive.
    package struct Running {
        private enum State {
            case sha1(Insecure.SHA1)
            case sha256(SHA256)
            case md5(Insecure.MD5)
        }

        private var state: State

        package init(_ algorithm: Algorithm) {
            state =
                switch algorithm {
                case .sha1: .sha1(Insecure.SHA1())
                case .sha256: .sha256(SHA256())
                case .md5: .md5(Insecure.MD5())
                }
        }

        package mutating func update(_ bytes: ByteBuffer) {
            bytes.withUnsafeReadableBytes { pointer in
                switch state {
                case .sha1(var hasher): hasher.update(bufferPointer: pointer); state = .sha1(hasher)
                case .sha256(var hasher): hasher.update(bufferPointer: pointer); state = .sha256(hasher)
                case .md5(var hasher): hasher.update(bufferPointer: pointer); state = .md5(hasher)
                }
            }
        }

        package func finalize() -> Data {
            switch state {
            case .sha1(let hasher): Data(hasher.finalize())
            case .sha256(let hasher): Data(hasher.finalize())
            case .md5(let hasher): Data(hasher.finalize())
            }
        }
    }

    package let algorithm: Algorithm
    package let digest: Data

    /// Parses the header; a malformed one or an unknown algorithm is a 400 problem.
    package init(header: String) throws(DomainError) {
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        let names = Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
        guard parts.count == 2, let algorithm = Algorithm(rawValue: parts[0].lowercased()) else {
            throw .invalidField("Upload-Checksum", requirement: "must be `<algorithm> <base64 digest>` with an algorithm of \(names)")
        }
        guard let digest = Data(base64Encoded: String(parts[1])) else {
            throw .invalidField("Upload-Checksum", requirement: "must carry the digest in base64")
        }
        self.algorithm = algorithm
        self.digest = digest
    }
}
