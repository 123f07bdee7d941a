import TransferdDomain
import TransferdEngine

extension DestinationGuard {
    /// Refuses a URL a client gives (a task's, a webhook's) when it leads to an address the service does not
    /// connect to. A host that does not resolve now passes: the transfer fails then, or succeeds later.
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
