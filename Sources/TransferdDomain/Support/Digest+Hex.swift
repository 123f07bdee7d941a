import Crypto

extension Digest {
    /// Lowercase hexadecimal, as `sha256` fields show digests.
    package var hex: String {
        Hex.string(self)
    }
}
