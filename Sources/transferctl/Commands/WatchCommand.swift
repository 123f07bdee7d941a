import ArgumentParser
import Dispatch
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl watch`: a live table of the tenant's tasks, drawn again in place from the tenant's event stream.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "A live table of tasks, redrawn in place as their events arrive, until Ctrl-C.",
        discussion: """
            Starts from the unfinished tasks of every session (or of -s SESSION) and follows the tenant's event \
            stream (GET /v1/events) from now on: new tasks appear, progress moves, completions and failures stay \
            listed. When output is not a terminal, each change is printed as a line instead.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .shortAndLong, help: "Only this session's tasks.")
    var session: String?

    /// One row of the table.
    struct Row: Sendable {
        var url: String
        var status: String
        var done: Int64 = 0
        var total: Int64 = -1
        var meter = RateMeter()

        init(url: String, status: String) {
            self.url = url
            self.status = status
        }

        /// The row of `task` as it is now.
        init(_ task: APITask) {
            (url, status) = (task.originalRequest.url, task.status)
            (done, total) = task.bytes
        }
    }

    func run() async throws {
        try await connection.run { client in
            struct Batch: Decodable { var nextAfter: String }
            let start = try await client.get("/v1/events?after=now").decode(Batch.self).nextAfter
            let rows = try await snapshot(client)
            let stream = EventStream(client: client, path: "/v1/events?after=\(start)")
            try await Interruptions.stop { [session] in try await Self.follow(stream, rows: rows, session: session, client: client) }
        }
    }

    /// Follows the tenant's events from `stream`, keeping the rows up to date (drawn on a terminal, printed as
    /// lines otherwise), until cancelled; the table drawn last stays on screen.
    private static func follow(_ stream: EventStream, rows: [String: Row], session: String?, client: APIConnection) async throws {
        let screen = LiveScreen(rows) { Self.lines($0) }
        let follow = {
            try await stream.follow { message in
                let event = try message.event()
                guard let owner = event.session, session == nil || owner == session, let identifier = event.taskIdentifier else {
                    return true
                }
                let key = "\(owner)/\(identifier)"
                if screen.value[key] == nil {
                    // A task new to the table: its URL is in the task, not in the event.
                    let task = try? await client.get("/v1/sessions/\(owner)/tasks/\(identifier)").decode(APITask.self)
                    screen.update { $0[key] = task.map(Row.init) ?? Row(url: "", status: "running") }
                }
                let row = screen.update { rows in
                    Self.apply(event, to: &rows[key]!)
                    return rows[key]!
                }
                if !Console.isTerminal, !["task.progress", "task.upload_progress"].contains(event.type) {
                    Console.line(Self.line(key, row))
                }
                return true
            }
        }
        do {
            try await Console.isTerminal ? screen.drawing(follow) : follow()
        } catch  where Task.isCancelled {
            // Ctrl-C: the table stays as it was last.
        }
    }

    /// The unfinished tasks there are now.
    private func snapshot(_ client: APIConnection) async throws(CommandFailure) -> [String: Row] {
        var sessions: [String]
        if let session {
            sessions = [session]
        } else {
            sessions = try await client.get("/v1/sessions?limit=1000").decode(APISessionPage.self).items
                .filter { session in APITaskState.unfinished.contains { session.taskCounts[$0] > 0 } }
                .map(\.identifier)
        }
        var rows: [String: Row] = [:]
        for session in sessions {
            for state in APITaskState.unfinished {
                let page = try await client.get("/v1/sessions/\(session)/tasks?state=\(state)&limit=1000").decode(APITaskPage.self)
                for task in page.items {
                    rows["\(session)/\(task.taskIdentifier)"] = Row(task)
                }
            }
        }
        return rows
    }

    private static func apply(_ event: SessionEvent, to row: inout Row) {
        if let progress = event.progress {
            (row.done, row.total) = progress
            row.meter.record(progress.done, at: event.createdAt)
            row.status = "running"
        }
        switch event.type {
        case "task.completed": row.status = event.data.error.map { "failed: \($0.code)" } ?? "completed"
        case "task.suspended": row.status = "suspended"
        case "task.resumed", "task.created": row.status = event.data.state?.rawValue ?? "running"
        case "task.waiting_for_connectivity": row.status = "waiting: connectivity"
        default: break
        }
    }

    /// The table: unfinished tasks first, then the finished, each by reference.
    private static func lines(_ rows: [String: Row]) -> [StyledLine] {
        var table = Table([
            .init(title: "TASK"), .init(title: "STATE"), .init(title: "PROGRESS", alignRight: true), .init(title: "SIZE", alignRight: true),
            .init(title: "RATE", alignRight: true), .init(title: "ETA", alignRight: true), .init(title: "URL", flexible: true),
        ])
        let ordered = rows.sorted { ($0.value.isFinished ? 1 : 0, $0.key) < ($1.value.isFinished ? 1 : 0, $1.key) }
        let height = max(5, (Console.terminalHeight ?? 40) - 2)
        for (key, row) in ordered.prefix(height) {
            let tone: StyledLine.Tone =
                row.status == "completed"
                ? .success : row.status.hasPrefix("failed") ? .failure : row.status == "running" ? .accent : .warning
            let rate = row.status == "running" ? row.meter.bytesPerSecond : nil
            table.rows.append([
                Table.Cell(key), Table.Cell(row.status, tone), Table.Cell(Units.percent(row.done, of: row.total) ?? Units.bytes(row.done)),
                Table.Cell(row.total >= 0 ? Units.bytes(row.total) : "-"), Table.Cell(rate.map(Units.rate) ?? "-"),
                Table.Cell(row.status == "running" ? row.meter.secondsRemaining(toward: row.total).map(Units.duration) ?? "-" : "-"),
                Table.Cell(row.url),
            ])
        }
        return table.lines(width: Console.width)
    }

    /// A row as a plain line, for output that is not a terminal.
    private static func line(_ key: String, _ row: Row) -> String {
        "\(key) \(row.status) \(Units.percent(row.done, of: row.total) ?? Units.bytes(row.done)) \(row.url)"
    }

}

extension WatchCommand.Row {
    var isFinished: Bool { status == "completed" || status.hasPrefix("failed") }
}
