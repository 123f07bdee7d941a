import Foundation
import GRDB
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import TransferdStorage

@Suite struct StoredDateTests {
    @Test func formatsDatesAsGRDBStoresThem() {
        // setup: edge cases of days, years and milliseconds, and a spread of random instants up to 2200
        var dates = [0, 0.0005, 0.9999, 59.999, 86_399.999_9, 951_782_400, 4_107_542_399.999, 1_767_225_599.999_5].map {
            Date(timeIntervalSince1970: $0)
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { dates.append(Date(timeIntervalSince1970: Double.random(in: 0..<7_258_118_400, using: &generator))) }

        // verify: the same text as GRDB's DateFormatter
        for date in dates {
            #expect(StoredDate.text(date) == String.fromDatabaseValue(date.databaseValue), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func anInsertedTaskIsReturnedAsItReadsBack() async throws {
        // setup: dates finer than the database keeps
        let store = try await SQLiteStore(dataDirectory: DataDirectories.temporary(), vault: .forTests)
        let created = Date(timeIntervalSince1970: 1_790_000_000.123_456_7)
        let request = TransferRequest(url: "http://a.test/", method: "GET", headers: ["Accept": "*/*"])
        var task = TransferTask(
            NewTask(
                transfer: .download(DownloadTransfer(connections: 2)),
                request: request,
                origin: "a.test:80",
                priority: 0.25,
                start: false
            ),
            sessionID: 1,
            taskIdentifier: 1,
            createdAt: created
        )
        task.earliestBeginDate = created.addingTimeInterval(60.000_9)

        // act
        let (inserted, read) = try await store.write { [task] repositories in
            _ = try await repositories.sessions.insert(Session(identifier: "s", tenantId: 1, configuration: .default, createdAt: created))
            let inserted = try await repositories.tasks.insert(task)
            return (inserted, try await repositories.tasks.find(id: inserted.rowID))
        }

        // verify
        #expect(inserted == read)
        #expect(inserted.createdAt != created)
    }
}
