import Testing

@Suite struct HealthTests {
    @Test func livenessAndReadinessAnswer() async throws {
        try await TestService.routed { api in
            let live = try await api.send(.GET, "/healthz")
            #expect(live.status == 200)
            #expect(live.text == #"{"status":"ok"}"#)
            let ready = try await api.send(.GET, "/readyz")
            #expect(ready.status == 200)
            #expect(ready.text == #"{"status":"ready"}"#)
        }
    }
}
