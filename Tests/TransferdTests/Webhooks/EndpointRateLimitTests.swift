import Foundation
import Testing

/// `webhook.maxDeliveriesPerSecond`: an endpoint's sessions share its token bucket. Only upper bounds on the rate are
/// asserted (a loaded machine sends slower, never faster).
@Suite struct EndpointRateLimitTests {
    @Test func twoSessionsOnOneURLShareItsLimit() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with { api in
                // setup: "p" sets 4 a second on the URL, "q" points at it without a limit of its own
                try await api.createSession("p", configuration: #"{"webhook": {"url": "\#(receiver.url)", "maxDeliveriesPerSecond": 4}}"#)
                try await api.createSession("q", configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)

                // act: 10 events in each, at once
                for _ in 0..<10 {
                    for session in ["p", "q"] { _ = try await api.send(.POST, "/v1/sessions/\(session)/webhook/test") }
                }
                try await api.waitUntilAllAcknowledged("p")
                try await api.waitUntilAllAcknowledged("q")

                // verify: a burst of at most 4, then at most 4 a second, across both sessions
                let times = receiver.acknowledged.map(\.receivedAt).sorted()
                #expect(times.count == 20)
                #expect(
                    times.last! - times.first! >= .seconds(3.5),
                    "16 after the burst of 4, at 4 a second: \(times.last! - times.first!)"
                )
                for (index, time) in times.enumerated() {
                    let withinASecond = times[index...].prefix { $0 - time < .seconds(1) }.count
                    #expect(withinASecond <= 8, "the burst and a second's tokens at most")
                }
                let q = try await api.send(.GET, "/v1/sessions/q/webhook").decode(WebhookView.self)
                #expect(q.maxDeliveriesPerSecond == 4, "the endpoint's limit")
                let refused = try await api.send(
                    .PUT,
                    "/v1/sessions/q/webhook",
                    json: #"{"url": "\#(receiver.url)", "maxDeliveriesPerSecond": 0}"#
                )
                #expect(refused.status == 400 && refused.text.contains("maxDeliveriesPerSecond"), "\(refused.text)")
            }
        }
    }
}
