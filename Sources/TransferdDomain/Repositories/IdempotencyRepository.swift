import Foundation

/// Responses of creating requests, kept for replay to a retry with the same `Idempotency-Key`.
package protocol IdempotencyRepository {
    func find(tenantID: Int64, key: String) async throws -> IdempotencyRecord?
    /// Claims the key for a request being handled (its record has no response yet).
    func reserve(tenantID: Int64, key: String, fingerprint: String, at: Date) async throws
    /// Keeps the response of the request that holds the key.
    func complete(tenantID: Int64, key: String, response: IdempotencyRecord.Response) async throws
    /// Gives up a key whose request failed, so that a retry may run it again.
    func release(tenantID: Int64, key: String) async throws
    /// Forgets keys created before `cutoff`: of one tenant's key, or all of them.
    func deleteCreated(before cutoff: Date, tenantID: Int64?, key: String?) async throws
}

/// A claimed `Idempotency-Key`: who sent it with which request, and the response once there is one.
package struct IdempotencyRecord: Sendable, Equatable {
    /// A kept response, replayed as it was.
    package struct Response: Sendable, Equatable {
        package var status: Int
        package var headers: [[String]]
        package var body: Data

        package init(status: Int, headers: [[String]], body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    package var fingerprint: String
    /// nil while the first request is still being handled.
    package var response: Response?

    package init(fingerprint: String, response: Response?) {
        self.fingerprint = fingerprint
        self.response = response
    }
}
