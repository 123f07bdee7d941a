import Foundation
import Testing

/// A creating request retried with the same `Idempotency-Key` gets the original response, not a second resource.
@Suite struct IdempotencyTests {
    @Test func aRetriedTaskCreationCreatesOneTask() async throws {
        try await TestService.with { api in
            try await api.createSession("once")
            let body = #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#
            let key = [("Idempotency-Key", "order-42")]
            let first = try await api.send(.POST, "/v1/sessions/once/tasks", json: body, headers: key)
            let retry = try await api.send(.POST, "/v1/sessions/once/tasks", json: body, headers: key)

            #expect(first.status == 201)
            #expect(retry.status == 201)
            #expect(retry.body == first.body, "the original response, byte for byte")
            #expect(try await api.tasks("once").count == 1)

            let other = try await api.send(
                .POST,
                "/v1/sessions/once/tasks",
                json: body.replacingOccurrences(of: "9/", with: "9/x"),
                headers: key
            )
            #expect(other.status == 422)
            #expect(other.problem?.type == "urn:transferd:problem:idempotency-key-reused")
            let fresh = try await api.send(.POST, "/v1/sessions/once/tasks", json: body, headers: [("Idempotency-Key", "order-43")])
            #expect(try fresh.decode(TaskView.self).taskIdentifier == 2)
        }
    }

    @Test func everyCreatingPostHonoursTheKey() async throws {
        try await TestService.with { api in
            try await api.createSession("keys")
            let requests: [(String, String?, [(String, String)])] = [
                ("/v1/sessions/keys/background-tasks", #"{"name": "n", "duration": 30}"#, []),
                ("/v1/files", nil, [("Tus-Resumable", "1.0.0"), ("Upload-Length", "10")]),
                ("/v1/sessions/keys/invalidate", "{}", []),
            ]
            for (index, (path, json, headers)) in requests.enumerated() {
                let key = [("Idempotency-Key", "k\(index)")] + headers
                let first = try await api.send(.POST, path, json: json, headers: key)
                let retry = try await api.send(.POST, path, json: json, headers: key)
                #expect(first.status < 300, "\(path): \(first.text)")
                #expect(retry.status == first.status)
                #expect(retry.body == first.body, "\(path)")
                #expect(retry.headers.first(name: "Location") == first.headers.first(name: "Location"))
            }
        }
    }
}
