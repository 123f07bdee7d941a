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

/// The body of `PATCH /v1/sessions/{identifier}`: what may change on a live session; any other field is refused by
/// name rather than ignored.
struct UpdateSessionRequest: Decodable {
    var change: SessionChange

    enum CodingKeys: String, CodingKey, CaseIterable {
        case sessionSendsLaunchEvents, discretionary
    }

    init(from decoder: any Decoder) throws {
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        let names = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue).sorted().first(where: {
            !names.contains($0)
        }) {
            throw DomainError.invalidField(
                unknown,
                requirement: "cannot change on a live session; only \(names.sorted().map { "`\($0)`" }.joined(separator: " and ")) can"
            )
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        change = SessionChange(
            sessionSendsLaunchEvents: try container.decodeIfPresent(Bool.self, forKey: .sessionSendsLaunchEvents),
            discretionary: try container.decodeIfPresent(Bool.self, forKey: .discretionary)
        )
    }
}

/// The body of `POST /v1/sessions/{identifier}/invalidate`.
struct InvalidateRequest: Decodable {
    var cancelTasks: Bool?
}
