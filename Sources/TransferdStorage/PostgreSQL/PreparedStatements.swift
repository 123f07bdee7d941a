import PostgresNIO
import Synchronization

/// The statements prepared on every connection, named by their text and their arguments' types: once a statement has
/// been sent `threshold` times, it is prepared on each connection the first time that connection sends it, and sent
/// by name from then on (postgres-nio prepares it and keeps the names each connection has). Its plan is made once
/// per connection, not on every send: planning was a third of the server's time in a scale-out run.
///
/// A text is sent a few times before it is prepared, so that statements written for one use (a list of n
/// placeholders) do not each cost a preparation; at most `capacity` texts are named, and the rest are sent unnamed.
final class PreparedStatements: Sendable {
    /// A prepared statement: its name on every connection, its text and its arguments' types.
    struct Text: Sendable {
        let name: String
        let sql: String
        let types: [PostgresDataType]
    }

    private struct Key: Hashable {
        let sql: String
        let types: [PostgresDataType]
    }

    private struct State {
        var sent: [Key: Int] = [:]
        var named: [Key: Text] = [:]
    }

    static let shared = PreparedStatements()

    private let threshold: Int
    private let capacity: Int
    private let state = Mutex(State())

    init(threshold: Int = 3, capacity: Int = 500) {
        self.threshold = threshold
        self.capacity = capacity
    }

    /// Whether `sql` is a plain `INSERT`, `UPDATE` or `DELETE` that returns no rows.
    static func returnsNoRows(_ sql: String) -> Bool {
        let start = sql.drop { $0 == " " || $0 == "\n" }.prefix(7).uppercased()
        return (start.hasPrefix("INSERT ") || start.hasPrefix("UPDATE ") || start.hasPrefix("DELETE ")) && !sql.contains("RETURNING")
    }

    /// The prepared statement to send `sql` as, with arguments of `types`; nil to send it unnamed.
    func prepared(_ sql: String, types: [PostgresDataType]) -> Text? {
        let key = Key(sql: sql, types: types)
        return state.withLock { state in
            if let text = state.named[key] { return text }
            guard state.named.count < capacity else { return nil }
            let sent = state.sent[key, default: 0] + 1
            guard sent >= threshold else {
                // Texts sent once each (lists of n placeholders) are forgotten rather than kept for ever.
                if state.sent.count >= 4 * capacity { state.sent = [:] }
                state.sent[key] = sent
                return nil
            }
            state.sent[key] = nil
            let text = Text(name: "transferd_\(state.named.count + 1)", sql: sql, types: types)
            state.named[key] = text
            return text
        }
    }
}

/// A prepared statement. postgres-nio names a prepared statement by its type; this one type
/// stands for every text, which it reads from the task that sends it (`$text`), as postgres-nio reads the name,
/// text and types when the statement is sent.
struct PreparedQuery: PostgresPreparedStatement {
    typealias Row = PostgresRow

    @TaskLocal static var text: PreparedStatements.Text?

    static var name: String { current.name }
    static var sql: String { current.sql }
    static var bindingDataTypes: [PostgresDataType] { current.types }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }

    private static var current: PreparedStatements.Text {
        guard let text else { preconditionFailure("a prepared query sent without its text") }
        return text
    }
}
