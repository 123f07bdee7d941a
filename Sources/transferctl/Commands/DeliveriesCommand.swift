import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl deliveries`: a session's webhook deliveries, and replaying the failed ones.
struct DeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries",
        abstract: "List a session's webhook deliveries, show one with its attempts, or send failed ones again.",
        discussion: """
            --id shows one delivery's attempts: when, the status or error, the latency, whether it was a probe, and \
            the first KiB of the reply. --replay-failed queues every failed delivery again, in order, and prints how many. \
            --recover-since 2h does so for those of events written in the last two hours (90m, 2h, 7d, or an RFC 3339 \
            time), of the session or, with --every-session, of every session of the tenant.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .shortAndLong, help: "The session.")
    var session = "transferctl"

    @Option(help: "Only deliveries in this status: pending, delivered, failed or coalesced.")
    var status: String?

    @Option(help: "Show this delivery with its attempts.")
    var id: Int?

    @Flag(help: "Replay every failed delivery.")
    var replayFailed = false

    @Option(help: "Send again the failed deliveries of events written since this long ago (90m, 2h, 7d) or this RFC 3339 time.")
    var recoverSince: String?

    @Flag(help: "With --recover-since: every session of the tenant.")
    var everySession = false

    @Flag(help: "Print the API's JSON.")
    var json = false

    func validate() throws {
        if let recoverSince, Self.moment(recoverSince, now: Date()) == nil {
            throw ValidationError("--recover-since takes a duration (90m, 2h, 7d) or an RFC 3339 time, not '\(recoverSince)'.")
        }
        if everySession, recoverSince == nil { throw ValidationError("--every-session goes with --recover-since.") }
    }

    /// The moment `text` names: that long before `now` (`90m`, `2h`, `7d`, `30s`), or an RFC 3339 time.
    static func moment(_ text: String, now: Date) -> Date? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count >= 0 {
            return now.addingTimeInterval(-count * unit)
        }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    func run() async throws {
        try await connection.run { client in
            if let recoverSince, let since = Self.moment(recoverSince, now: Date()) {
                let path = everySession ? "/v1/deliveries/recover" : "/v1/sessions/\(session)/deliveries/recover"
                struct Since: Encodable { var since: String }
                let reply = try await client.send(.POST, path, json: Since(since: since.formatted(.iso8601)))
                struct Recovered: Decodable { var recovered: Int }
                return Console.line(json ? reply.text : "recovering \(try reply.decode(Recovered.self).recovered) failed deliveries")
            }
            if replayFailed {
                let reply = try await client.send(.POST, "/v1/sessions/\(session)/deliveries/retry-failed")
                struct Retried: Decodable { var retried: Int }
                return Console.line(json ? reply.text : "replaying \(try reply.decode(Retried.self).retried) failed deliveries")
            }
            if let id { return try await show(id, client) }
            let reply = try await client.get("/v1/sessions/\(session)/deliveries?limit=1000" + (status.map { "&status=\($0)" } ?? ""))
            if json { return Console.line(reply.text) }
            var table = Table([
                .init(title: "ID", alignRight: true), .init(title: "SEQ", alignRight: true), .init(title: "EVENT"),
                .init(title: "TASK", alignRight: true),
                .init(title: "STATUS"), .init(title: "ATTEMPTS", alignRight: true), .init(title: "LAST ERROR", flexible: true),
            ])
            for delivery in try reply.decode(APIDeliveryPage.self).items {
                let tone: StyledLine.Tone = delivery.status == .failed ? .failure : delivery.status == .delivered ? .success : .warning
                table.rows.append([
                    Table.Cell(String(delivery.id)), Table.Cell(String(delivery.sequence)), Table.Cell(delivery.eventType.rawValue),
                    Table.Cell(delivery.taskIdentifier.map(String.init) ?? "-"), Table.Cell(delivery.status.rawValue, tone),
                    Table.Cell(String(delivery.attemptCount)), Table.Cell(delivery.lastError ?? ""),
                ])
            }
            table.print()
        }
    }

    /// One delivery, then a table of its attempts.
    private func show(_ id: Int, _ client: APIConnection) async throws {
        let reply = try await client.get("/v1/sessions/\(session)/deliveries/\(id)")
        if json { return Console.line(reply.text) }
        let delivery = try reply.decode(APIDelivery.self)
        Console.line(
            "delivery \(delivery.id): \(delivery.eventType.rawValue), sequence \(delivery.sequence), \(delivery.status.rawValue)"
                + (delivery.lastError.map { ", last error: \($0)" } ?? "")
        )
        var table = Table([
            .init(title: "ATTEMPTED"), .init(title: "ANSWER"), .init(title: "LATENCY", alignRight: true), .init(title: "PROBE"),
            .init(title: "REPLY", flexible: true),
        ])
        for attempt in delivery.attempts {
            let answered = attempt.statusCode.map { (200..<300).contains($0) } ?? false
            table.rows.append([
                Table.Cell(attempt.attemptedAt.formatted(.iso8601)),
                Table.Cell(attempt.statusCode.map { "HTTP \($0)" } ?? attempt.error ?? "no answer", answered ? .success : .failure),
                Table.Cell("\(attempt.latencyMs) ms"), Table.Cell(attempt.probe ? "yes" : ""),
                Table.Cell(Console.printable(attempt.reply ?? "")),
            ])
        }
        table.print()
    }
}
