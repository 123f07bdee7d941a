/// Where transfers and webhooks may connect: addresses on the public internet, plus what the operator opens
/// (`--allow-destination CIDR`, `--allow-private-destinations`).
package struct DestinationPolicy: Sendable {
    /// Ranges that are not the public internet, with what they are.
    package static let blocked: [(AddressRange, String)] = [
        ("0.0.0.0/8", "an unspecified address"),
        ("10.0.0.0/8", "a private address (RFC 1918)"),
        ("100.64.0.0/10", "a shared address (CGNAT, RFC 6598)"),
        ("127.0.0.0/8", "a loopback address"),
        ("169.254.0.0/16", "a link-local address (cloud metadata lives here)"),
        ("172.16.0.0/12", "a private address (RFC 1918)"),
        ("192.0.0.0/24", "an IETF protocol address"),
        ("192.0.2.0/24", "a documentation address"),
        ("192.88.99.0/24", "a deprecated 6to4 relay address"),
        ("192.168.0.0/16", "a private address (RFC 1918)"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"),
        ("224.0.0.0/4", "a multicast address"),
        ("240.0.0.0/4", "a reserved address"),
        ("::/128", "an unspecified address"),
        ("::1/128", "a loopback address"),
        ("::/96", "a deprecated IPv4-compatible address"),
        ("64:ff9b:1::/48", "a local-use NAT64 address"),
        ("100::/64", "a discard-only address"),
        ("2001:2::/48", "a benchmarking address"),
        ("2001:10::/28", "a deprecated ORCHID address"),
        ("2001:db8::/32", "a documentation address"),
        ("3fff::/20", "a documentation address"),
        ("fc00::/7", "a unique local address (IPv6 ULA)"),
        ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a deprecated site-local address"),
        ("ff00::/8", "a multicast address"),
    ].map { (AddressRange($0.0)!, $0.1) }

    /// Ranges opened despite the list above.
    package var allowed: [String]
    /// Whether every private range is open (a trusted network).
    package var allowPrivate: Bool

    package init(allowed: [String] = [], allowPrivate: Bool = false) {
        self.allowed = allowed
        self.allowPrivate = allowPrivate
    }

    /// Why `address` may not be connected to, or nil when it may. IPv4-mapped IPv6 addresses count as their IPv4;
    /// an IPv6 address that carries an IPv4 one (NAT64, 6to4, Teredo, …) is judged on that one too.
    package func refusal(for address: IPAddress) -> String? {
        if allowPrivate { return nil }
        let address = address.unmapped
        let opened = allowed.compactMap(AddressRange.init)
        func reason(_ candidate: IPAddress) -> String? {
            if opened.contains(where: { $0.contains(candidate) }) { return nil }
            return Self.blocked.first { $0.0.contains(candidate) }?.1
        }
        if opened.contains(where: { $0.contains(address) }) { return nil }
        if let own = reason(address) { return "\(address) is \(own)" }
        for embedded in address.embeddedIPv4 {
            if let carried = reason(embedded) { return "\(address) carries \(embedded), \(carried)" }
        }
        return nil
    }

    /// The `--allow-destination` values that are not CIDR blocks.
    package var invalidAllowances: [String] {
        allowed.filter { AddressRange($0) == nil }
    }
}
