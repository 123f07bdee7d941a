import Crypto
import Foundation

/// A client's credential: `trd_<id>_<secret>`, sent as `Authorization: Bearer …`. The key belongs to a tenant;
/// only the SHA-256 of its secret is stored, and it is compared in constant time.
package struct APIKey: Codable, Sendable {

    /// The public part of the token, also how keys are listed and revoked.
    package var id: String
    package var tenantId: Int64
    package var name: String
    package var secretSha256: Data
    /// An admin key may see every tenant.
    package var admin: Bool
    package var createdAt: Date
    package var revokedAt: Date?

    /// A token's parts: `trd_<16 hex id>_<64 hex secret>`. Any other string of at least 32 characters is accepted
    /// as a key an operator chose (`TRANSFERD_API_KEY`); its id derives from its hash.
    package struct Token: Equatable {
        package let id: String
        package let secret: Data

        /// Parsed as bytes: every authenticated request parses its token, and splitting it into characters (grapheme
        /// breaking, a string per part) was a twentieth of a `GET` task's cost.
        package init?(_ text: String) {
            let bytes = Array(text.utf8)
            let (idRange, secretRange) = (4..<20, 21..<85)
            if bytes.count == secretRange.upperBound, bytes.starts(with: "trd_".utf8), bytes[idRange.upperBound] == UInt8(ascii: "_"),
                bytes[idRange].allSatisfy(Self.isHexDigit), bytes[secretRange].allSatisfy(Self.isHexDigit)
            {
                id = String(decoding: bytes[idRange], as: UTF8.self)
                secret = Data(bytes[secretRange])
            } else if bytes.count >= 32, bytes.count <= 512 {
                secret = Data(bytes)
                id = "env-" + SHA256.hash(data: secret).hex.prefix(12)
            } else {
                return nil
            }
        }

        private static func isHexDigit(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
            default: false
            }
        }

        /// A new random token.
        package static func generate() -> String {
            "trd_\(Hex.random(bytes: 8))_\(Hex.random(bytes: 32))"
        }
    }

    /// Whether `token` carries this key's secret, compared in constant time.
    package func matches(_ token: Token) -> Bool {
        let presented = Data(SHA256.hash(data: token.secret))
        guard presented.count == secretSha256.count else { return false }
        return zip(presented, secretSha256).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// A key as stored.
    package init(id: String, tenantId: Int64, name: String, secretSha256: Data, admin: Bool, createdAt: Date, revokedAt: Date?) {
        self.id = id
        self.tenantId = tenantId
        self.name = name
        self.secretSha256 = secretSha256
        self.admin = admin
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    package init(token: Token, tenantID: Int64, name: String, admin: Bool, createdAt: Date) {
        id = token.id
        tenantId = tenantID
        self.name = name
        secretSha256 = Data(SHA256.hash(data: token.secret))
        self.admin = admin
        self.createdAt = createdAt
    }

    /// A key's public description, as `transferd keys list` shows it.
    package struct Listing: Sendable {
        package let id: String
        package let name: String
        package let tenant: String
        package let admin: Bool
        package let createdAt: Date
        package let revokedAt: Date?

        package init(id: String, name: String, tenant: String, admin: Bool, createdAt: Date, revokedAt: Date?) {
            (self.id, self.name, self.tenant, self.admin, self.createdAt, self.revokedAt) = (id, name, tenant, admin, createdAt, revokedAt)
        }
    }
}
