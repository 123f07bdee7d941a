import Foundation

/// A URL as transferd connects to it, its host spelled the one way every step uses: the way the HTTP client parses
/// it (Foundation's `URL`: IDNA to punycode, percent-escapes decoded), without IPv6 brackets, in lower case, without
/// a trailing dot, and a numeric IPv4 form (`0x7f.1`, `2130706433`) as its dotted quad.
///
/// The host is resolved, vetted, pinned and requested under this one spelling, so the client never meets a name it
/// was not told the address of, and never resolves one itself after the check (DNS rebinding).
package struct Destination: Sendable, Hashable {
    /// The URL to request: the given one with its host canonical.
    package let url: String
    /// The canonical host: a lower-case name, or an address without brackets.
    package let host: String
    /// `http` or `https`.
    package let scheme: String
    /// The URL's port, or its scheme's.
    package let port: Int
    /// The host's address when the URL names one rather than a name.
    package let address: IPAddress?

    /// Parses `text`; throws `unsupportedURL` when it has no usable host or is not http(s).
    package init(_ text: String) throws(TransferError) {
        guard let parsed = URL(string: text), var components = URLComponents(url: parsed, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let parsedHost = parsed.host(percentEncoded: false), !parsedHost.isEmpty
        else {
            throw TransferError(code: .unsupportedURL, message: "The URL has no host, or its scheme is not http or https.")
        }
        let host = try Self.canonicalHost(parsedHost)
        let address = IPAddress(host)
        components.scheme = scheme
        components.percentEncodedHost = address?.bytes.count == 16 ? "[\(host)]" : host
        components.port = components.port  // an empty port (`host:/`) is no port
        // The canonical URL must parse back to the same host, or the client would look up a name the guard never vetted.
        guard let url = components.string, URL(string: url)?.host(percentEncoded: false).map(Self.unbracketed) == host else {
            throw TransferError(code: .unsupportedURL, message: "The URL's host cannot be spelled unambiguously.")
        }
        self.url = url
        self.host = host
        self.address = address
        self.scheme = scheme
        port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else {
            throw TransferError(code: .unsupportedURL, message: "The URL's port \(port) is not from 1 to 65535.")
        }
    }

    /// Scheme, canonical host and port: what two URLs share when they are the same origin.
    package var origin: String {
        "\(scheme)://\(address?.bytes.count == 16 ? "[\(host)]" : host):\(port)"
    }

    /// Whether `other` parses to the same origin as this URL.
    package func isSameOrigin(as other: String) -> Bool {
        (try? Destination(other))?.origin == origin
    }

    /// `host` lower-cased, without brackets or a trailing dot, a numeric IPv4 form as its dotted quad.
    private static func canonicalHost(_ host: String) throws(TransferError) -> String {
        var host = unbracketed(host).lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if let address = IPAddress(host) { return address.description }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        // Letters, digits, '-' and '_' in labels of 1 to 63: anything else (a colon of a broken IPv6 literal, a
        // space, a percent sign) is no host name, and could not be set as one.
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard host.utf8.count <= 253, labels.allSatisfy({ (1...63).contains($0.utf8.count) && $0.utf8.allSatisfy(allowed.contains) })
        else {
            throw TransferError(code: .unsupportedURL, message: "The URL's host `\(host)` is not a valid host name.")
        }
        // inet_aton's forms (what getaddrinfo would take): hexadecimal, octal, fewer than four parts.
        var numeric = in_addr()
        if host.first?.isNumber == true, inet_aton(host, &numeric) != 0 {
            return IPAddress(bytes: withUnsafeBytes(of: &numeric) { Array($0) }).description
        }
        return host
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
