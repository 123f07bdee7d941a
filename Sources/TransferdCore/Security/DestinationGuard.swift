import AsyncHTTPClient
import Foundation
import NIOPosix
import Synchronization

/// Lets transfers and webhooks connect only where the `DestinationPolicy` permits. It resolves a URL's host itself,
/// refuses the URL when any of its addresses is not permitted, and hands back a client pinned to the vetted
/// address (`dnsOverride`): the connection goes to exactly that address, so a second DNS answer (rebinding)
/// cannot slip a private one in, while TLS still checks the certificate against the host name.
final class DestinationGuard: Sendable {
    /// Pinned clients kept at most; the oldest is shut down to make room.
    static let pinnedLimit = 64

    let policy: DestinationPolicy
    /// The client for URLs whose host is an address already.
    let base: HTTPClient
    private let configuration: HTTPClient.Configuration
    private let pinned = Mutex<[(key: String, client: HTTPClient)]>([])

    init(policy: DestinationPolicy, configuration: HTTPClient.Configuration) {
        self.policy = policy
        self.configuration = configuration
        base = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The client to send a request for `url` with; throws `destinationNotAllowed` (or the resolver's failure).
    func client(for url: String) async throws -> HTTPClient {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw TransferError(code: .unsupportedURL, message: "The URL has no host.")
        }
        if let literal = IPAddress(host) {
            try check(literal, host: host)
            return base
        }
        let scheme = components.scheme?.lowercased() ?? "http"
        let addresses = try await Self.resolve(host, port: components.port ?? (scheme == "https" ? 443 : 80))
        guard let first = addresses.first else {
            throw TransferError(code: .cannotFindHost, message: "The host name could not be resolved.")
        }
        for address in addresses { try check(address, host: host) }
        return pinnedClient(host: host, address: first)
    }

    /// Throws `destinationNotAllowed` when the policy refuses `address`.
    func check(_ address: IPAddress, host: String) throws {
        if let reason = policy.refusal(for: address) {
            throw TransferError(
                code: .destinationNotAllowed,
                message:
                    "\(host == address.description ? "" : "\(host) resolves to ")\(reason); transferd connects only to public addresses unless the operator allows more (--allow-destination)."
            )
        }
    }

    /// Shuts every client down (service stop).
    func shutdown() async throws {
        let clients = pinned.withLock { pinned in
            defer { pinned.removeAll() }
            return pinned.map(\.client)
        }
        for client in clients { try? await client.shutdown() }
        try await base.shutdown()
    }

    private func pinnedClient(host: String, address: IPAddress) -> HTTPClient {
        let key = "\(host.lowercased())|\(address)"
        let (client, evicted) = pinned.withLock { pinned -> (HTTPClient, HTTPClient?) in
            if let found = pinned.first(where: { $0.key == key }) { return (found.client, nil) }
            var configuration = self.configuration
            configuration.dnsOverride = [host: address.description]
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            pinned.append((key, client))
            return (client, pinned.count > Self.pinnedLimit ? pinned.removeFirst().client : nil)
        }
        if let evicted {
            // Transfers still using it finish first: shutdown waits for them.
            Task { try? await evicted.shutdown() }
        }
        return client
    }

    /// The host's addresses, from the system resolver (getaddrinfo), off the event loops.
    static func resolve(_ host: String, port: Int) async throws -> [IPAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var result: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &result) == 0 else {
                throw TransferError(code: .cannotFindHost, message: "The host name could not be resolved.")
            }
            defer { freeaddrinfo(result) }
            var addresses: [IPAddress] = []
            var entry = result
            while let info = entry?.pointee {
                switch info.ai_family {
                case AF_INET:
                    info.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        var address = pointer.pointee.sin_addr
                        addresses.append(IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }))
                    }
                case AF_INET6:
                    info.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        var address = pointer.pointee.sin6_addr
                        addresses.append(IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }))
                    }
                default:
                    break
                }
                entry = info.ai_next
            }
            return addresses.reduce(into: []) { unique, address in if !unique.contains(address) { unique.append(address) } }
        }
    }
}
