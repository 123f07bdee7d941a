import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO
import Synchronization
import TransferdDomain

/// A PostgreSQL connection as the repositories use it, lent by the store's pool for one transaction: each statement
/// is sent and its whole result awaited, its `?` placeholders numbered (`$1`, `$2`, …) and its values exchanged as
/// GRDB's database values. A statement sent again is prepared on the connection (`PreparedStatements`), so that the
/// server parses and plans it once per connection rather than every time.
///
/// A statement the server has not answered within `answerTimeout` fails as `StoreError.unavailable` and closes the
/// connection: a server that died mid-statement (a crash, a failover, a lost network) must not hold a transaction
/// for ever.
struct PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    /// nil waits as long as a statement takes (migrations).
    var answerTimeout: TimeAmount? = .seconds(15)
    /// Whether the transaction locks the rows it reads to change (a write under READ COMMITTED).
    var locksRowsRead = false
    /// Whether statements sent again are prepared (not a migration's, sent once).
    var prepares = true
    /// For a statement sent without a transaction (`Store.lookup`): refuses a second one.
    var budget: StatementBudget? = nil
    /// For a claim without a transaction: the claim lock it holds.
    var claimTurn: ClaimTurn? = nil
    /// Told of every statement sent.
    var sending: @Sendable () -> Void = {}
    /// The writes held for the statement that takes them in (`hold`).
    let held = HeldStatements()

    var outbox: any OutboxPaths { PostgresOutbox() }
    var eventLog: any EventLogPaths { PostgresEventLog() }
    var queue: any QueuePaths { PostgresQueue() }
    var tasks: any TaskPaths { PostgresTasks() }
    var history: any HistoryPaths { PostgresHistory() }
    var batches: any RowBatches { PostgresRowBatches() }
    var leases: any Leases { PostgresLeases(db: self) }
    var exclusiveRowLock: String { " FOR UPDATE" }

    /// `FOR NO KEY UPDATE`, the lock an `UPDATE` of the row takes itself: one that already changed the row (a
    /// trigger's counters on its session) asks for nothing more, where `FOR UPDATE` asked for a stronger lock and
    /// deadlocked with the writes queued for the row meanwhile; and it lets the inserts that refer to the row
    /// (`FOR KEY SHARE`) through.
    func rowLock(of table: String?) -> String {
        locksRowsRead ? " FOR NO KEY UPDATE" + (table.map { " OF " + $0 } ?? "") : ""
    }

    @discardableResult
    nonisolated(nonsending) func execute(_ sql: String, _ arguments: SQLArguments) async throws -> Int {
        // A rollback forgets what is held: sent first, a write that fails would keep the rollback from being sent.
        if sql.hasPrefix("ROLLBACK") { held.forget() } else { try await sendHeld() }
        // A command prepared answers rows, not its tag (postgres-nio's prepared statements without rows cannot be read
        // for their tag): a row each for the rows it changed.
        if prepares, PreparedStatements.returnsNoRows(sql) {
            var changed = 0
            try await forEachRow(sql + " RETURNING 1", arguments) { _ in changed += 1 }
            return changed
        }
        let (text, bindings) = Self.statement(sql, arguments)
        return try await answer { try await connection.query(PostgresQuery(unsafeSQL: text, binds: bindings.values), logger: logger).get() }
            .metadata.rows ?? 0
    }

    nonisolated(nonsending) func insert(_ sql: String, _ arguments: SQLArguments) async throws -> Int64 {
        guard let id: Int64 = try await value(sql + " RETURNING id", arguments) else { throw StoreError.rowNotFound("the row of \(sql)") }
        return id
    }

    nonisolated(nonsending) func forEachRow(_ sql: String, _ arguments: SQLArguments, _ body: (StoredRow) throws -> Void) async throws {
        try await sendHeld()
        try await send(sql, arguments, body)
    }

    /// Sends `statement`, a hot statement with a type of its own (postgres-nio prepares it on each connection the first
    /// time that connection sends it, and names it by its type), after the writes held so far; answers its rows.
    nonisolated(nonsending) func run<Statement: PostgresPreparedStatement>(
        _ statement: Statement
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await sendHeld()
        let (connection, logger) = (connection, logger)
        return try await answer {
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    nonisolated(nonsending) func hold(_ sql: String, _ arguments: SQLArguments) async throws {
        held.append(sql, arguments)
    }

    nonisolated(nonsending) func forEachRow(
        takingInHeldWrites sql: String,
        _ arguments: SQLArguments,
        _ body: (StoredRow) throws -> Void
    ) async throws {
        var writes = held.take()
        // The first held writes that fit beside the statement's own arguments go on their own.
        var room = Self.maximumArguments - arguments.count
        let fitting = writes.reversed().prefix { write in
            room -= write.values.count
            return room >= 0
        }
        writes.removeLast(fitting.count)
        try await send(writes)
        try await send(fitting.reversed(), then: sql, arguments, body)
    }

    /// The most arguments a statement takes (PostgreSQL numbers them in 16 bits).
    private static let maximumArguments = 65_535

    /// Sends the writes held so far.
    nonisolated(nonsending) private func sendHeld() async throws {
        try await send(held.take())
    }

    /// Sends `writes`, as few statements as the arguments' limit allows.
    nonisolated(nonsending) private func send(_ writes: [HeldStatements.Statement]) async throws {
        var start = writes.startIndex
        while start < writes.endIndex {
            var (end, count) = (start, 0)
            while end < writes.endIndex, end == start || count + writes[end].values.count <= Self.maximumArguments {
                count += writes[end].values.count
                end += 1
            }
            try await send(Array(writes[start..<end]), then: "SELECT 1", []) { _ in }
            start = end
        }
    }

    /// Sends `sql` with `writes` as the first parts of its `WITH`.
    nonisolated(nonsending) private func send(
        _ writes: [HeldStatements.Statement],
        then sql: String,
        _ arguments: SQLArguments,
        _ body: (StoredRow) throws -> Void
    ) async throws {
        guard !writes.isEmpty else { return try await send(sql, arguments, body) }
        let parts = writes.enumerated().map { "held_write_\($0.offset + 1) AS (\($0.element.sql))" }.joined(separator: ", ")
        let text = sql.hasPrefix("WITH ") ? "WITH \(parts), " + sql.dropFirst(5) : "WITH \(parts) " + sql
        try await send(text, writes.flatMap { $0.values.map { $0 } } + arguments, body)
    }

    nonisolated(nonsending) private func send(_ sql: String, _ arguments: SQLArguments, _ body: (StoredRow) throws -> Void) async throws {
        let (text, bindings) = Self.statement(sql, arguments)
        let rows: [PostgresRow]
        if prepares, let prepared = PreparedStatements.shared.prepared(text, types: bindings.types) {
            rows = try await answer {
                try await PreparedQuery.$text.withValue(prepared) {
                    var rows: [PostgresRow] = []
                    for try await row in try await connection.execute(PreparedQuery(bindings: bindings.values), logger: logger) {
                        rows.append(row)
                    }
                    return rows
                }
            }
        } else {
            rows = try await answer {
                try await connection.query(PostgresQuery(unsafeSQL: text, binds: bindings.values), logger: logger).get().rows
            }
        }
        guard let first = rows.first else { return }
        let columns = ColumnNames(first.map(\.columnName))
        for row in rows {
            try body(StoredRow(values: try row.map(Self.databaseValue), columns: columns))
        }
    }

    /// A statement's text with its placeholders numbered, and its values bound. A statement without arguments is
    /// sent as written (a migration's text may hold a `?` of its own).
    private static func statement(
        _ sql: String,
        _ arguments: SQLArguments
    ) -> (String, (values: PostgresBindings, types: [PostgresDataType])) {
        var bindings = PostgresBindings(capacity: arguments.count)
        var types: [PostgresDataType] = []
        types.reserveCapacity(arguments.count)
        for argument in arguments {
            let value = (argument?.databaseValue ?? .null).storage
            switch value {
            case .null: bindings.appendNull()
            case .int64(let value): bindings.append(value)
            case .double(let value): bindings.append(value)
            case .string(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            }
            types.append(Self.type(of: value))
        }
        return (arguments.isEmpty ? sql : numbered(sql), (bindings, types))
    }

    /// The type a value is sent as (NULL's left to the server to infer).
    private static func type(of value: DatabaseValue.Storage) -> PostgresDataType {
        switch value {
        case .null: .null
        case .int64: .int8
        case .double: .float8
        case .string: .text
        case .blob: .bytea
        }
    }

    /// What `send` answers. The server's errors that mean it cannot be used now are `StoreError.unavailable`, and
    /// those that mean the transaction must run again are `SerializationConflict`.
    ///
    /// After `answerTimeout` without an answer, it is `StoreError.unavailable`, and the connection is closed (the pool
    /// drops it). The statement is not awaited any longer: postgres-nio may never answer a statement written to a
    /// connection that closed meanwhile (seen when the server stopped under load), and a transaction waiting for it
    /// would hold the writer's turn for ever.
    private func answer<T: Sendable>(_ send: @escaping @Sendable () async throws -> T) async throws -> T {
        try budget?.spend()
        sending()
        guard let answerTimeout else { return try await Self.translatingErrors(send) }
        let answer = SingleAnswer<T>()
        return try await withCheckedThrowingContinuation { continuation in
            answer.awaited(by: continuation)
            let statement = Task {
                do {
                    answer.settle(.success(try await Self.translatingErrors(send)))
                } catch {
                    answer.settle(.failure(error))
                }
            }
            let connection = connection
            let timeout = connection.eventLoop.scheduleTask(in: answerTimeout) {
                answer.settle(
                    .failure(StoreError.unavailable("no answer from the database within \(answerTimeout.nanoseconds / 1_000_000_000) s"))
                )
                statement.cancel()
                let _: EventLoopFuture<Void> = connection.close()
            }
            answer.onSettled { timeout.cancel() }
        }
    }

    private static func translatingErrors<T>(_ send: () async throws -> T) async throws -> T {
        do {
            return try await send()
        } catch let error as PSQLError where SerializationConflict.states.contains(error.serverInfo?[.sqlState] ?? "") {
            throw SerializationConflict(error: error)
        } catch let error as PSQLError where Self.meansUnavailable(error) {
            throw StoreError.unavailable(String(reflecting: error))
        }
    }

    /// Whether the error says that the database cannot be used now (a lost connection, a server shutting down or
    /// starting), rather than that the statement was wrong.
    private static func meansUnavailable(_ error: PSQLError) -> Bool {
        guard error.code == .server else {
            return [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code)
        }
        // Classes 08 (connection exception) and 57 (operator intervention: admin shutdown, cannot connect now).
        let state = error.serverInfo?[.sqlState] ?? ""
        return state.hasPrefix("08") || state.hasPrefix("57")
    }

    /// A cell as the database value GRDB would have read from SQLite for the same column.
    private static func databaseValue(_ cell: PostgresCell) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8: return try cell.decode(Int64.self).databaseValue
        case .int4: return Int64(try cell.decode(Int32.self)).databaseValue
        case .int2: return Int64(try cell.decode(Int16.self)).databaseValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0 as Int64).databaseValue
        case .float8: return try cell.decode(Double.self).databaseValue
        case .float4: return Double(try cell.decode(Float.self)).databaseValue
        case .bytea: return Data(try cell.decode(ByteBuffer.self).readableBytesView).databaseValue
        default: return try cell.decode(String.self).databaseValue
        }
    }

    /// `sql` with its `?` placeholders numbered, once per distinct text (the repositories' statements are few).
    private static func numbered(_ sql: String) -> String {
        if let known = numberedTexts.withLock({ $0[sql] }) { return known }
        var text = ""
        var (number, quoted) = (0, false)
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?" && !quoted {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        numberedTexts.withLock { $0[sql] = text }
        return text
    }

    private static let numberedTexts = Mutex<[String: String]>([:])
}

/// The writes a transaction holds for the statement that takes them in (`PostgresSQLConnection.hold`), in order.
final class HeldStatements: Sendable {
    struct Statement: Sendable {
        let sql: String
        let values: [DatabaseValue]
    }

    private let statements = Mutex<[Statement]>([])

    func append(_ sql: String, _ arguments: SQLArguments) {
        let statement = Statement(sql: sql, values: arguments.map { $0?.databaseValue ?? .null })
        statements.withLock { $0.append(statement) }
    }

    /// The statements held, no longer held.
    func take() -> [Statement] {
        statements.withLock { statements in
            defer { statements = [] }
            return statements
        }
    }

    func forget() {
        statements.withLock { $0 = [] }
    }
}

/// The first of a statement's answer and its timeout, handed once to the transaction that waits for it; what is to
/// follow it (the timeout's cancellation) runs once it is settled.
private final class SingleAnswer<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var settled = false
        var onSettled: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func awaited(by continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func settle(_ result: Result<T, any Error>) {
        let (continuation, then) = state.withLock { state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            guard !state.settled else { return (nil, nil) }
            state.settled = true
            defer { (state.continuation, state.onSettled) = (nil, nil) }
            return (state.continuation, state.onSettled)
        }
        continuation?.resume(with: result)
        then?()
    }

    func onSettled(_ action: @escaping @Sendable () -> Void) {
        let settled = state.withLock { state in
            if !state.settled { state.onSettled = action }
            return state.settled
        }
        if settled { action() }
    }
}

/// PostgreSQL aborted the transaction because another one conflicted with it; running it again sees what that one
/// committed, and may succeed.
struct SerializationConflict: TransactionConflict {
    let error: PSQLError

    /// A serialization failure, a deadlock, and a unique key another transaction inserted since this one looked for
    /// it (under READ COMMITTED, two writes that each found no row with the key).
    static let states: Set<String> = ["40001", "40P01", "23505"]
}
