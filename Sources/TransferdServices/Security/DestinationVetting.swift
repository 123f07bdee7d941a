import TransferdDomain
import TransferdEngine

/// The destination policy (``DestinationGuard``) as it judges the URLs clients give: a task's, a fetch's, a
/// webhook's, a store's endpoint, a proxy.
package struct DestinationVetting: Sendable {
    let policy: DestinationGuard

    package init(_ policy: DestinationGuard) {
        self.policy = policy
    }

    /// Refuses `url` (the request's `field`) when it leads to an address the service does not connect to, or names
    /// a host that does not resolve: the two get the same answer (``DestinationGuard``). A resolver that does not
    /// answer now lets it pass: the transfer fails then, or succeeds later.
    package func vet(_ url: String, field: String) async throws {
        do {
            _ = try await policy.route(for: url)
        } catch let error as TransferError where error.code == .destinationNotAllowed {
            throw DomainError.destinationNotAllowed("`\(field)`: \(error.message)")
        } catch {
            return
        }
    }
}
