import Crypto
import Foundation
import GRDB

/// A client's credential: `trd_<id>_<secret>`, sent as `Authorization: Bearer …`. The key belongs to a tenant;
/// only the SHA-256 of its secret is stored, and it is compared in constant time.
struct APIKey: Codable, Sendable, SnakeCaseColumns, PersistableRecord {
    static let databaseTableName = "api_keys"

    /// The public part of the token, also how keys are listed and revoked.
    var id: String
    var tenantId: Int64
    var name: String
    var secretSha256: Data
    /// An admin key may see every tenant.
    var admin: Bool
    var createdAt: Date
    var revokedAt: Date?

    /// A token's parts: `trd_<16 hex id>_<64 hex secret>`. Any other string of at least 32 characters is accepted
    /// as a key an operator chose (`TRANSFERD_API_KEY`); its id derives from its hash.
    struct Token: Equatable {
        let id: String
        let secret: Data

        init?(_ text: String) {
            let parts = text.split(separator: "_", omittingEmptySubsequences: false)
            if parts.count == 3, parts[0] == "trd", parts[1].count == 16, parts[2].count == 64,
                parts[1].allSatisfy(\.isHexDigit), parts[2].allSatisfy(\.isHexDigit)
            {
                id = String(parts[1])
                secret = Data(parts[2].utf8)
            } else if text.utf8.count >= 32, text.utf8.count <= 512 {
                id = "env-" + SHA256.hash(data: Data(text.utf8)).hex.prefix(12)
                secret = Data(text.utf8)
            } else {
                return nil
            }
        }

        /// A new random token.
        static func generate() -> String {
            let random = { (count: Int) in (0..<count).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined() }
            return "trd_\(random(8))_\(random(32))"
        }
    }

    /// Whether `token` carries this key's secret, compared in constant time.
    func matches(_ token: Token) -> Bool {
        let presented = Data(SHA256.hash(data: token.secret))
        guard presented.count == secretSha256.count else { return false }
        return zip(presented, secretSha256).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    init(token: Token, tenantID: Int64, name: String, admin: Bool) {
        id = token.id
        tenantId = tenantID
        self.name = name
        secretSha256 = Data(SHA256.hash(data: token.secret))
        self.admin = admin
        createdAt = Date()
    }
}
