import Crypto
import Foundation

extension Digest {
    /// Lowercase hexadecimal, as `sha256` fields show digests.
    package var hex: String {
        map { String(format: "%02x", $0) }.joined()
    }
}
