import Foundation
import TransferdDomain

/// How signals travel between instances as PostgreSQL notifications: on one channel per schema, each payload the
/// sending store's token then signal words (`w`, `e12`, …) separated by spaces, split to fit PostgreSQL's 8000-byte
/// limit. A store skips the payloads it sent itself: it delivered those when it committed.
struct PostgresNotifications: Sendable {
    let channel: String
    private let token = UUID().uuidString

    init(schema: String?) {
        channel = "transferd" + (schema.map { "_" + $0 } ?? "")
    }

    /// The signals that send every loop of an instance back to the store to look for what it may have missed.
    static let lookAgain: [Signal] = [.work, .outbox, .deadlines, .fetches]

    private static let maximumPayload = 7900

    func payloads(_ signals: Set<Signal>) -> [String] {
        var payloads: [String] = []
        var payload = token
        for word in signals.map(\.word) {
            if payload.utf8.count + 1 + word.utf8.count > Self.maximumPayload {
                payloads.append(payload)
                payload = token
            }
            payload += " " + word
        }
        if payload != token { payloads.append(payload) }
        return payloads
    }

    /// The signals of another store's payload; none of this store's own.
    func signals(in payload: String) -> [Signal] {
        let words = payload.split(separator: " ")
        guard let sender = words.first, sender != token else { return [] }
        return words.dropFirst().compactMap(Signal.init(word:))
    }
}
