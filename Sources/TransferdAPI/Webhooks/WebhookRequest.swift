import Foundation
import TransferdDomain

/// A subscriber as a client describes it, in `PUT …/webhook` or a session's `configuration.webhook`.
struct WebhookRequest: Decodable, Sendable {
    var url: String?
    var events: [String]?
    var secret: String?
    var maxDeliveriesPerSecond: Double?

    func validate(field: String) throws(DomainError) -> WebhookSettings {
        guard let url else { throw .badRequest("`\(field).url` is required.") }
        guard url.utf8.count <= 8192, let components = URLComponents(string: url), components.host?.isEmpty == false,
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            throw .invalidField("\(field).url", requirement: "must be an absolute http or https URL with a host")
        }
        do { _ = try Destination(url) } catch {
            throw .invalidField("\(field).url", requirement: "must name a valid host (\(error.message))")
        }
        var eventTypes: [EventType]?
        if let events {
            eventTypes = try events.map { name throws(DomainError) in
                guard let type = EventType(rawValue: name) else {
                    throw .invalidField("\(field).events", requirement: "contains `\(name)`, which is not an event type")
                }
                return type
            }
        }
        var secret: WebhookSecret?
        if let text = self.secret {
            guard let parsed = WebhookSecret(text) else {
                throw .invalidField("\(field).secret", requirement: "must be `whsec_` followed by the base64 of 24 to 64 bytes")
            }
            secret = parsed
        }
        if let rate = maxDeliveriesPerSecond, !(rate > 0 && rate <= 10_000) {
            throw .invalidField("\(field).maxDeliveriesPerSecond", requirement: "must be more than 0 and at most 10000")
        }
        return WebhookSettings(url: url, eventTypes: eventTypes, secret: secret, maxDeliveriesPerSecond: maxDeliveriesPerSecond)
    }
}
