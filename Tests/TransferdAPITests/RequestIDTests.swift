import HTTPTypes
import Testing

/// Every response names its request (`X-Request-Id`): the client's id when it sent a usable one, a new one
/// otherwise, problems included.
@Suite struct RequestIDTests {
    @Test func aClientsRequestIDComesBackAndOneIsMadeWhenAbsent() async throws {
        try await RoutedAPI.with { api in
            let given = try await api.send(.get, "/v1/sessions", headers: [("X-Request-Id", "client-42")])
            let made = try await api.send(.get, "/v1/sessions")
            let problem = try await api.send(.get, "/v1/sessions/missing", headers: [("X-Request-Id", "client-43")])
            let unusable = try await api.send(.get, "/v1/sessions", headers: [("X-Request-Id", String(repeating: "x", count: 300))])

            #expect(given.header("X-Request-Id") == "client-42")
            #expect(made.header("X-Request-Id")?.count == 36, "a new UUID")
            #expect(problem.status == 404 && problem.header("X-Request-Id") == "client-43")
            #expect(unusable.header("X-Request-Id")?.count == 36, "too long to echo: replaced")
        }
    }
}
