/// What a store cannot do: reach its database, find it where it was told to look, or find what the schema promises (a row a statement needs, a column
/// holding a value of its type).
package enum StoreError: Error, CustomStringConvertible {
    /// The database cannot be reached or used now; the request may be retried later.
    case unavailable(String)
    /// Where the database is was given wrongly (a URL that is not one, an unknown option).
    case misconfigured(String)
    case rowNotFound(String)
    case corruptValue(String)

    package var description: String {
        switch self {
        case .unavailable(let why): "the database is unavailable: \(why)"
        case .misconfigured(let what): what
        case .rowNotFound(let what): "no such row: \(what)"
        case .corruptValue(let what): what
        }
    }
}
