import Foundation

/// A subscriber as a client describes it, in `PUT …/webhook` or a session's `configuration.webhook`.
struct WebhookRequest: Decodable, Sendable {
    var url: String?
    var events: [String]?
    var secret: String?

    /// The checked parts: URL, event filter, and the secret if one was given.
    struct Validated: Sendable {
        var url: String
        var eventTypes: [EventType]?
        var secret: WebhookSecret?
    }

    func validate(field: String) throws(Problem) -> Validated {
        guard let url else { throw .badRequest("`\(field).url` is required.") }
        guard url.utf8.count <= 8192, let components = URLComponents(string: url), components.host?.isEmpty == false,
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            throw .invalidField("\(field).url", "must be an absolute http or https URL with a host")
        }
        var eventTypes: [EventType]?
        if let events {
            eventTypes = try events.map { name throws(Problem) in
                guard let type = EventType(rawValue: name) else {
                    throw .invalidField("\(field).events", "contains `\(name)`, which is not an event type")
                }
                return type
            }
        }
        var secret: WebhookSecret?
        if let text = self.secret {
            guard let parsed = WebhookSecret(text) else {
                throw .invalidField("\(field).secret", "must be `whsec_` followed by the base64 of 24 to 64 bytes")
            }
            secret = parsed
        }
        return Validated(url: url, eventTypes: eventTypes, secret: secret)
    }
}
