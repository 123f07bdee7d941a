import ArgumentParser
import Foundation
import NIOHTTP1
import TransferdClient

/// `transferctl deliveries`: a session's webhook deliveries, and replaying the failed ones.
struct DeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries",
        abstract: "List a session's webhook deliveries, or replay every failed one.",
        discussion: "--replay-failed queues every failed delivery again, in order, and prints how many."
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .shortAndLong, help: "The session.")
    var session = "transferctl"

    @Option(help: "Only deliveries in this status: pending, delivered, failed or coalesced.")
    var status: String?

    @Flag(help: "Replay every failed delivery.")
    var replayFailed = false

    @Flag(help: "Print the API's JSON.")
    var json = false

    func run() async throws {
        try await connection.run { client in
            if replayFailed {
                let reply = try await client.send(.POST, "/v1/sessions/\(session)/deliveries/retry-failed")
                struct Retried: Decodable { var retried: Int }
                return Console.line(json ? reply.text : "replaying \(try reply.decode(Retried.self).retried) failed deliveries")
            }
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
}
