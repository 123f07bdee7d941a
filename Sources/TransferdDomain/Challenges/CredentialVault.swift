import Crypto
import Foundation

/// Seals secrets for storage with AES-GCM under the service's credentials key (`credentials.key` in the data
/// directory, or `TRANSFERD_CREDENTIALS_KEY`, which every instance sharing a database must have alike): challenge
/// credentials, and the stored values that may hold credentials (request headers, URLs, proxies, webhook secrets).
package struct CredentialVault: Sendable {
    private let key: SymmetricKey

    package init(key: SymmetricKey) {
        self.key = key
    }

    /// A new random 256-bit key.
    package static func generateKey() -> SymmetricKey {
        SymmetricKey(size: .bits256)
    }

    /// `bytes` encrypted and authenticated: a random nonce, the ciphertext and the tag.
    package func seal(_ bytes: Data) throws -> Data {
        guard let combined = try AES.GCM.seal(bytes, using: key).combined else { throw CredentialVaultError.cannotSeal }
        return combined
    }

    /// What `seal(_:)` sealed under this key; anything else (another key, a damaged value) is `cannotOpen`.
    package func open(_ sealed: Data) throws -> Data {
        do {
            return try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key)
        } catch {
            throw CredentialVaultError.cannotOpen
        }
    }

    /// A keyed digest of `text` (hex, 128 bits): the same text gives the same digest under the same key, and nobody
    /// without the key can test a guess against it. It names what is stored sealed, such as a webhook's endpoint.
    package func fingerprint(_ text: String) -> String {
        let subkey = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("transferd fingerprint".utf8), outputByteCount: 32)
        return Hex.string(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: subkey).prefix(16))
    }

    /// `text` sealed, in base64.
    package func seal(text: String) throws -> String {
        try seal(Data(text.utf8)).base64EncodedString()
    }

    package func open(text sealed: String) throws -> String {
        guard let data = Data(base64Encoded: sealed) else { throw CredentialVaultError.cannotOpen }
        return String(decoding: try open(data), as: UTF8.self)
    }

    package func seal(_ credential: Credential) throws -> String {
        try seal(text: String(decoding: try JSONEncoder().encode(credential), as: UTF8.self))
    }

    package func open(_ sealed: String) throws -> Credential {
        do {
            return try JSONDecoder().decode(Credential.self, from: Data(try open(text: sealed).utf8))
        } catch {
            throw CredentialVaultError.cannotOpen
        }
    }
}

/// Why a value could not be sealed or opened (another instance's key, or a damaged value).
package enum CredentialVaultError: Error, Equatable {
    case cannotSeal, cannotOpen
}
