import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// Webhook deliveries against real subscribers on 127.0.0.1.
@Suite struct WebhookDeliveryTests {
    /// Creates a session whose webhook points at `url`; returns the generated secret.
    @discardableResult
    private func createSession(
        _ api: APIClient,
        _ identifier: String,
        webhook url: String,
        extra: String = "",
        settings: String = ""
    ) async throws -> String {
        let session = try await api.createSession(identifier, configuration: #"{"webhook": {"url": "\#(url)"\#(extra)}\#(settings)}"#)
        return try #require(session.configuration.value2.webhook?.secret)
    }

    @Test func standardWebhooksVerifiesEveryDeliveryAndBothSignaturesDuringARotation() async throws {
        try await OriginServer.with { origin in
            try await StandardWebhooksReceiver.with { receiver in
                try await TestService.with { api in
                    // setup
                    let secret = try await createSession(api, "interop", webhook: receiver.url)
                    #expect(secret.hasPrefix("whsec_"))
                    try await receiver.setSecrets([secret])

                    // act: a download's events, then a rotation and a test event
                    _ = try await api.createTask("interop", url: origin.url("/files/1000"))
                    try await api.waitForCompletion("interop", 1)
                    try await api.waitUntilAllAcknowledged("interop")
                    let rotated = try await api.send(.POST, "/v1/sessions/interop/webhook/rotate-secret")
                    let newSecret = try #require(try rotated.decode(WebhookView.self).secret)
                    try await receiver.setSecrets([secret, newSecret])
                    #expect(try await api.send(.POST, "/v1/sessions/interop/webhook/test").status == 202)
                    try await api.waitUntilAllAcknowledged("interop")

                    // verify
                    let received = try await receiver.received()
                    #expect(received.map(\.type).contains("task.completed"))
                    #expect(received.allSatisfy { $0.verified.values.allSatisfy { $0 } }, "\(received)")
                    let test = try #require(received.last)
                    #expect(test.type == "webhook.test")
                    #expect(test.verified == [secret: true, newSecret: true])
                }
            }
        }
    }

    @Test func eventsArriveInSequenceOrderWhen100TasksCompleteAtOnce() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with(workerConcurrency: 64) { api in
                    // setup: a hundred downloads, 64 at a time, all held by one gate
                    try await createSession(api, "order", webhook: receiver.url, settings: #", "maximumConnectionsPerHost": 64"#)
                    for _ in 0..<100 {
                        _ = try await api.createTask("order", url: origin.url("/gated/all/70000"))
                    }
                    // On PostgreSQL alone this takes 8 s (each write its own serializable transaction), and several times
                    // that beside the rest of the suite: the waits are about order, not speed.
                    try await waitUntil(timeout: .seconds(120)) { origin.requests.count == 64 }

                    // act: let them all finish at once
                    origin.open(gate: "all")
                    try await waitUntil(timeout: .seconds(120)) { try await api.session("order").taskCounts["completed"] == 100 }
                    try await api.waitUntilAllAcknowledged("order", timeout: .seconds(120))

                    // verify
                    let acknowledged = receiver.acknowledged.map(\.sequence)
                    #expect(acknowledged == acknowledged.sorted(), "deliveries arrive in sequence order")
                    #expect(Set(acknowledged).count == acknowledged.count, "each event is acknowledged once")
                    let log = try await api.events("order").items
                    let expected = log.filter { $0.type != "task.progress" }.map(\.sequence)
                    #expect(Set(expected).isSubset(of: Set(acknowledged)), "every event but superseded progress is delivered")
                    #expect(receiver.acknowledged.last?.type == "session.events_finished")
                    let session = try await api.session("order")
                    #expect(session.lastAcknowledgedSequence == log.last?.sequence)
                    #expect(session.webhookState == "healthy")
                }
            }
        }
    }

    @Test func aReceiverThatWasDownGetsEveryEventInOrderWhenItComesBack() async throws {
        // setup: a port that refuses connections, held so that no other test's server takes it
        let reserved = try ReservedPort()
        let port = reserved.port
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await createSession(api, "down", webhook: "http://127.0.0.1:\(port)/hook")
                _ = try await api.createTask("down", url: origin.url("/files/1000"))
                try await api.waitForCompletion("down", 1)
                try await waitUntil { try await api.deliveries("down").first?.attemptCount ?? 0 >= 2 }
                let refused = try #require(try await api.deliveries("down").first)
                #expect(refused.attempts.first?.statusCode == nil)
                #expect(refused.attempts.first?.error?.isEmpty == false)
                #expect(["failing", "probing"].contains(try await api.session("down").webhookState))

                // act: the receiver comes back on the same port
                reserved.release()
                try await WebhookReceiver.with(port: port) { receiver in
                    try await api.waitUntilAllAcknowledged("down")

                    // verify: every event was delivered in order, but for a checkpoint's progress, if the transfer
                    // wrote one, which the completion's progress superseded while the receiver was down
                    let log = try await api.events("down").items
                    let deliveries = try await api.deliveries("down")
                    let sent = deliveries.filter { $0.status != "coalesced" }
                    #expect(deliveries.map(\.sequence) == log.map(\.sequence))
                    #expect(deliveries.filter { $0.status == "coalesced" }.allSatisfy { $0.eventType == "task.progress" })
                    #expect(receiver.acknowledged.map(\.sequence) == sent.map(\.sequence))
                    #expect(receiver.acknowledged.map(\.messageID) == sent.map(\.messageId), "the same webhook-id on every attempt")
                }
            }
        }
    }

    @Test func retryAfterOn429IsHonoured() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with { api in
                receiver.script([.status(429, headers: [.retryAfter: "1"])])
                try await createSession(api, "busy", webhook: receiver.url)
                _ = try await api.send(.POST, "/v1/sessions/busy/webhook/test")
                try await api.waitUntilAllAcknowledged("busy")

                let attempts = receiver.received
                #expect(attempts.map(\.status) == [429, 204])
                #expect(attempts[1].receivedAt - attempts[0].receivedAt >= .seconds(1))
                #expect(attempts[0].messageID == attempts[1].messageID)
            }
        }
    }

    @Test func goneDisablesTheSubscription() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with { api in
                receiver.script([.status(410)])
                try await createSession(api, "gone", webhook: receiver.url)
                _ = try await api.send(.POST, "/v1/sessions/gone/webhook/test")
                try await waitUntil { try await api.session("gone").webhookState == "disabled" }
                _ = try await api.waitForEvent("gone") { $0.type == "webhook.disabled" }

                let refused = try await api.send(.POST, "/v1/sessions/gone/webhook/test")
                #expect(refused.status == 409)
                _ = try await api.createTask("gone", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
                let session = try await api.session("gone")
                #expect(session.pendingDeliveries == 2, "later events (webhook.disabled, task.created) wait in the outbox, undelivered")
                #expect(receiver.received.count == 1)
                #expect(try await api.deliveries("gone", status: "failed").first?.lastError?.contains("410") == true)

                // Setting the webhook again re-enables it, and what waited goes out.
                let reset = try await api.send(.PUT, "/v1/sessions/gone/webhook", json: #"{"url": "\#(receiver.url)"}"#)
                #expect(reset.status == 200)
                try await waitUntil { receiver.acknowledged.contains { $0.type == "task.created" } }
            }
        }
    }

    @Test func aSlowReceiverTimesOutAndTheDeliveryIsRetried() async throws {
        try await WebhookReceiver.with { receiver in
            var policy = TestService.fastDeliveries
            policy.timeout = .seconds(1)
            try await TestService.with(deliveryPolicy: policy) { api in
                receiver.script([.delay(.seconds(10))])
                try await createSession(api, "slow", webhook: receiver.url)
                _ = try await api.send(.POST, "/v1/sessions/slow/webhook/test")
                try await api.waitUntilAllAcknowledged("slow", timeout: .seconds(30))

                let delivery = try #require(try await api.deliveries("slow").first)
                #expect(delivery.status == "delivered")
                let first = try #require(delivery.attempts.first)
                #expect(first.statusCode == nil)
                #expect(first.error == "The subscriber did not answer, body included, within 1.0 s.")
                #expect(first.latencyMs < 10_000, "the attempt was abandoned at the timeout, not when the receiver answered")
                #expect(delivery.attempts.last?.statusCode == 204)
            }
        }
    }

    @Test func undeliveredEventsGoOutAfterARestartWithTheSameWebhookID() async throws {
        try await WebhookReceiver.with { receiver in
            let dataDirectory = DataDirectories.temporary()
            receiver.refuse(with: 503)
            try await TestService.with(dataDirectory: dataDirectory) { api in
                try await createSession(api, "restart", webhook: receiver.url)
                _ = try await api.send(.POST, "/v1/sessions/restart/webhook/test")
                try await waitUntil { !receiver.received.isEmpty }
            }
            let refusedIDs = Set(receiver.received.map(\.messageID))

            receiver.refuse(with: nil)
            try await TestService.with(dataDirectory: dataDirectory) { api in
                try await api.waitUntilAllAcknowledged("restart")
                #expect(Set(receiver.acknowledged.map(\.messageID)) == refusedIDs)
            }
        }
    }

    @Test func theEventFilterLimitsWhatIsDelivered() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with { api in
                    try await createSession(api, "filter", webhook: receiver.url, extra: #", "events": ["task.completed"]"#)
                    _ = try await api.createTask("filter", url: origin.url("/files/1000"))
                    _ = try await api.createTask("filter", url: origin.url("/status/404"))
                    try await api.waitForCompletion("filter", 1)
                    try await api.waitForCompletion("filter", 2)
                    try await api.waitUntilAllAcknowledged("filter")

                    #expect(receiver.acknowledged.map(\.type) == ["task.completed", "task.completed"])
                    let payload = try #require(receiver.acknowledged.first { $0.taskIdentifier == 1 })
                    let body = try JSONSerialization.jsonObject(with: payload.body) as? [String: Any]
                    let data = try #require(body?["data"] as? [String: Any])
                    #expect(data["sessionIdentifier"] as? String == "filter")
                    #expect((data["task"] as? [String: Any])?["state"] as? String == "completed", "the task rides along")
                }
            }
        }
    }

    @Test func aSlowSubscriberGetsTheLatestProgressNotABacklog() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with(progressInterval: .milliseconds(1)) { api in
                    // setup: the subscriber refuses while a download reports progress often
                    receiver.refuse(with: 503)
                    try await createSession(api, "coalesce", webhook: receiver.url)
                    // about two seconds of download, so that it reports progress many times on a loaded machine too
                    _ = try await api.createTask("coalesce", url: origin.url("/files/4000000?bytesPerSecond=2000000"))
                    try await api.waitForCompletion("coalesce", 1)

                    // act
                    receiver.refuse(with: nil)
                    try await api.waitUntilAllAcknowledged("coalesce")

                    // verify
                    let written = try await api.events("coalesce").items.filter { $0.type == "task.progress" }
                    let delivered = receiver.acknowledged.filter { $0.type == "task.progress" }
                    #expect(written.count > 2)
                    #expect(delivered.count < written.count)
                    #expect(delivered.last?.sequence == written.last?.sequence, "the latest progress is delivered")
                    #expect(try await api.deliveries("coalesce", status: "coalesced").count == written.count - delivered.count)
                }
            }
        }
    }
}
