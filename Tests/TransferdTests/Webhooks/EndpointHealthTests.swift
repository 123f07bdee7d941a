import Foundation
import Testing
import TransferdDomain
import TransferdServices

@testable import transferd

/// A subscriber's endpoint (its URL, shared by every session of the tenant that points at it) through an outage, on
/// an injected clock, against a real receiver: probes while it fails, every waiting delivery at once when it is back,
/// disabled when it fails for too long, and enabled again.
@Suite struct EndpointHealthTests {
    /// Svix's schedule (5 s, 5 min, 30 min, …) without jitter, and attempts that give up after 5 s.
    static let svix = DeliveryPolicy(timeout: .seconds(5), jitter: 0)

    @Test func aRecoveredSubscriberGetsEveryWaitingDeliveryOfAHundredSessionsAtOnceInOrder() async throws {
        try await WebhookReceiver.with { receiver in
            let clock = ManualClock()
            try await TestService.with(deliveryPolicy: Self.svix, configure: { $0.clock = clock }) { api in
                // setup: the subscriber is down, a 503 asking to be tried again in a second; a hundred sessions
                // point at it, with three events each
                receiver.refuse(with: 503, headers: [.retryAfter: "1"])
                let sessions = (0..<100).map { "s\($0)" }
                for session in sessions {
                    try await api.createSession(session, configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
                    for _ in 0..<3 { #expect(try await api.send(.POST, "/v1/sessions/\(session)/webhook/test").status == 202) }
                }
                try await waitUntil(timeout: .seconds(120)) { Set(receiver.received.map(\.session)).count == 100 }
                #expect(["failing", "probing"].contains(try await api.session("s0").webhookState))

                // act: ten minutes of outage, then the subscriber is back
                for _ in 0..<20 {
                    clock.advance(by: 30)
                    try await clock.settle()
                }
                // `settle` waits for the loops to sleep, not for the attempts they started: the 5-minute one may
                // still be on its way.
                var waiting = try await api.deliveries("s42").first
                try await waitUntil {
                    waiting = try await api.deliveries("s42").first
                    return waiting?.attemptCount ?? 0 >= 3
                }
                #expect(waiting?.status == "pending" && waiting?.attemptCount == 3, "tried at 0 s, 5 s and 5 min")
                #expect(try #require(waiting?.nextAttemptAt) > clock.now.addingTimeInterval(15 * 60), "its next retry is 30 min on")
                // No probe is out (a probe that failed after the clock's last move is due a second later: sent
                // after the subscriber is back, it is what finds it back).
                try await waitUntil { try await api.session("s0").webhookState == "failing" }
                receiver.refuse(with: nil)
                let recovered = ContinuousClock.now
                clock.advance(by: 1)
                // The clock goes on a second a second, as a real one would: a probe that fails after the subscriber is
                // back (an answer too late under load) is followed by another. At least once: an attempt whose answer
                // came too late for it is sent again, so each delivery counts once.
                let backAt = clock.now
                var ticked = ContinuousClock.now
                try await waitUntil(timeout: .seconds(120)) {
                    if ContinuousClock.now - ticked >= .seconds(1) {
                        clock.advance(by: 1)
                        ticked = .now
                    }
                    return Set(receiver.acknowledged.map(\.messageID)).count == 300
                }
                let caughtUp = ContinuousClock.now - recovered

                // verify: every delivery arrived within seconds of the clock, each session's in order; one
                // probe at a time went out during the outage
                for session in sessions {
                    var sequences: [Int] = []
                    for received in receiver.acknowledged where received.session == session && sequences.last != received.sequence {
                        sequences.append(received.sequence)
                    }
                    #expect(sequences == (try await api.deliveries(session)).map(\.sequence), "\(session)")
                }
                var probes = 0
                for session in sessions { probes += try await api.deliveries(session).flatMap(\.attempts).filter(\.probe).count }
                #expect((1...22).contains(probes), "one probe per due time: \(probes)")
                #expect(try await api.session("s99").webhookState == "healthy")
                #expect(clock.now.timeIntervalSince(backAt) < 120, "caught up without waiting out the 30-minute retries")
                print("caught up 100 sessions × 3 deliveries in \(caughtUp) after the subscriber came back")
            }
        }
    }

    @Test func anEndpointFailingTooLongIsDisabledAndEnablingSendsTheBacklogInOrder() async throws {
        try await WebhookReceiver.with { receiver in
            try await WebhookReceiver.with { operators in
                let clock = ManualClock()
                var policy = Self.svix
                policy.disableAfter = .seconds(3600)
                let configure = { (configuration: inout Configuration) in
                    configuration.clock = clock
                    configuration.opsWebhook = OpsWebhook(url: operators.url, secret: .generate())
                }
                try await TestService.with(deliveryPolicy: policy, configure: configure) { api in
                    // setup: a subscriber that answers 500 with a long body, for two sessions of the same tenant
                    receiver.refuse(with: 500, body: String(repeating: "é", count: 1500))
                    for session in ["a", "b"] {
                        try await api.createSession(session, configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
                        _ = try await api.send(.POST, "/v1/sessions/\(session)/webhook/test")
                    }
                    try await waitUntil { Set(receiver.received.map(\.session)) == ["a", "b"] }

                    // act: an hour and more of failures
                    for _ in 0..<8 {
                        clock.advance(by: 600)
                        try await clock.settle()
                    }
                    try await waitUntil { try await api.session("b").webhookState == "disabled" }
                    let seen = receiver.received.count
                    #expect(try await api.send(.POST, "/v1/sessions/a/webhook/test").status == 409, "no enabled webhook to test")
                    _ = try await api.createTask("a", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
                    clock.advance(by: 86_400)
                    try await clock.settle()

                    // verify: both sessions show it, nothing more was sent, and each attempt kept the start of the reply
                    #expect(try await api.session("a").webhookState == "disabled")
                    #expect(receiver.received.count == seen, "a disabled endpoint is sent nothing")
                    for session in ["a", "b"] {
                        let disabled = try await api.waitForEvent(session) { $0.type == "webhook.disabled" }
                        #expect(disabled.data.reason?.hasPrefix("The subscriber has failed every attempt since") == true)
                        #expect(try await api.events(session).items.filter { $0.type == "webhook.disabled" }.count == 1, "once")
                    }
                    try await waitUntil { !operators.received.isEmpty }
                    #expect(operators.received.map(\.type) == ["webhook.disabled"], "told the operators once")
                    let scraped = try await Scrape(api)
                    #expect(
                        scraped[#"transferd_webhook_endpoints{state="disabled",tenant="default"}"#] == 1,
                        "one endpoint for both sessions"
                    )
                    #expect(scraped[#"transferd_webhook_endpoints{state="healthy",tenant="default"}"#] == 0)
                    #expect(scraped[#"transferd_webhook_oldest_pending_seconds{tenant="default"}"#] >= 86_400)
                    let listed = try #require(try await api.deliveries("a").first)
                    let shown = try await api.send(.GET, "/v1/sessions/a/deliveries/\(listed.id)").decode(DeliveryView.self)
                    #expect(shown.attempts.count == listed.attempts.count && shown.attempts.count >= 2, "tried, then retried")
                    let other = try #require(try await api.deliveries("b").first)
                    #expect(try await api.send(.GET, "/v1/sessions/a/deliveries/\(other.id)").status == 404, "b's delivery is not a's")
                    let attempt = try #require(shown.attempts.first)
                    #expect(attempt.statusCode == 500)
                    let webhook = try await api.send(.GET, "/v1/sessions/b/webhook").decode(WebhookView.self)
                    #expect(webhook.lastError == "The subscriber answered 500.", "the endpoint's, shared by b")
                    #expect(attempt.reply?.unicodeScalars.count == 512, "1 KiB of a reply of two-byte characters")

                    // act: the subscriber is back, and an operator enables the endpoint through one session
                    receiver.refuse(with: nil)
                    let enabled = try await api.send(.POST, "/v1/sessions/a/webhook/enable")
                    #expect(enabled.status == 200)
                    #expect(try enabled.decode(WebhookView.self).state.rawValue == "healthy")

                    // verify: both sessions' backlogs go out, in order
                    try await api.waitUntilAllAcknowledged("a")
                    try await api.waitUntilAllAcknowledged("b")
                    let log = try await api.events("a").items.map(\.type)
                    #expect(receiver.acknowledged.filter { $0.session == "a" }.map(\.type) == log)
                    #expect(Set(log) == ["webhook.test", "webhook.disabled", "task.created"], "the subscriber learns it was disabled")
                    #expect(try await api.send(.POST, "/v1/sessions/nothing/webhook/enable").status == 404)
                    let healed = try await Scrape(api)
                    #expect(healed[#"transferd_webhook_endpoints{state="healthy",tenant="default"}"#] == 1)
                    #expect(healed[#"transferd_webhook_oldest_pending_seconds{tenant="default"}"#] == 0)
                }
            }
        }
    }

    @Test func aGoneEndpointIsToldInEverySessionsLogAndToTheOperatorsSigned() async throws {
        try await WebhookReceiver.with { receiver in
            try await StandardWebhooksReceiver.with { operators in
                let secret = WebhookSecret.generate()
                try await operators.setSecrets([secret.value])
                let configure = { (configuration: inout Configuration) in
                    configuration.opsWebhook = OpsWebhook(url: operators.url, secret: secret)
                }
                try await TestService.with(configure: configure) { api in
                    // setup: a subscriber that is gone, for two sessions
                    receiver.refuse(with: 410)
                    for session in ["x", "y"] {
                        try await api.createSession(session, configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
                    }

                    // act
                    _ = try await api.send(.POST, "/v1/sessions/x/webhook/test")

                    // verify: both logs say so, once, and the operators are told, signed with their secret
                    for session in ["x", "y"] {
                        let disabled = try await api.waitForEvent(session) { $0.type == "webhook.disabled" }
                        #expect(disabled.data.reason == "The subscriber answered 410 Gone.")
                        #expect(try await api.session(session).webhookState == "disabled")
                    }
                    try await waitUntil { !(try await operators.received()).isEmpty }
                    let told = try await operators.received()
                    #expect(told.map(\.type) == ["webhook.disabled"], "\(told)")
                    #expect(told.first?.verified == [secret.value: true], "standardwebhooks verifies it")
                }
            }
        }
    }

    @Test func aTenantsOwnOpsWebhookIsToldInsteadOfTheServices() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await WebhookReceiver.with { gone in
            try await WebhookReceiver.with { service in
                try await WebhookReceiver.with { theirs in
                    let configure = { (configuration: inout Configuration) in
                        configuration.opsWebhook = OpsWebhook(url: service.url, secret: .generate())
                    }
                    try await TestService.with(dataDirectory: dataDirectory, configure: configure) { api in
                        // setup: tenant "others" has an operational webhook of its own
                        var other = api
                        other.key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "o", tenant: "others", admin: false)
                        let secret = WebhookSecret.generate().value
                        let arguments = ["tenants", "ops-webhook", "others", "--url", theirs.url, "--secret", secret]
                        try await KeyManagement.command(arguments, dataDirectory: dataDirectory)
                        gone.refuse(with: 410)

                        // act: a subscriber of each tenant answers 410
                        try await other.createSession("theirs", configuration: #"{"webhook": {"url": "\#(gone.url)"}}"#)
                        _ = try await other.send(.POST, "/v1/sessions/theirs/webhook/test")
                        try await waitUntil { !theirs.received.isEmpty }
                        try await api.createSession("mine", configuration: #"{"webhook": {"url": "\#(gone.url)"}}"#)
                        _ = try await api.send(.POST, "/v1/sessions/mine/webhook/test")
                        try await waitUntil { !service.received.isEmpty }

                        // verify: each told where its tenant says, once
                        #expect(theirs.received.map(\.type) == ["webhook.disabled"])
                        #expect(service.received.map(\.type) == ["webhook.disabled"])
                        #expect(String(decoding: theirs.received[0].body, as: UTF8.self).contains(#""tenant":"others""#))
                        #expect(String(decoding: service.received[0].body, as: UTF8.self).contains(#""sessions":["mine"]"#))
                    }
                }
            }
        }
    }
}
