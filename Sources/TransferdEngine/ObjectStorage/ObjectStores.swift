import AsyncHTTPClient
import Foundation
import NIOCore
import TransferdDomain
import TransferdS3

/// Opens tenants' stores for the transfers that name them: the store's settings are read when a transfer starts
/// (a store replaced since takes effect at the next attempt), and every request goes through the destination guard,
/// which vets the endpoint's address each time as it does an origin's. The service's content store, which the
/// operator chose, is reached directly.
package struct ObjectStores: Sendable {
    /// Finds a tenant's store by name.
    package typealias Finder = @Sendable (_ tenantID: Int64, _ name: String) async throws -> ObjectStorage?

    let find: Finder
    let destinations: DestinationGuard
    let clock: any WallClock
    /// The client of the service's content store, if it has one.
    package let content: S3Client?
    /// The content store as clients outside reach it, which presigned URLs are signed for, if it has a public endpoint.
    let publicContent: S3Client?

    package init(destinations: DestinationGuard, clock: any WallClock, content: ContentStoreSettings? = nil, find: @escaping Finder) {
        self.find = find
        self.destinations = destinations
        self.clock = clock
        self.content = content.map { Self.client($0.storage, transport: DirectS3Transport(client: Self.contentHTTPClient), clock: clock) }
        publicContent = content?.publicStorage.map {
            Self.client($0, transport: DirectS3Transport(client: Self.contentHTTPClient), clock: clock)
        }
    }

    /// The stores the database holds.
    package init(store: any Store, destinations: DestinationGuard, clock: any WallClock, content: ContentStoreSettings?) {
        self.init(destinations: destinations, clock: clock, content: content) { tenantID, name in
            try await store.lookup { try await $0.objectStorages.find(tenantID: tenantID, name: name) }
        }
    }

    /// The client of the tenant's store `name`, or of the content store; throws `objectStorageRefused` when the
    /// tenant names none so, `objectStorageUnavailable` when the content store is named and none is configured.
    package func client(tenantID: Int64, storage name: String) async throws -> S3Client {
        if name == ObjectLocation.contentStore {
            guard let content else {
                throw TransferError(code: .objectStorageUnavailable, message: "The content store is not configured (--content-store).")
            }
            return content
        }
        guard let storage = try await find(tenantID, name) else {
            throw TransferError(code: .objectStorageRefused, message: "There is no storage named `\(name)`.")
        }
        return Self.client(storage.settings, transport: GuardedS3Transport(destinations: destinations), clock: clock)
    }

    /// A client that presigns URLs of the tenant's store `name` or of the content store, for clients outside: the
    /// tenant's store at the endpoint the tenant gave; the content store only at its public endpoint, and
    /// `objectStorageRefused` when it has none.
    package func presigning(tenantID: Int64, storage name: String) async throws -> S3Client {
        guard name == ObjectLocation.contentStore else { return try await client(tenantID: tenantID, storage: name) }
        guard let publicContent else {
            throw TransferError(
                code: .objectStorageRefused,
                message:
                    "The content store has no public endpoint (`publicEndpoint=` in --content-store), so its content is not handed over as a URL: ask without `redirect=true`."
            )
        }
        return publicContent
    }

    /// The content store's HTTP client, for the life of the process: a connection that cannot be made fails its
    /// request at once (after 10 s at most), and the S3 client sends it again, rather than the pool trying again until
    /// the request's deadline, minutes on.
    private static let contentHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    private static func client(_ settings: ObjectStorageSettings, transport: any S3Transport, clock: any WallClock) -> S3Client {
        // The settings' endpoint was checked as a URL when they were made.
        let endpoint = URL(string: settings.endpoint) ?? URL(fileURLWithPath: "/")
        return S3Client(
            bucket: S3Bucket(endpoint: endpoint, region: settings.region, name: settings.bucket, pathStyle: settings.pathStyle),
            credentials: S3Credentials(accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey),
            transport: transport,
            now: { clock.now }
        )
    }
}

/// A tenant's store reached through the destination guard, like any URL a tenant gives.
struct GuardedS3Transport: S3Transport {
    let destinations: DestinationGuard

    func execute(_ request: HTTPClientRequest, deadline: NIODeadline) async throws -> HTTPClientResponse {
        try await destinations.route(for: request.url).execute(request, deadline: deadline)
    }
}
