/// A value stored under a row id that the store assigns when it inserts the value.
package protocol Persisted {
    var id: Int64? { get set }
}

extension Persisted {
    /// The row id of a value read from the store (always set once inserted).
    package var rowID: Int64 {
        guard let id else { preconditionFailure("a \(Self.self) that has not been inserted has no row id") }
        return id
    }
}
