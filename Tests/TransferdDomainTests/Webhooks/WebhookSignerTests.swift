import Foundation
import Testing
import TransferdDomain

@Suite struct WebhookSignerTests {
    /// The example from the Standard Webhooks specification's reference libraries.
    @Test func matchesTheStandardWebhooksReferenceSignature() throws {
        let secret = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signature = WebhookSigner.signature(
            messageID: "msg_p5jXN8AQM9LWM0D4loKWxJek",
            timestamp: 1_614_265_330,
            body: Data(#"{"test": 2432232314}"#.utf8),
            secrets: [secret]
        )
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func signsWithEverySecretSeparatedBySpaces() throws {
        let signature = WebhookSigner.signature(
            messageID: "msg_1",
            timestamp: 1,
            body: Data(),
            secrets: [.generate(), .generate()]
        )
        #expect(signature.split(separator: " ").count == 2)
        #expect(signature.split(separator: " ").allSatisfy { $0.hasPrefix("v1,") })
    }

    @Test func generatedSecretsHaveTheStandardFormatAndOnlyAHintIsShown() throws {
        let secret = WebhookSecret.generate()
        #expect(secret.value.hasPrefix("whsec_"))
        #expect(Data(base64Encoded: String(secret.value.dropFirst(6)))?.count == 32)
        #expect(secret.hint == "…" + secret.value.suffix(4))
        #expect(WebhookSecret("whsec_tooShort") == nil)
        #expect(WebhookSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == nil)
    }
}
