import Crypto
import Foundation
import TransferdDomain
import TransferdServices

/// The key that seals stored credentials (and from which the content links' signing key is derived): `TRANSFERD_CREDENTIALS_KEY` (32 bytes, base64); else `credentials.key` in
/// the data directory (which instances scaled out share), made at first start, readable by the service's user only.
/// Instances starting together agree on one: each writes a candidate and links it into place, and the first link
/// wins.
enum CredentialsKey {
    static let fileName = "credentials.key"

    /// The key given in the environment, if any.
    static var configured: String? { ProcessInfo.processInfo.environment["TRANSFERD_CREDENTIALS_KEY"] }

    /// The vault of the key given in the environment, else of the data directory's.
    static func vault(dataDirectory: String) throws -> CredentialVault {
        CredentialVault(key: try key(dataDirectory: dataDirectory, configured: configured))
    }

    static func key(dataDirectory: String, configured: String?) throws -> SymmetricKey {
        if let configured {
            guard let bytes = Data(base64Encoded: configured), bytes.count == 32 else {
                throw ValidationFailure("TRANSFERD_CREDENTIALS_KEY must be 32 bytes in base64 (openssl rand -base64 32)")
            }
            return SymmetricKey(data: bytes)
        }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent(fileName).path
        if FileManager.default.fileExists(atPath: path) == false {
            let candidate = path + ".\(getpid()).\(UUID().uuidString)"
            let bytes = CredentialVault.generateKey().withUnsafeBytes { Data($0) }
            guard FileManager.default.createFile(atPath: candidate, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
                throw ValidationFailure("could not write \(candidate)")
            }
            defer { unlink(candidate) }
            // An instance that linked first wins; its key is read below.
            _ = link(candidate, path)
        }
        guard let stored = FileManager.default.contents(atPath: path), stored.count == 32 else {
            throw ValidationFailure("\(path) must hold the 32 bytes of the credentials key")
        }
        return SymmetricKey(data: stored)
    }
}
