import TransferdDomain

/// Whether this instance can serve requests that need its database: what `/readyz` answers.
package struct Readiness: Sendable {
    let store: any Store

    package init(store: any Store) {
        self.store = store
    }

    /// Whether the database answers a read now.
    package func isReady() async -> Bool {
        await store.isReachable()
    }
}
