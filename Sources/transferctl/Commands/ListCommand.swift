import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl ls`: a session's tasks as a table.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List a session's tasks: id, state, progress, size, rate and URL, fitted to the terminal.",
        discussion: """
            The rate of a transferring task comes from its latest progress events. One page at a time: when there \
            are more, the last line says which --cursor shows the next.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .shortAndLong, help: "The session.")
    var session = "transferctl"

    @Option(help: "Only tasks in this state: suspended, running, canceling or completed.")
    var state: String?

    @Option(help: "Tasks per page, 1-1000.")
    var limit = 1000

    @Option(help: "The page after this cursor (the previous page's nextCursor).")
    var cursor: String?

    @Flag(help: "Print the API's JSON page.")
    var json = false

    func run() async throws {
        try await connection.run { client in
            var query = "limit=\(limit)"
            if let state { query += "&state=\(state)" }
            if let cursor { query += "&cursor=\(cursor)" }
            let reply = try await client.get("/v1/sessions/\(session)/tasks?\(query)")
            if json { return Console.line(reply.text) }
            let page = try reply.decode(APITaskPage.self)
            let rates = try await Self.rates(of: page.items, session: session, client: client)
            var table = Table([
                .init(title: "ID", alignRight: true), .init(title: "STATE"), .init(title: "PROGRESS", alignRight: true),
                .init(title: "SIZE", alignRight: true), .init(title: "RATE", alignRight: true), .init(title: "URL", flexible: true),
            ])
            for task in page.items {
                let (done, total) = task.bytes
                table.rows.append([
                    Table.Cell(String(task.taskIdentifier)), Table.Cell(task.status, Self.tone(of: task)),
                    Table.Cell(Units.percent(done, of: total) ?? Units.bytes(done)), Table.Cell(total >= 0 ? Units.bytes(total) : "-"),
                    Table.Cell(rates[task.taskIdentifier].map(Units.rate) ?? "-"), Table.Cell(task.originalRequest.url),
                ])
            }
            table.print()
            if let next = page.nextCursor { Console.line("more: transferctl ls -s \(session) --cursor \(next)") }
        }
    }

    static func tone(of task: APITask) -> StyledLine.Tone {
        switch task.status {
        case "completed": .success
        case "running": .accent
        case let status where status.hasPrefix("failed"): .failure
        default: .warning
        }
    }

    /// The rates of the running tasks, from the session's latest progress events (the last 1000 events).
    static func rates(of tasks: [APITask], session: String, client: APIConnection) async throws(CommandFailure) -> [Int: Double] {
        let running = Set(tasks.filter { $0.state == .running && $0.waitingReason == nil }.map(\.taskIdentifier))
        guard !running.isEmpty else { return [:] }
        let newest = try await client.get("/v1/sessions/\(session)").decode(APISession.self).lastEventSequence
        let events = try await client.get("/v1/sessions/\(session)/events?after=\(max(0, newest - 1000))&limit=1000")
            .decode(SessionEventBatch.self).items
        var meters: [Int: RateMeter] = [:]
        for event in events {
            guard let task = event.taskIdentifier, running.contains(task), let progress = event.progress else { continue }
            meters[task, default: RateMeter()].record(progress.done, at: event.createdAt)
        }
        return meters.compactMapValues(\.bytesPerSecond)
    }
}
