import TransferdDomain

/// The body of `PUT /v1/sessions/{identifier}`: the configuration, optionally with a webhook.
struct CreateSessionRequest: Decodable {
    /// The configuration's fields and `webhook` in one object.
    struct ConfigurationRequest: Decodable {
        var settings: SessionConfiguration
        var webhook: WebhookRequest?

        enum CodingKeys: String, CodingKey {
            case webhook
        }

        init(from decoder: any Decoder) throws {
            settings = try SessionConfiguration(from: decoder)
            webhook = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(WebhookRequest.self, forKey: .webhook)
        }
    }

    var configuration: ConfigurationRequest?
}

/// The body of `POST /v1/sessions/{identifier}/invalidate`.
struct InvalidateRequest: Decodable {
    var cancelTasks: Bool?
}
