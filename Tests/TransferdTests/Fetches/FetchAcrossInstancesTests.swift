import Foundation
import Testing
import TransferdDomain
import TransferdTestOrigins

@testable import transferd

/// Two instances over one PostgreSQL database, on one clock: each run of a schedule happens once, and is judged
/// once, whichever instance sees it fall due. Only with `TRANSFERD_TEST_DATABASE_URL`.
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct FetchAcrossInstancesTests {
    @Test func aRunHappensOnceAcrossTwoInstances() async throws {
        let clock = ManualClock()
        let dataDirectory = DataDirectories.temporary()
        func instance(_ id: String) -> (inout Configuration) -> Void {
            { configuration in
                configuration.instance = Instance(id: id, leaseTimeout: 15)
                configuration.clock = clock
            }
        }
        try await OriginServer.with { origin in
            try await TestService.with(dataDirectory: dataDirectory, configure: instance("f1")) { first in
                try await TestService.with(dataDirectory: dataDirectory, configure: instance("f2")) { second in
                    // setup: ten schedules created through both instances, their first runs judged
                    try await first.createSession("shared")
                    for number in 0..<10 {
                        _ = try await BackgroundFetchTests.schedule(
                            [first, second][number % 2],
                            "shared",
                            url: origin.url("/feed/shared\(number)")
                        )
                    }
                    _ = try await BackgroundFetchTests.performed(first, "shared", count: 10)

                    // act: three intervals pass, one at a time, while both instances watch the clock
                    for round in 2...4 {
                        clock.advance(by: 60)
                        _ = try await BackgroundFetchTests.performed(second, "shared", count: 10 * round)
                    }
                    try await clock.settle()

                    // verify: four runs per schedule, one task and one fetch.performed each, in a gap-free log
                    let log = try await first.allEvents("shared")
                    let performed = log.filter { $0.type == "fetch.performed" }
                    #expect(performed.count == 40)
                    #expect(Set(performed.compactMap(\.taskIdentifier)).count == 40)
                    #expect(try await second.tasks("shared").count == 40)
                    #expect(log.map(\.sequence) == Array(1...log.count))
                    #expect(performed.filter { $0.data.result == "newData" }.count == 10)
                }
            }
        }
    }
}
