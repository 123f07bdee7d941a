import Foundation
import GRDB
import TransferdJSON

/// A date in the text GRDB stores dates as (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), formatted by arithmetic: GRDB formats
/// every date through a `DateFormatter` (ICU), a tenth of the writer's time when it records webhook answers. Rows
/// written either way are the same text; dates are still read by GRDB's own parser. The hot rows and the dates
/// that the scheduler's and the outbox's statements bind go through here.
enum StoredDate {
    /// The date as it reads back once stored (to the millisecond, through GRDB's own parser).
    static func stored(_ date: Date?) -> Date? {
        date.flatMap { Date.fromDatabaseValue(text($0).databaseValue) }
    }

    static func text(orNil date: Date?) -> String? {
        date.map(text)
    }

    static func text(_ date: Date) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(23)
        UTCDateTime(date).write(separator: UInt8(ascii: " "), to: &text)
        return String(decoding: text, as: UTF8.self)
    }
}
