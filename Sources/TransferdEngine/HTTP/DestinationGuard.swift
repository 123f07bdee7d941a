import AsyncHTTPClient
import Foundation
import NIOPosix
import Synchronization
import TransferdDomain

/// Lets transfers and webhooks connect only where the `DestinationPolicy` permits. It resolves a URL's host itself,
/// refuses the URL when any of its addresses is not permitted, and hands back a client pinned to the vetted
/// address (`dnsOverride`): the connection goes to exactly that address, so a second DNS answer (rebinding)
/// cannot slip a private one in, while TLS still checks the certificate against the host name. Through a session's
/// proxy, the proxy's address is pinned the same way and the target's addresses are checked before it is asked to
/// reach them (the proxy resolves the name again itself).
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

    /// The client to send a request for `url` with, directly or `through` a proxy; throws `destinationNotAllowed`
    /// (or the resolver's failure). Through a proxy, both the proxy's address and the target's, as the proxy is
    /// asked to reach it, must be permitted.
    package func client(for url: String, through proxy: ProxySetting? = nil) async throws -> HTTPClient {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw TransferError(code: .unsupportedURL, message: "The URL has no host.")
        }
        let scheme = components.scheme?.lowercased() ?? "http"
        let target = try await permittedAddress(of: host, port: components.port ?? (scheme == "https" ? 443 : 80))
        if let proxy {
            let address = try await permittedAddress(of: proxy.host, port: proxy.port)
            let hostAddress = address?.description ?? proxy.host
            return cachedClient(key: "proxy|\(proxy.url)|\(hostAddress)") { configuration in
                configuration.proxy =
                    switch proxy.kind {
                    case .http:
                        .server(
                            host: hostAddress,
                            port: proxy.port,
                            authorization: proxy.username.map { .basic(username: $0, password: proxy.password ?? "") }
                        )
                    case .socks5: .socksServer(host: hostAddress, port: proxy.port)
                    }
            }
        }
        guard let target else { return base }
        return cachedClient(key: "\(host.lowercased())|\(target)") { $0.dnsOverride = [host: target.description] }
    }

    /// The first of `host`'s addresses once every one is found permitted; nil when `host` is an address already
    /// (checked).
    private func permittedAddress(of host: String, port: Int) async throws -> IPAddress? {
        if let literal = IPAddress(host) {
            try check(literal, host: host)
            return nil
        }
        let addresses = try await Self.resolve(host, port: port)
        guard let first = addresses.first else {
            throw TransferError(code: .cannotFindHost, message: "The host name could not be resolved.")
        }
        for address in addresses { try check(address, host: host) }
        return first
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

    /// The client kept under `key`, made with the base configuration as `configure` changes it when there is none.
    private func cachedClient(key: String, _ configure: (inout HTTPClient.Configuration) -> Void) -> HTTPClient {
        let (client, evicted) = pinned.withLock { pinned -> (HTTPClient, HTTPClient?) in
            if let found = pinned.first(where: { $0.key == key }) { return (found.client, nil) }
            var configuration = self.configuration
            configure(&configuration)
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
