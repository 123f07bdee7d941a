import Foundation

/// Outgoing credentials a client gave (a header's value, a password in a URL) are stored and used, never shown:
/// responses, events and webhooks carry them redacted.
package enum Redaction {
    package static let mask = "<redacted>"
    /// Headers whose values are credentials.
    package static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "x-api-key", "x-auth-token"]

    package static func url(_ url: String) -> String {
        guard mayCarryUserInfo(url), var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = mask
        return components.string ?? url
    }

    /// `url` without its password (the user stays): what a token that travels, such as resume data, may carry.
    package static func withoutPassword(_ url: String) -> String {
        guard mayCarryUserInfo(url), var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = nil
        return components.string ?? url
    }

    /// False only when `url` has an authority without an `@`, so no user or password, which a scan tells without
    /// parsing the URL (a task's representation redacts its URLs every time it is shown).
    private static func mayCarryUserInfo(_ url: String) -> Bool {
        let bytes = url.utf8
        guard let schemeEnd = bytes.firstRange(of: "://".utf8) else { return true }
        let authority = bytes[schemeEnd.upperBound...].prefix {
            $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
        }
        return authority.contains(UInt8(ascii: "@"))
    }

    package static func headers(_ headers: [String: String]) -> [String: String] {
        headers.reduce(into: [:]) { shown, header in
            shown[header.key] = sensitiveHeaders.contains(header.key.lowercased()) ? mask : header.value
        }
    }
}
