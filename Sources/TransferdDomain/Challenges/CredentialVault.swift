import Crypto
import Foundation

/// Seals credentials for storage with AES-GCM under the service's credentials key (`credentials.key` in the data
/// directory, or `TRANSFERD_CREDENTIALS_KEY`, which every instance sharing a database must have alike).
package struct CredentialVault: Sendable {
    private let key: SymmetricKey

    package init(key: SymmetricKey) {
        self.key = key
    }

    /// A new random 256-bit key.
    package static func generateKey() -> SymmetricKey {
        SymmetricKey(size: .bits256)
    }

    package func seal(_ credential: Credential) throws -> String {
        let sealed = try AES.GCM.seal(try JSONEncoder().encode(credential), using: key)
        guard let combined = sealed.combined else { throw CredentialVaultError.cannotSeal }
        return combined.base64EncodedString()
    }

    package func open(_ text: String) throws -> Credential {
        guard let data = Data(base64Encoded: text) else { throw CredentialVaultError.cannotOpen }
        do {
            return try JSONDecoder().decode(Credential.self, from: try AES.GCM.open(try AES.GCM.SealedBox(combined: data), using: key))
        } catch {
            throw CredentialVaultError.cannotOpen
        }
    }
}

/// Why a credential could not be sealed or opened (another instance's key, or a damaged value).
package enum CredentialVaultError: Error, Equatable {
    case cannotSeal, cannotOpen
}
