import Foundation
import TransferdDomain

extension WebhookEndpointRepository {
    /// Feeds `input` to the endpoint's health machine, in the caller's transaction (which takes its row), and saves
    /// what it becomes when the input changed something. Returns the endpoint as it is now, and the action; nil when
    /// it has no row (it is healthy, and never failed).
    func handle(
        _ input: EndpointHealthMachine.Input,
        key: String,
        policy: DeliveryPolicy,
        at now: Date
    ) async throws -> (endpoint: WebhookEndpoint, action: EndpointHealthMachine.Action)? {
        guard var endpoint = try await find(key: key) else { return nil }
        var machine = EndpointHealthMachine(endpoint.health, policy: policy)
        let action = machine.handle(input, at: now)
        guard action != .none else { return (endpoint, action) }
        endpoint.health = machine.health
        endpoint.updatedAt = now
        try await save(endpoint)
        return (endpoint, action)
    }
}
