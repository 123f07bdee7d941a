import Synchronization
import TransferdDomain

/// The values of a column decoded (and opened, when sealed) once per distinct text, for columns read far more often
/// than they change (a session's configuration on every request; a task's request, response, attempts and outcome on
/// every read of it; a webhook's secrets on every event). Bounded: forgotten all at once when it holds `capacity`
/// texts.
final class DecodedTexts<Value: Sendable>: Sendable {
    private let capacity: Int
    private let decoded = Mutex<[String: Value]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value of `text`, decoded by `decode` unless it was before.
    func value(_ text: String, _ decode: (String) throws -> Value) throws -> Value {
        if let known = decoded.withLock({ $0[text] }) { return known }
        let value = try decode(text)
        decoded.withLock { texts in
            if texts.count >= capacity { texts.removeAll(keepingCapacity: true) }
            texts[text] = value
        }
        return value
    }
}

extension DecodedTexts where Value: Decodable {
    /// The value of a JSON column.
    func value(_ text: String) throws -> Value {
        try value(text) { try RowCoding.decode(Value.self, json: $0) }
    }

    /// The value of a JSON column sealed by `vault`.
    func value(sealed text: String, _ vault: CredentialVault) throws -> Value {
        try value(text) { try RowCoding.decode(Value.self, json: try vault.open(text: $0)) }
    }
}
