import Foundation
import Testing

extension APIClient {
    /// Creates `session` with `receiver` as its webhook and sends `count` test events while the receiver answers 500,
    /// until each delivery is dead-lettered (on a service with `TestService.twoQuickDeliveryAttempts`). The receiver
    /// goes on refusing until the test says otherwise.
    func deadLetterTestEvents(_ session: String, to receiver: WebhookReceiver, count: Int = 1) async throws {
        receiver.refuse(with: 500)
        try await createSession(session, configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
        for _ in 0..<count { _ = try await send(.POST, "/v1/sessions/\(session)/webhook/test") }
        try await waitUntil { try await deliveries(session, status: "failed").count == count }
    }
}
