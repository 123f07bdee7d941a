import Crypto
import Foundation

/// A signing secret in the Standard Webhooks format: `whsec_` followed by the base64 of 24 to 64 random bytes.
package struct WebhookSecret: Codable, Sendable, Equatable {
    package static let prefix = "whsec_"

    package let value: String
    /// The HMAC key: the decoded bytes after the prefix.
    package let key: SymmetricKey

    package init?(_ value: String) {
        guard value.hasPrefix(Self.prefix), let bytes = Data(base64Encoded: String(value.dropFirst(Self.prefix.count))),
            (24...64).contains(bytes.count)
        else { return nil }
        self.value = value
        self.key = SymmetricKey(data: bytes)
    }

    /// A new secret of 32 random bytes.
    package static func generate() -> WebhookSecret {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return WebhookSecret(prefix + bytes.base64EncodedString())!
    }

    /// What may be shown after creation: the last four characters.
    package var hint: String {
        "…" + value.suffix(4)
    }

    package static func == (lhs: WebhookSecret, rhs: WebhookSecret) -> Bool {
        lhs.value == rhs.value
    }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let secret = WebhookSecret(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a whsec_ secret"))
        }
        self = secret
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
