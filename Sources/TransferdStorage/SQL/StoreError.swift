/// Where the database holds what the schema rules out: a row a statement needs is gone, or a column holds a value
/// its type does not have.
package enum StoreError: Error, CustomStringConvertible {
    case rowNotFound(String)
    case corruptValue(String)

    package var description: String {
        switch self {
        case .rowNotFound(let what): "no such row: \(what)"
        case .corruptValue(let what): what
        }
    }
}
