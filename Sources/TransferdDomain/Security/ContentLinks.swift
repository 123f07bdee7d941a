import Crypto
import Foundation

/// Short-lived signed links to content (a task's content or reply, a staged file), for a browser that has no API
/// key: the dashboard's cookie never opens content, so a page a tenant uploaded cannot act with a signed-in
/// operator's rights. A link names its path, the key it acts for and when it ends, signed with HMAC-SHA256 under a
/// key derived from the credentials key, which every instance shares.
package struct ContentLinks: Sendable {
    /// How long a link works after the page that shows it was rendered.
    package static let lifetime: TimeInterval = 300
    /// The query parameters a link adds to its path.
    package static let expiresParameter = "expires"
    package static let keyParameter = "keyId"
    package static let signatureParameter = "signature"

    private let key: SymmetricKey

    /// Links signed under a key derived from `credentialsKey` for this use alone.
    package init(credentialsKey: SymmetricKey) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: credentialsKey,
            info: Data("transferd content links v1".utf8),
            outputByteCount: 32
        )
    }

    /// `path` with the parameters that let a browser fetch it as `keyID` until `lifetime` after `now`.
    package func link(to path: String, keyID: String, now: Date) -> String {
        let expires = Int64(now.timeIntervalSince1970 + Self.lifetime)
        let query = [
            "\(Self.expiresParameter)=\(expires)",
            "\(Self.keyParameter)=\(keyID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")",
            "\(Self.signatureParameter)=\(signature(path: path, keyID: keyID, expires: expires))",
        ]
        return path + "?" + query.joined(separator: "&")
    }

    /// Why a link is refused, for the problem's detail.
    package enum Refusal: Error, Equatable {
        case malformed, expired, forged
    }

    /// The key a link to `path` acts for, when its signature holds and it has not expired at `now`.
    package func keyID(path: String, expires: String?, keyID: String?, signature: String?, now: Date) -> Result<String, Refusal> {
        guard let expires = expires.flatMap({ Int64($0) }), let keyID, let signature else { return .failure(.malformed) }
        let expected = self.signature(path: path, keyID: keyID, expires: expires)
        // Compared in constant time: an attacker learns nothing from how long a refusal takes.
        guard signature.utf8.count == expected.utf8.count,
            zip(signature.utf8, expected.utf8).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0
        else { return .failure(.forged) }
        guard Double(expires) > now.timeIntervalSince1970 else { return .failure(.expired) }
        return .success(keyID)
    }

    private func signature(path: String, keyID: String, expires: Int64) -> String {
        let message = Data("\(path)\n\(keyID)\n\(expires)".utf8)
        return Hex.string(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }
}
