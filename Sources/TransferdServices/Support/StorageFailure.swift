import TransferdStorage

/// What an error says of the service's own storage, for an answer the client may retry rather than a 500: the
/// database cannot be reached, or its disk is full, or the data directory's disk is full. Nil for any other error.
package enum StorageFailure: Equatable, Sendable {
    /// The database cannot be reached or used now, and why.
    case databaseUnavailable(String)
    case databaseFull
    case filesFull

    package init?(_ error: any Error) {
        if case StoreError.unavailable(let why) = error {
            self = .databaseUnavailable(why)
            return
        }
        switch StorageExhaustion(error) {
        case .database: self = .databaseFull
        case .files: self = .filesFull
        case nil: return nil
        }
    }
}
