import Crypto
import Foundation

/// Signs deliveries as the Standard Webhooks specification says: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
/// one signature per secret, separated by spaces.
package enum WebhookSigner {
    package static func signature(messageID: String, timestamp: Int, body: Data, secrets: [WebhookSecret]) -> String {
        var signed = Data("\(messageID).\(timestamp).".utf8)
        signed.append(body)
        return secrets.map { secret in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: secret.key)).base64EncodedString()
        }
        .joined(separator: " ")
    }
}
