import AsyncHTTPClient
import Foundation
import NIOPosix
import Synchronization
import TransferdDomain

/// Lets transfers and webhooks connect only where the `DestinationPolicy` permits. It resolves a URL's host itself,
/// refuses the URL when any of its addresses is not permitted, and hands back a client pinned to the vetted
/// address (`dnsOverride`): the connection goes to exactly that address, so a second DNS answer (rebinding)
/// cannot slip a private one in, while TLS still checks the certificate against the host name.
package final class DestinationGuard: Sendable {
    /// Pinned clients kept at most; the oldest is shut down to make room.
    package static let pinnedLimit = 64

    package let policy: DestinationPolicy
    /// The client for URLs whose host is an address already.
    package let base: HTTPClient
    private let configuration: HTTPClient.Configuration
    private let pinned = Mutex<[(key: String, client: HTTPClient)]>([])
    /// Evicted pinned clients, for the `HTTPClientService` to shut down once the transfers using them are done.
    package let retired: AsyncStream<HTTPClient>
    private let retiring: AsyncStream<HTTPClient>.Continuation

    package init(policy: DestinationPolicy, configuration: HTTPClient.Configuration) {
        self.policy = policy
        self.configuration = configuration
        base = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        (retired, retiring) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// No more clients are retired through `retired`: the evicted ones wait in the pinned list for `shutdown()`.
    package func stopRetiring() {
        retiring.finish()
    }

    /// The client to send a request for `url` with; throws `destinationNotAllowed` (or the resolver's failure).
    package func client(for url: String) async throws -> HTTPClient {
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
    package func check(_ address: IPAddress, host: String) throws {
        if let reason = policy.refusal(for: address) {
            throw TransferError(
                code: .destinationNotAllowed,
                message:
                    "\(host == address.description ? "" : "\(host) resolves to ")\(reason); transferd connects only to public addresses unless the operator allows more (--allow-destination)."
            )
        }
    }

    /// Shuts every client down (service stop).
    package func shutdown() async throws {
        stopRetiring()
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
        if let evicted, case .terminated = retiring.yield(evicted) {
            // The service is stopping: `shutdown()` takes it with the others.
            pinned.withLock { $0.append(("retired", evicted)) }
        }
        return client
    }

    /// The host's addresses, from the system resolver (getaddrinfo), off the event loops.
    package static func resolve(_ host: String, port: Int) async throws -> [IPAddress] {
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
