import Foundation

/// URLCredential: what answers a challenge, a user and password (Basic) or a token (Bearer). It is kept only sealed
/// (`CredentialVault`), never shown and never logged.
package enum Credential: Codable, Sendable, Equatable {
    case basic(user: String, password: String)
    case bearer(token: String)

    /// The `Authorization` header's value.
    package var authorization: String {
        switch self {
        case .basic(let user, let password): "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case .bearer(let token): "Bearer " + token
        }
    }
}

/// A credential sealed for storage, with the protection space it answers.
package struct SealedCredential: Codable, Sendable, Equatable {
    package var protectionSpace: ProtectionSpace
    /// The credential, encrypted and authenticated (`CredentialVault.seal`).
    package var sealed: String

    package init(protectionSpace: ProtectionSpace, sealed: String) {
        self.protectionSpace = protectionSpace
        self.sealed = sealed
    }
}

extension [SealedCredential] {
    /// Puts `credential` in place of the one kept for its protection space, if any.
    package mutating func keep(_ credential: SealedCredential) {
        removeAll { $0.protectionSpace == credential.protectionSpace }
        append(credential)
    }
}
