import TransferdDomain
import TransferdEngine

extension DestinationGuard {
    /// Refuses a URL a client gives (a task's, a fetch's, a webhook's, a store's endpoint, a proxy) when it leads to
    /// an address the service does not connect to, or names a host that does not resolve: the two get the same
    /// answer (``DestinationGuard``). A resolver that does not answer now lets it pass: the transfer fails then, or
    /// succeeds later.
    func vet(_ url: String, field: String) async throws {
        do {
            _ = try await route(for: url)
        } catch let error as TransferError where error.code == .destinationNotAllowed {
            throw DomainError.destinationNotAllowed("`\(field)`: \(error.message)")
        } catch {
            return
        }
    }
}
