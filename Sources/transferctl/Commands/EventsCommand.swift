import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl events`: a session's event log, and with `--follow` its live stream.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print a session's events; with --follow, go on with each new one as it is written.",
        discussion: """
            With --json, the API's batch as it answers; with --follow --json, each event's JSON on its own line \
            (the data of the stream's messages). Following reconnects after a restart of the service without \
            missing an event; Ctrl-C or SIGTERM stops it, with status 0.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .shortAndLong, help: "The session.")
    var session = "transferctl"

    @Option(help: "Start after this sequence number.")
    var after: Int64 = 0

    @Option(help: "Only the events of this task.")
    var task: Int?

    @Flag(name: .shortAndLong, help: "Keep printing events as they are written.")
    var follow = false

    @Flag(help: "Print the API's JSON.")
    var json = false

    func run() async throws {
        try await connection.run { client in
            let filter = task.map { "&task=\($0)" } ?? ""
            let path = "/v1/sessions/\(session)/events?after=\(after)\(filter)"
            guard follow else {
                let reply = try await client.get(path + "&limit=1000")
                if json { return Console.line(reply.text) }
                for event in try reply.decode(SessionEventBatch.self).items { Console.line(Self.line(event).rendered(width: Int.max)) }
                return
            }
            let (stream, json) = (EventStream(client: client, path: path), json)
            try await Interruptions.stop {
                try await stream.follow { message in
                    Console.line(json ? message.data : Self.line(try message.event()).rendered(width: Int.max))
                    return true
                }
            }
        }
    }

    /// An event in one line: sequence, time, type, task and what its data says.
    static func line(_ event: SessionEvent, indent: String = "") -> StyledLine {
        var parts: [StyledLine.Part] = [
            .init(text: indent + String(event.sequence).leftPad(6) + "  ", tone: .dim),
            .init(text: event.createdAt.formatted(.iso8601) + "  ", tone: .dim),
        ]
        if let session = event.session { parts.append(.init(text: session + " ")) }
        parts.append(.init(text: event.type, tone: event.data.error == nil ? .accent : .failure))
        if let task = event.taskIdentifier { parts.append(.init(text: " task \(task)")) }
        if let progress = event.progress {
            parts.append(.init(text: " " + Units.bytes(progress.done) + (progress.total >= 0 ? "/\(Units.bytes(progress.total))" : "")))
        }
        if let error = event.data.error { parts.append(.init(text: " \(error.code): \(error.message)", tone: .failure)) }
        if let offset = event.data.fileOffset { parts.append(.init(text: " at \(Units.bytes(Int64(offset)))")) }
        return StyledLine(parts)
    }
}
