import Foundation
import Testing

/// One tenant cannot starve or stall another's work on the same instance (the real binary, two real tenants).
@Suite struct NoisyNeighbourTests {
    /// Tenant t1's subscribers answer 200 and never finish their bodies, on every sender there is
    /// (`--webhook-concurrency 2`). Tenant t2's delivery goes out once the deadline cuts one of them, not after t1's
    /// subscribers give up (before: never, while they trickled).
    @Test func aTarpitSubscriberDelaysAnotherTenantsDeliveriesByTheDeadlineAtMost() async throws {
        try await TarpitSubscriber.with { tarpit in
            try await WebhookReceiver.with { receiver in
                let dataDirectory = TestService.temporaryDataDirectory()
                let service = try await ServiceProcess.start(
                    dataDirectory: dataDirectory,
                    arguments: ["--webhook-concurrency", "2", "--webhook-timeout", "2"]
                )
                defer { service.stopIfRunning() }
                var t2 = service.api
                t2.key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "t2", tenant: "t2", admin: false)

                // setup: t1's two sessions' first deliveries held by the tarpit, on both senders
                for name in ["held-1", "held-2"] {
                    try await service.api.createSession(name, configuration: #"{"webhook": {"url": "\#(tarpit.url)"}}"#)
                    _ = try await service.api.createTask(name, url: "http://127.0.0.1:9/", extra: #", "start": false"#)
                }
                try await waitUntil(timeout: .seconds(30)) { tarpit.holding == 2 }

                // act: t2's event
                let written = ContinuousClock.now
                try await t2.createSession("other", configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
                _ = try await t2.createTask("other", url: "http://127.0.0.1:9/", extra: #", "start": false"#)

                // verify: delivered once the two-second deadline freed a sender, which went to t2 before t1's retries
                try await waitUntil(timeout: .seconds(60)) { receiver.received.contains { $0.session == "other" } }
                let waited = ContinuousClock.now - written
                #expect(waited < .seconds(10), "t2 waited \(waited) behind t1's tarpit")
                // and the exchange was ended, its connection closed: the tarpit's next write fails
                try await waitUntil(timeout: .seconds(10)) { tarpit.cut >= 1 }
            }
        }
    }
}
