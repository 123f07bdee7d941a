import Foundation
import GRDB
import Testing

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
}
