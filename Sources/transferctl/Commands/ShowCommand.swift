import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl show`: one task with its attempts and events.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a task: its request, state, bytes, attempts and events."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The task: N (in the session of -s) or SESSION/N.")
    var task: TaskReference

    @Option(name: .shortAndLong, help: "The session of a task given as N.")
    var session = "transferctl"

    @Flag(help: "Print the task's JSON as the API answers it.")
    var json = false

    func run() async throws {
        try await connection.run { client in
            let reply = try await client.get(task.path(in: session))
            if json { return Console.line(reply.text) }
            let view = try reply.decode(APITask.self)
            let events = try await client.get(
                "/v1/sessions/\(task.session ?? session)/events?task=\(task.identifier)&limit=1000"
            ).decode(SessionEventBatch.self).items
            for line in Self.describe(view, reference: task.description(in: session), events: events) {
                Console.line(line.rendered(width: Int.max))
            }
        }
    }

    /// The task as labelled lines, then its attempts and events.
    static func describe(_ task: APITask, reference: String, events: [SessionEvent]) -> [StyledLine] {
        let (done, total) = task.bytes
        var lines: [StyledLine] = [
            StyledLine([.init(text: "task      ", tone: .bold), .init(text: "\(reference) (\(task.kind))")]),
            StyledLine([.init(text: "request   ", tone: .bold), .init(text: "\(task.originalRequest.method) \(task.originalRequest.url)")]),
            StyledLine([.init(text: "state     ", tone: .bold), .init(text: task.status, tone: ListCommand.tone(of: task))]),
            StyledLine([
                .init(text: "bytes     ", tone: .bold),
                .init(
                    text: Units.bytes(done) + (total >= 0 ? " of \(Units.bytes(total))" : "")
                        + (Units.percent(done, of: total).map { " (\($0))" } ?? "")
                ),
            ]),
        ]
        if let response = task.response {
            lines.append(StyledLine([.init(text: "response  ", tone: .bold), .init(text: "\(response.statusCode)")]))
        }
        if let file = task.file {
            lines.append(
                StyledLine([.init(text: "content   ", tone: .bold), .init(text: "\(Units.bytes(Int64(file.size))), sha256 \(file.sha256)")])
            )
        }
        if let error = task.error {
            lines.append(
                StyledLine([.init(text: "error     ", tone: .bold), .init(text: "\(error.code): \(error.message)", tone: .failure)])
            )
        }
        if let next = task.nextAttemptAt {
            lines.append(StyledLine([.init(text: "next try  ", tone: .bold), .init(text: next.formatted(.iso8601))]))
        }
        lines.append(StyledLine([.init(text: "attempts", tone: .bold)]))
        if task.attempts.isEmpty { lines.append(StyledLine([.init(text: "  none yet", tone: .dim)])) }
        for attempt in task.attempts {
            let status = attempt.statusCode.map { " HTTP \($0)" } ?? ""
            lines.append(
                StyledLine([
                    .init(text: "  " + attempt.endedAt.formatted(.iso8601) + "  ", tone: .dim),
                    .init(text: attempt.outcome, tone: attempt.outcome == "succeeded" ? .success : .failure),
                    .init(text: "\(status), \(Units.bytes(Int64(attempt.bytes)))"),
                ])
            )
        }
        lines.append(StyledLine([.init(text: "events", tone: .bold)]))
        for event in events {
            lines.append(EventsCommand.line(event, indent: "  "))
        }
        return lines
    }
}
