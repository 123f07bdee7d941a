/// Why the domain refused a request. Every case carries the sentence a client reads; the API renders each one as
/// an RFC 9457 problem with its status (in one place, `Problem(_: DomainError)`).
package enum DomainError: Error, Equatable, Sendable {
    /// A field the client gave is present but not acceptable: "`field` requirement."
    case invalidField(String, requirement: String)
    /// The request is incomplete or malformed as a whole.
    case badRequest(String)
    case notFound(String)
    /// The request is well formed but the resource's current state forbids it.
    case conflict(String)
    /// Creating more would pass a limit of the session or the service.
    case limitExceeded(String)
    /// The request would take the tenant past one of its quotas.
    case quotaExceeded(QuotaBreach)
    /// A body or a file is larger than the service accepts.
    case tooLarge(String)
    /// Uploaded bytes do not have the digest the client announced with them.
    case checksumMismatch(String)
    /// A URL leads to an address the service does not connect to.
    case destinationNotAllowed(String)
    /// The data directory is down to its free-space floor; no new work is taken.
    case insufficientStorage(String)
    /// The content store cannot be reached for the moment; nothing was changed.
    case objectStorageUnavailable(String)
    /// One item of a batch cannot be carried out, so none is (the detail names the item).
    case unprocessable(String)
    /// Events a reader asked for are gone with history past keeping.
    case historyTrimmed(TrimmedHistory)

    /// What the client reads about the refusal.
    package var detail: String {
        switch self {
        case .invalidField(let field, requirement: let requirement): "`\(field)` \(requirement)."
        case .badRequest(let detail), .notFound(let detail), .conflict(let detail), .limitExceeded(let detail), .tooLarge(let detail),
            .checksumMismatch(let detail), .destinationNotAllowed(let detail), .insufficientStorage(let detail), .unprocessable(let detail),
            .objectStorageUnavailable(let detail):
            detail
        case .quotaExceeded(let breach): breach.detail
        case .historyTrimmed(let trimmed): trimmed.detail
        }
    }

    /// The bucket that holds some content cannot be reached for a moment; the request may be sent again shortly.
    package static let objectStorageUnreachable = DomainError.objectStorageUnavailable(
        "The object storage that holds this content cannot be reached for the moment. Send the request again shortly."
    )

    /// Runs `check` for item `index` of the batch in `field`, whose refusal then names the item (``item(_:of:)``);
    /// without a batch, as it is.
    package static func naming<T>(item index: Int, of field: String?, _ check: () async throws -> T) async throws -> T {
        do {
            return try await check()
        } catch let refusal as DomainError where field != nil {
            throw refusal.item(index, of: field ?? "")
        }
    }

    /// This refusal as the refusal of item `index` of the batch in `field`: a 422 whose detail names the item.
    package func item(_ index: Int, of field: String) -> DomainError {
        switch self {
        case .invalidField(let name, let requirement): .unprocessable("`\(field)[\(index)].\(name)` \(requirement).")
        default: .unprocessable("`\(field)[\(index)]`: \(detail)")
        }
    }
}
