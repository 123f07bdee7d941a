import Foundation
import GRDB

/// One entry of a session's durable event log.
struct Event: Codable, Sendable, SnakeCaseColumns, MutablePersistableRecord {
    static let databaseTableName = "events"

    var id: Int64?
    var sessionId: Int64
    /// Position in the session's log: 1, 2, 3, … with no gaps.
    var sequence: Int64
    var type: EventType
    var taskIdentifier: Int64?
    /// The callback's arguments, as a JSON object.
    var data: EventData
    var createdAt: Date

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    enum Columns {
        static let sessionId = Column("session_id")
        static let sequence = Column("sequence")
    }
}
