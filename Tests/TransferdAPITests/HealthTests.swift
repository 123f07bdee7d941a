import HTTPTypes
import Testing

@Suite struct HealthTests {
    @Test func livenessAndReadinessAnswer() async throws {
        try await RoutedAPI.with { api in
            let live = try await api.send(.get, "/healthz")
            #expect(live.status == 200)
            #expect(live.text == #"{"status":"ok"}"#)
            let ready = try await api.send(.get, "/readyz")
            #expect(ready.status == 200)
            #expect(ready.text == #"{"status":"ready"}"#)
        }
    }
}
