import Foundation

/// What disabling an endpoint owes, until told: `webhook.disabled` in the log of every session pointing at it
/// (`logged`), and a POST to the operational webhook (due at `opsNextAttemptAt`; nil when nothing more is to be sent).
package struct EndpointNotice: Sendable, Equatable, Persisted {
    package var id: Int64?
    package var tenantId: Int64
    package var endpointKey: String
    package var reason: String
    package var createdAt: Date
    package var logged: Bool
    package var opsAttempts: Int
    package var opsNextAttemptAt: Date?
    package var opsLastError: String?

    /// The notice of an endpoint disabled at `now` for `reason`: nothing told yet, the operational webhook due at once.
    package init(tenantId: Int64, endpointKey: String, reason: String, at now: Date) {
        self.init(
            tenantId: tenantId,
            endpointKey: endpointKey,
            reason: reason,
            createdAt: now,
            logged: false,
            opsAttempts: 0,
            opsNextAttemptAt: now
        )
    }

    package init(
        id: Int64? = nil,
        tenantId: Int64,
        endpointKey: String,
        reason: String,
        createdAt: Date,
        logged: Bool,
        opsAttempts: Int,
        opsNextAttemptAt: Date?,
        opsLastError: String? = nil
    ) {
        self.id = id
        self.tenantId = tenantId
        self.endpointKey = endpointKey
        self.reason = reason
        self.createdAt = createdAt
        self.logged = logged
        self.opsAttempts = opsAttempts
        self.opsNextAttemptAt = opsNextAttemptAt
        self.opsLastError = opsLastError
    }
}
