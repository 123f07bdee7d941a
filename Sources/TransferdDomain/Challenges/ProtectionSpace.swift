import Foundation

/// URLProtectionSpace: where a credential applies, read from a 401's `WWW-Authenticate`: the scheme the server asks
/// for, its realm, and the host and port (of the origin, or of a proxy).
package struct ProtectionSpace: Codable, Sendable, Equatable {
    /// The authentication scheme, lowercased: `basic`, `bearer`, `digest`, ….
    package var authenticationMethod: String
    package var realm: String?
    package var host: String
    package var port: Int
    package var isProxy: Bool

    package init(authenticationMethod: String, realm: String?, host: String, port: Int, isProxy: Bool) {
        self.authenticationMethod = authenticationMethod
        self.realm = realm
        self.host = host
        self.port = port
        self.isProxy = isProxy
    }

    /// The space a 401 from `url` describes in `header` (its first challenge); nil without one.
    package init?(challenge header: String, url: String) {
        guard let destination = try? Destination(url) else { return nil }
        let scheme = header.prefix { !$0.isWhitespace && $0 != "," }.lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        let realm = header.range(of: #"realm="([^"]*)""#, options: [.regularExpression, .caseInsensitive]).map {
            String(header[$0].dropFirst(7).dropLast())
        }
        self.init(authenticationMethod: scheme, realm: realm, host: destination.host, port: destination.port, isProxy: false)
    }

    /// Whether a request to `url` goes to this space's host and port (its host spelled as `Destination` spells it).
    package func covers(_ url: String) -> Bool {
        guard let destination = try? Destination(url) else { return false }
        return destination.host == host && destination.port == port
    }
}
