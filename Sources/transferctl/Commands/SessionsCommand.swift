import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl sessions`: list, show, create, invalidate and delete sessions.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List, show, create, invalidate and delete sessions.",
        subcommands: [List.self, Show.self, Create.self, Invalidate.self, Remove.self],
        defaultSubcommand: List.self
    )

    /// `transferctl sessions list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the sessions: state, tasks by state, stored bytes, webhook.")

        @OptionGroup var connection: ConnectionOptions

        @Flag(help: "Print the API's JSON page.")
        var json = false

        func run() async throws {
            try await connection.run { client in
                let reply = try await client.get("/v1/sessions?limit=1000")
                if json { return Console.line(reply.text) }
                var table = Table([
                    .init(title: "SESSION", flexible: true), .init(title: "STATE"), .init(title: "RUNNING", alignRight: true),
                    .init(title: "SUSPENDED", alignRight: true), .init(title: "COMPLETED", alignRight: true),
                    .init(title: "STORED", alignRight: true), .init(title: "WEBHOOK"), .init(title: "BACKLOG", alignRight: true),
                ])
                for session in try reply.decode(APISessionPage.self).items {
                    let counts = session.taskCounts
                    table.rows.append([
                        Table.Cell(session.identifier), Table.Cell(session.state.rawValue, session.state == .active ? .success : .warning),
                        Table.Cell(String(counts.running + counts.canceling)),
                        Table.Cell(String(counts.suspended)), Table.Cell(String(counts.completed)),
                        Table.Cell(Units.bytes(Int64(session.storedBytes))), Table.Cell(session.webhookState?.rawValue ?? "-"),
                        Table.Cell(String(session.pendingDeliveries)),
                    ])
                }
                table.print()
            }
        }
    }

    /// `transferctl sessions show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a session.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The session's identifier.")
        var identifier: String

        @Flag(help: "Print the API's JSON.")
        var json = false

        func run() async throws {
            try await connection.run { client in
                let reply = try await client.get("/v1/sessions/\(identifier)")
                if json { return Console.line(reply.text) }
                let session = try reply.decode(APISession.self)
                let counts = APITaskState.allCases.map { "\(session.taskCounts[$0]) \($0.rawValue)" }.joined(separator: ", ")
                for (label, value) in [
                    ("session", session.identifier), ("state", session.state.rawValue), ("tasks", counts),
                    ("stored", Units.bytes(Int64(session.storedBytes))),
                    ("events", "\(session.lastEventSequence), acknowledged up to \(session.lastAcknowledgedSequence)"),
                    ("webhook", session.webhookState.map { "\($0), \(session.pendingDeliveries) pending" } ?? "none"),
                    ("created", session.createdAt.formatted(.iso8601)),
                ] {
                    Console.line(
                        StyledLine([.init(text: label.padding(toLength: 10, withPad: " ", startingAt: 0), tone: .bold), .init(text: value)])
                            .rendered(width: Int.max)
                    )
                }
            }
        }
    }

    /// `transferctl sessions create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a session with a configuration (an existing live session is returned unchanged)."
        )

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The session's identifier: 1-200 of A-Z a-z 0-9 . _ -")
        var identifier: String

        @Option(help: "The webhook URL that receives the session's events.")
        var webhook: String?

        @Option(
            help: "The event types the webhook receives, comma-separated (task.completed,session.events_finished); every type if absent."
        )
        var events: String?

        @Option(help: "Transfers at once per host (maximumConnectionsPerHost).")
        var maxConnectionsPerHost: Int?

        @Option(help: "Seconds without a byte before an attempt fails (timeoutIntervalForRequest).")
        var requestTimeout: Double?

        @Option(help: "Seconds a task may live (timeoutIntervalForResource).")
        var resourceTimeout: Double?

        @Option(help: "Retries of a transiently failed transfer.")
        var maxRetries: Int?

        @Option(help: "Seconds a finished download's content is kept.")
        var retention: Double?

        @Option(name: .customLong("header"), help: "A header sent with every request, 'Name: value' (repeatable).")
        var headers: [String] = []

        @Flag(help: "Print the API's JSON.")
        var json = false

        /// The body of `PUT /v1/sessions/{identifier}`.
        struct Body: Encodable {
            struct Configuration: Encodable {
                struct Webhook: Encodable {
                    var url: String
                    var events: [String]?
                }
                var webhook: Webhook?
                var maximumConnectionsPerHost: Int?
                var timeoutIntervalForRequest: Double?
                var timeoutIntervalForResource: Double?
                var maximumRetries: Int?
                var retentionPeriod: Double?
                var httpAdditionalHeaders: [String: String]?
            }
            var configuration: Configuration
        }

        func validate() throws {
            try HeaderArguments.validate(headers)
            if events != nil, webhook == nil { throw ValidationError("--events filters a webhook: give --webhook too.") }
        }

        func run() async throws {
            let body = Body(
                configuration: .init(
                    webhook: webhook.map {
                        .init(url: $0, events: events?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    },
                    maximumConnectionsPerHost: maxConnectionsPerHost,
                    timeoutIntervalForRequest: requestTimeout,
                    timeoutIntervalForResource: resourceTimeout,
                    maximumRetries: maxRetries,
                    retentionPeriod: retention,
                    httpAdditionalHeaders: HeaderArguments.fields(headers)
                )
            )
            try await connection.run { client in
                let reply = try await client.send(.PUT, "/v1/sessions/\(identifier)", json: body)
                Console.line(json ? reply.text : "\(identifier): \(reply.status == 201 ? "created" : "exists already (unchanged)")")
            }
        }
    }

    /// `transferctl sessions invalidate`.
    struct Invalidate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invalidate a session: it takes no new task; its tasks finish (or with --cancel-tasks are cancelled)."
        )

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The session's identifier.")
        var identifier: String

        @Flag(help: "Cancel the unfinished tasks (invalidateAndCancel) instead of letting them finish.")
        var cancelTasks = false

        @Flag(help: "Print the API's JSON.")
        var json = false

        func run() async throws {
            try await connection.run { client in
                let reply = try await client.send(.POST, "/v1/sessions/\(identifier)/invalidate", json: ["cancelTasks": cancelTasks])
                Console.line(json ? reply.text : "\(identifier): \(try reply.decode(APISession.self).state)")
            }
        }
    }

    /// `transferctl sessions rm`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Delete a session and everything it holds: its tasks with their content, events, deliveries and fetches."
        )

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The session's identifier.")
        var identifier: String

        @Flag(name: .shortAndLong, help: "Do not ask for confirmation (needed when standard input is not a terminal).")
        var yes = false

        func run() async throws {
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    Console.error("deleting \(identifier) removes everything it holds: confirm with --yes")
                    throw ExitCode(CommandFailure.configuration("").exitStatus)
                }
                Console.write("Delete session \(identifier), its tasks with their content, events and deliveries? [y/N] ")
                guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                    Console.line("\(identifier): kept")
                    return
                }
            }
            try await connection.run { client in
                _ = try await client.send(.DELETE, "/v1/sessions/\(identifier)")
                Console.line("\(identifier): deleted")
            }
        }
    }
}
