import Foundation

/// A person signed in to the dashboard (`/ui/`) with an API key: their browser holds a cookie whose token's hash
/// names this record, and it acts as that key for as long as the key lives and the record has not expired.
package struct DashboardSession: Sendable, Equatable {
    /// Hex SHA-256 of the cookie's token; the token itself is never stored.
    package var tokenHash: String
    package var apiKeyID: String
    /// The token every state-changing form sends back (CSRF).
    package var csrfToken: String
    package var createdAt: Date
    package var expiresAt: Date

    package init(tokenHash: String, apiKeyID: String, csrfToken: String, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.apiKeyID = apiKeyID
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
