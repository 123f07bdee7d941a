import Foundation

/// An IP address as its bytes (4 for IPv4, 16 for IPv6), parsed with `inet_pton`.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    package let bytes: [UInt8]

    package init?(_ text: String) {
        let text = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) stands for.
    package var unmapped: IPAddress {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else { return self }
        return IPAddress(bytes: Array(bytes[12...]))
    }

    /// The IPv4 addresses an IPv6 address carries, which a packet to it may reach: SIIT's translated form
    /// (`::ffff:0:a.b.c.d`), the deprecated compatible form (`::a.b.c.d`), NAT64's well-known prefix
    /// (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`) and Teredo (its server, and its client stored inverted).
    /// Empty for an IPv4 address and for the mapped form, which `unmapped` turns into its IPv4 address.
    package var embeddedIPv4: [IPAddress] {
        guard bytes.count == 16 else { return [] }
        let last = IPAddress(bytes: Array(bytes[12...]))
        if bytes[0..<8].allSatisfy({ $0 == 0 }), bytes[8] == 0xff, bytes[9] == 0xff, bytes[10] == 0, bytes[11] == 0 { return [last] }
        if bytes[0..<12].allSatisfy({ $0 == 0 }) { return [last] }
        if bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return [last] }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return [IPAddress(bytes: Array(bytes[2..<6]))] }
        if bytes[0..<4] == [0x20, 0x01, 0x00, 0x00] {
            return [IPAddress(bytes: Array(bytes[4..<8])), IPAddress(bytes: bytes[12...].map { ~$0 })]
        }
        return []
    }

    package var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        return inet_ntop(family, &copy, &buffer, socklen_t(buffer.count)).map { String(cString: $0) } ?? "?"
    }
}

/// A CIDR block (`10.0.0.0/8`, `fc00::/7`).
package struct AddressRange: Sendable, CustomStringConvertible {
    package let network: IPAddress
    package let prefixLength: Int

    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let network = IPAddress(String(parts[0])) else { return nil }
        let length = parts.count == 2 ? Int(parts[1]) : network.bytes.count * 8
        guard let length, (0...network.bytes.count * 8).contains(length) else { return nil }
        self.network = network
        prefixLength = length
    }

    package func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(address.bytes, network.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            guard a & mask == b & mask else { return false }
            remaining -= 8
        }
        return true
    }

    package var description: String { "\(network)/\(prefixLength)" }
}
