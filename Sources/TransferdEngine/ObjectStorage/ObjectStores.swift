import AsyncHTTPClient
import Foundation
import NIOCore
import TransferdDomain
import TransferdS3

/// Opens tenants' stores for the transfers that name them: the store's settings are read when a transfer starts
/// (a store replaced since takes effect at the next attempt), and every request goes through the destination guard,
/// which vets the endpoint's address each time as it does an origin's.
package struct ObjectStores: Sendable {
    /// Finds a tenant's store by name.
    package typealias Finder = @Sendable (_ tenantID: Int64, _ name: String) async throws -> ObjectStorage?

    let find: Finder
    let destinations: DestinationGuard
    let clock: any WallClock

    package init(destinations: DestinationGuard, clock: any WallClock, find: @escaping Finder) {
        self.find = find
        self.destinations = destinations
        self.clock = clock
    }

    /// The stores the database holds.
    package init(store: any Store, destinations: DestinationGuard, clock: any WallClock) {
        self.init(destinations: destinations, clock: clock) { tenantID, name in
            try await store.lookup { try await $0.objectStorages.find(tenantID: tenantID, name: name) }
        }
    }

    /// The client of the tenant's store `name`; throws `objectStorageRefused` when the tenant names none so.
    package func client(tenantID: Int64, storage name: String) async throws -> S3Client {
        guard let storage = try await find(tenantID, name), let endpoint = URL(string: storage.settings.endpoint) else {
            throw TransferError(code: .objectStorageRefused, message: "There is no storage named `\(name)`.")
        }
        let settings = storage.settings
        let clock = clock
        return S3Client(
            bucket: S3Bucket(endpoint: endpoint, region: settings.region, name: settings.bucket, pathStyle: settings.pathStyle),
            credentials: S3Credentials(accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey),
            transport: GuardedS3Transport(destinations: destinations),
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
