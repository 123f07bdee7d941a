import Foundation
import Testing

/// The statements one instance sends PostgreSQL per task (each a round trip), counted by the service itself
/// (`transferd_database_statements_total`) while the real binary creates 100 small downloads in one batch and runs
/// them (after 100 created suspended, to count creation alone). Each bound is what the hot path costs when nothing
/// is shared (no two writes in one group commit, one task a claim), so that it holds under any load and no change
/// brings a round trip back unnoticed; the bounds go down as statements are merged and batched (when they were
/// added: 7.9 a task to create, 23.7 to claim, start and complete; now about 2 and 12).
@Suite(.enabled(if: TestService.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct RoundTripTests {
    static let tasks = 100

    @Test func statementsPerTaskStayWithinTheirBounds() async throws {
        try await OriginServer.with { origin in
            let service = try await ServiceProcess.start(dataDirectory: TestService.temporaryDataDirectory())
            defer { service.stopIfRunning() }
            let batch = { (start: Bool) in
                let items = (1...Self.tasks).map {
                    #"{"kind": "download", "url": "\#(origin.url("/files/1000?name=t\($0)"))", "start": \#(start)}"#
                }
                return #"{"tasks": [\#(items.joined(separator: ","))]}"#
            }
            try await service.api.createSession("created")
            try await service.api.createSession("counted", configuration: #"{"maximumConnectionsPerHost": 16}"#)

            // creation alone: suspended tasks, which nothing claims
            let idle = try await Self.statements(service.api)
            #expect(try await service.api.send(.POST, "/v1/sessions/created/tasks", json: batch(false)).status == 201)
            let created = try await Self.statements(service.api)
            // creation, claims, responses and completions of tasks that start at once
            #expect(try await service.api.send(.POST, "/v1/sessions/counted/tasks", json: batch(true)).status == 201)
            try await waitUntil(timeout: .seconds(120)) {
                try await service.api.session("counted").taskCounts["completed"] == Self.tasks
            }
            let after = try await Self.statements(service.api)

            let creation = (created.write - idle.write) / Double(Self.tasks)
            let (writes, claims) = ((after.write - created.write) / Double(Self.tasks), (after.claim - created.claim) / Double(Self.tasks))
            print("round trips per task: creation in a batch \(creation); creation, response and completion \(writes); claims \(claims)")
            #expect(creation <= 3.5, "creation in a batch: \(creation) statements a task")
            #expect(writes <= 19, "creation, response and completion: \(writes) statements a task")
            #expect(claims <= 9, "claims: \(claims) statements a task")
        }
    }

    /// The statements sent so far in write and in claim transactions (reads and lease renewals apart).
    private static func statements(_ api: APIClient) async throws -> (write: Double, claim: Double) {
        let scrape = try await MetricsTests.Scrape(api)
        let sent = { (transaction: String) in scrape[#"transferd_database_statements_total{transaction="\#(transaction)"}"#] }
        return (sent("write"), sent("claim"))
    }
}
