import Foundation
import Testing

/// A request's ids go on with what it causes: with `--log-format json` each log line is an object carrying its
/// request id and `traceparent`, and the webhook deliveries it causes carry its `traceparent` on. (That every answer
/// names its request is `TransferdAPITests`' `RequestIDTests`.)
@Suite struct RequestIDPropagationTests {
    @Test func jsonLogsAreOneObjectALineWithTheRequestID() async throws {
        let service = try await ServiceProcess.start(dataDirectory: DataDirectories.temporary(), log: ("json", "debug"))
        defer { service.stopIfRunning() }
        _ = try await service.api.send(
            .GET,
            "/v1/sessions",
            headers: [("X-Request-Id", "traced-7"), ("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")]
        )
        try await service.terminate()

        // verify: only JSON objects (the test harness's own lines aside), one of them the request with its ids
        let lines = service.log.split(separator: "\n").filter { $0.hasPrefix("{") }
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.count > 2)
        #expect(objects.allSatisfy { $0["time"] is String && $0["level"] is String && $0["message"] is String })
        let request = try #require(objects.first { $0["request_id"] as? String == "traced-7" })
        #expect(request["traceparent"] as? String == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        #expect(request["path"] as? String == "/v1/sessions")
    }

    @Test func aRequestsTraceparentGoesOnToTheWebhookDeliveriesItCauses() async throws {
        let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        try await WebhookReceiver.with { receiver in
            try await TestService.routed { api in
                try await api.createSession(
                    "traced",
                    configuration: #"{"webhook": {"url": "\#(receiver.url)", "events": ["task.created"]}}"#
                )

                // act: one task created with a traceparent, one without
                let body = #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#
                _ = try await api.send(.POST, "/v1/sessions/traced/tasks", json: body, headers: [("traceparent", traceparent)])
                _ = try await api.send(.POST, "/v1/sessions/traced/tasks", json: body)
                try await api.waitUntilAllAcknowledged("traced")

                // verify: the first's delivery carries it on, the second's carries none
                let created = receiver.received.filter { $0.type == "task.created" }.sorted { $0.sequence < $1.sequence }
                #expect(created.map(\.traceparent) == [traceparent, nil])
            }
        }
    }
}
