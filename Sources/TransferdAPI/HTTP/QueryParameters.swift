import Hummingbird
import TransferdDomain

extension Request {
    /// An optional integer query parameter within `range`; anything else is a 400 naming the parameter.
    package func integerQuery(_ name: String, in range: ClosedRange<Int>) throws(Problem) -> Int? {
        guard let text = uri.queryParameters.get(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidField(name, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The page size of a list request: `limit`, 1 to 1000, default 100.
    package func pageLimit() throws(Problem) -> Int {
        try integerQuery("limit", in: 1...1000) ?? 100
    }
}

extension Parameters {
    /// A task identifier from the path: a positive integer, else 400.
    package func taskIdentifier() throws(Problem) -> Int64 {
        try positiveInteger("taskIdentifier")
    }

    /// A delivery's id from the path: a positive integer, else 400.
    package func deliveryID() throws(Problem) -> Int64 {
        try positiveInteger("deliveryID")
    }

    private func positiveInteger(_ name: String) throws(Problem) -> Int64 {
        guard let text = get(name), let value = Int64(text), value > 0 else {
            throw .invalidField(name, "must be a positive integer")
        }
        return value
    }

    /// The session identifier from the path (validated where the session is looked up).
    package func sessionIdentifier() -> String {
        get("identifier") ?? ""
    }
}
