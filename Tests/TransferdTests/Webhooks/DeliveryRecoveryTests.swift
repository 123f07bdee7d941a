import Foundation
import Testing

/// Recover (Svix's): the dead-lettered deliveries since a time go again, in order, for one session or every session of
/// the tenant, and never another tenant's; through the API, the dashboard and transferctl.
@Suite struct DeliveryRecoveryTests {
    @Test func theFailedDeliveriesSinceATimeGoAgainInOrderForASessionOrTheTenant() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await WebhookReceiver.with { receiver in
            try await TestService.with(dataDirectory: dataDirectory, deliveryPolicy: TestService.twoQuickDeliveryAttempts) { api in
                // setup: three dead-lettered deliveries in "a", one in "b", and one of another tenant's
                try await api.deadLetterTestEvents("a", to: receiver, count: 3)
                try await api.deadLetterTestEvents("b", to: receiver)
                var other = api
                other.key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "other", tenant: "others", admin: false)
                try await other.deadLetterTestEvents("theirs", to: receiver)
                let since = try await api.deliveries("a")[1].createdAt
                receiver.refuse(with: nil)

                // act: a's since its second delivery, then the whole tenant's
                let stamp = since.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                let session = try await api.send(.POST, "/v1/sessions/a/deliveries/recover", json: #"{"since": "\#(stamp)"}"#)
                try await waitUntil { try await api.deliveries("a", status: "delivered").count == 2 }
                let tenant = try await api.send(.POST, "/v1/deliveries/recover", json: #"{"since": "2000-01-01T00:00:00Z"}"#)
                try await api.waitUntilAllAcknowledged("a")
                try await api.waitUntilAllAcknowledged("b")

                // verify
                #expect(session.status == 200 && session.text.contains(#""recovered":2"#), "\(session.text)")
                #expect(tenant.status == 200 && tenant.text.contains(#""recovered":2"#), "a's first and b's: \(tenant.text)")
                let acknowledged = receiver.acknowledged.filter { $0.session == "a" }.map(\.sequence)
                #expect(acknowledged == [2, 3, 1], "the two since the time in order, then the first")
                #expect(try await other.deliveries("theirs", status: "failed").count == 1, "another tenant's stays failed")
                let bad = try await api.send(.POST, "/v1/deliveries/recover", json: #"{"since": "yesterday"}"#)
                #expect(bad.status == 400 && bad.text.contains("`since`"), "\(bad.text)")
                let missing = try await api.send(.POST, "/v1/deliveries/recover", json: "{}")
                #expect(missing.status == 400 && missing.text.contains("`since` is required"), "\(missing.text)")
            }
        }
    }

    @Test func theDashboardAndTransferctlRecover() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with(deliveryPolicy: TestService.twoQuickDeliveryAttempts) { api in
                try await api.deadLetterTestEvents("ui", to: receiver)
                try await api.deadLetterTestEvents("cli", to: receiver)
                receiver.refuse(with: nil)
                let browser = DashboardClient(api)
                let csrf = try await browser.signIn()

                // act
                let page = try await browser.get("/ui/sessions/ui/deliveries")
                let recovered = try await browser.post("/ui/sessions/ui/deliveries/recover", form: ["csrf": csrf, "hours": "24"])
                let refused = try await browser.post("/ui/sessions/ui/deliveries/recover", form: ["csrf": csrf, "hours": "0"])
                let cli = try await TransferctlProcess.run("deliveries", "-s", "cli", "--recover-since", "2h", api: api)
                let badCLI = try await TransferctlProcess.run("deliveries", "-s", "cli", "--recover-since", "soon", api: api)

                // verify
                #expect(page.text.contains(#"action="/ui/sessions/ui/deliveries/recover""#))
                #expect(recovered.location == "/ui/sessions/ui/deliveries")
                #expect(refused.status == 400)
                try await api.waitUntilAllAcknowledged("ui")
                #expect(cli.output == "recovering 1 failed deliveries\n", "\(cli.errors)")
                try await api.waitUntilAllAcknowledged("cli")
                #expect(badCLI.status != 0 && badCLI.errors.contains("--recover-since"), "\(badCLI.errors)")
            }
        }
    }
}
