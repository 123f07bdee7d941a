import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage

@testable import TransferdAPI
@testable import transferd

/// Managing a session's webhook and its deliveries through the API.
@Suite struct WebhookAPITests {
    @Test func theSecretIsShownOnceThenOnlyItsHint() async throws {
        try await TestService.with { api in
            try await api.createSession("secret")
            let created = try await api.send(.PUT, "/v1/sessions/secret/webhook", json: #"{"url": "http://127.0.0.1:9/hook"}"#)
            #expect(created.status == 201)
            let webhook = try created.decode(WebhookView.self)
            let secret = try #require(webhook.secret)
            #expect(webhook.secretHint == "…" + secret.suffix(4))

            let shown = try await api.send(.GET, "/v1/sessions/secret/webhook")
            #expect(try shown.decode(WebhookView.self).secret == nil)
            #expect(!shown.text.contains(secret))
            let session = try await api.send(.GET, "/v1/sessions/secret")
            #expect(!session.text.contains(secret))
            #expect(try session.decode(SessionView.self).configuration.value2.webhook?.secretHint == webhook.secretHint)

            let updated = try await api.send(.PUT, "/v1/sessions/secret/webhook", json: #"{"url": "http://127.0.0.1:9/other"}"#)
            #expect(updated.status == 200)
            #expect(try updated.decode(WebhookView.self).secretHint == webhook.secretHint, "an update keeps the secret")
        }
    }

    @Test func aClientMayBringItsOwnSecretAndRemoveTheWebhook() async throws {
        try await TestService.with { api in
            try await api.createSession("own")
            let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
            let reply = try await api.send(
                .PUT,
                "/v1/sessions/own/webhook",
                json: #"{"url": "http://127.0.0.1:9/hook", "secret": "\#(secret)", "events": ["task.completed"]}"#
            )
            let webhook = try reply.decode(WebhookView.self)
            #expect(webhook.secret == nil, "a secret the client chose is not echoed")
            #expect(webhook.events == ["task.completed"])

            #expect(try await api.send(.DELETE, "/v1/sessions/own/webhook").status == 204)
            #expect(try await api.send(.GET, "/v1/sessions/own/webhook").status == 404)
            #expect(try await api.session("own").webhookState == nil)
        }
    }

    @Test(arguments: [
        (#"{}"#, "`webhook.url` is required."),
        (#"{"url": "ftp://x/"}"#, "`webhook.url` must be an absolute http or https URL with a host."),
        (#"{"url": "http://x/", "events": ["task.exploded"]}"#, "`webhook.events` contains `task.exploded`, which is not an event type."),
        (#"{"url": "http://x/", "secret": "hunter2"}"#, "`webhook.secret` must be `whsec_` followed by the base64 of 24 to 64 bytes."),
    ])
    func aBadWebhookIsRefusedWithAPreciseProblem(body: String, detail: String) async throws {
        try await TestService.with { api in
            try await api.createSession("bad")
            let reply = try await api.send(.PUT, "/v1/sessions/bad/webhook", json: body)
            #expect(reply.status == 400)
            #expect(reply.problem?.detail == detail)
        }
    }

    @Test func deadLetteredDeliveriesCanBeReplayed() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with(deliveryPolicy: TestService.twoQuickDeliveryAttempts) { api in
                // setup: two attempts, both refused, dead-letter the delivery
                try await api.deadLetterTestEvents("replay", to: receiver)
                let failed = try #require(try await api.deliveries("replay").first)
                #expect(failed.attemptCount == 2)
                #expect(failed.attempts.map(\.statusCode) == [500, 500])
                #expect(failed.lastError == "The subscriber answered 500.")
                #expect(try await api.events("replay").items.map(\.type) == ["webhook.test"], "the event stays readable by polling")

                // act
                receiver.refuse(with: nil)
                let replayed = try await api.send(.POST, "/v1/sessions/replay/deliveries/retry-failed")
                #expect(try replayed.decode([String: Int].self) == ["retried": 1])
                try await api.waitUntilAllAcknowledged("replay")

                // verify
                #expect(Set(receiver.received.map(\.messageID)).count == 1, "a replay keeps the webhook-id")
                let again = try await api.send(.POST, "/v1/sessions/replay/deliveries/\(failed.id)/retry")
                #expect(again.status == 200, "a delivered event can be sent again on request")
                try await waitUntil { receiver.acknowledged.count == 2 }
                #expect(try await api.send(.POST, "/v1/sessions/replay/deliveries/999/retry").status == 404)
            }
        }
    }
}
