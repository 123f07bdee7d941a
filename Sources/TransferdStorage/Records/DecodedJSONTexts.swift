import Synchronization

/// The values of a JSON column decoded once per distinct text, for columns read far more often than they change (a
/// session's configuration on every request; a task's request, response, attempts and outcome on every read of it).
/// Bounded: forgotten all at once when it holds `capacity` texts.
final class DecodedJSONTexts<Value: Decodable & Sendable>: Sendable {
    private let capacity: Int
    private let decoded = Mutex<[String: Value]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    func value(_ text: String) throws -> Value {
        if let known = decoded.withLock({ $0[text] }) { return known }
        let value = try RowCoding.decode(Value.self, json: text)
        decoded.withLock { texts in
            if texts.count >= capacity { texts.removeAll(keepingCapacity: true) }
            texts[text] = value
        }
        return value
    }
}
