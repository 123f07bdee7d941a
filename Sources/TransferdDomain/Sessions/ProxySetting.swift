import Foundation

/// A session's proxy (connectionProxyDictionary): `http://[user:password@]host:port`, an HTTP proxy that every
/// transfer asks with `CONNECT` for a tunnel to its origin (TLS to an `https` origin runs end to end through it);
/// `https://…`, the same reached over TLS; or `socks5://host:port`. Credentials become
/// `Proxy-Authorization: Basic`.
///
/// It is coded as its URL; the API shows it with its password masked (`redacted`).
package struct ProxySetting: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
        case http, https, socks5

        /// The port of a proxy URL that names none.
        var defaultPort: Int {
            switch self {
            case .http: 8080
            case .https: 443
            case .socks5: 1080
            }
        }
    }

    package var kind: Kind
    package var host: String
    package var port: Int
    package var username: String?
    package var password: String?

    /// Reads a proxy URL; the refusal names `field` and says what is accepted.
    package init(url text: String, field: String) throws(DomainError) {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw .invalidField(field, requirement: "must be a proxy URL such as http://proxy.example:3128")
        }
        guard let scheme = components.scheme?.lowercased(), let kind = Kind(rawValue: scheme) else {
            throw .invalidField(
                field,
                requirement: "must use http:// or https:// (a CONNECT proxy) or socks5://, not `\(components.scheme ?? "")`"
            )
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil else {
            throw .invalidField(field, requirement: "must be a proxy's address only, without a path or query")
        }
        if kind == .socks5, components.user != nil {
            throw .invalidField(field, requirement: "may carry credentials only for an http:// or https:// proxy")
        }
        self.kind = kind
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? kind.defaultPort
        username = components.user.map { $0.removingPercentEncoding ?? $0 }
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
    }

    /// The proxy as a URL, its credentials percent-encoded.
    package var url: String {
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed.subtracting([":", "@"])) ?? text
        }
        let credentials = username.map { encode($0) + (password.map { ":" + encode($0) } ?? "") + "@" } ?? ""
        return "\(kind.rawValue)://\(credentials)\(authority)"
    }

    /// The proxy's address as a URL without credentials, for the destination policy to vet.
    package var location: String {
        "\(kind.rawValue)://\(authority)"
    }

    private var authority: String {
        "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The proxy as shown to clients: its password is never echoed.
    package var redacted: ProxySetting {
        var shown = self
        shown.password = password.map { _ in "***" }
        return shown
    }

    package init(from decoder: any Decoder) throws {
        try self.init(url: try decoder.singleValueContainer().decode(String.self), field: "configuration.proxy")
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(url)
    }
}
