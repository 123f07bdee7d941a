import Foundation
import Testing
import TransferdDomain

@testable import transferd

/// `/v1/storage`: a tenant names its stores, replaces and forgets them; the secret goes in and never comes out, is
/// sealed at rest, and other tenants see none of it.
@Suite struct StorageAPITests {
    static let settings = #"""
        {"endpoint": "http://127.0.0.1:9000", "region": "eu-west-1", "bucket": "media-archive", "accessKeyId": "AKIAEXAMPLE", "secretAccessKey": "storage-secret-1", "pathStyle": true}
        """#

    @Test func aStoreIsNamedReplacedListedAndForgotten() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            let created = try await api.send(.PUT, "/v1/storage/archive", json: Self.settings)
            #expect(created.status == 201)
            let shown = try created.decode(StorageView.self)
            #expect(shown.endpoint == "http://127.0.0.1:9000")
            #expect(shown.bucket == "media-archive" && shown.region == "eu-west-1" && shown.pathStyle)
            #expect(!created.text.contains("storage-secret-1"))

            let replaced = try await api.send(
                .PUT,
                "/v1/storage/archive",
                json: Self.settings.replacingOccurrences(of: "media-archive", with: "media-archive-2")
            )
            #expect(replaced.status == 200)
            #expect(try replaced.decode(StorageView.self).bucket == "media-archive-2")
            #expect(try replaced.decode(StorageView.self).createdAt == shown.createdAt)

            let listed = try await api.send(.GET, "/v1/storage")
            #expect(try listed.decode(StorageListView.self).storages.map(\.name) == ["archive"])
            #expect(!listed.text.contains("storage-secret-1"))
            #expect(try await api.send(.GET, "/v1/storage/archive").decode(StorageView.self).bucket == "media-archive-2")

            let stored = try await TestDatabase(dataDirectory: dataDirectory).storedBytes()
            #expect(stored.range(of: Data("storage-secret-1".utf8)) == nil, "the secret is stored in plain text")

            #expect(try await api.send(.DELETE, "/v1/storage/archive").status == 204)
            #expect(try await api.send(.GET, "/v1/storage/archive").problem?.detail == "There is no storage named `archive`.")
            #expect(try await api.send(.DELETE, "/v1/storage/archive").status == 404)
        }
    }

    @Test(arguments: [
        ("/v1/storage/Archive", settings, 400, "`name` must be 1–63 lower-case letters"),
        ("/v1/storage/a", settings.replacingOccurrences(of: "http://127.0.0.1:9000", with: "ftp://host"), 400, "`endpoint` must be"),
        ("/v1/storage/a", settings.replacingOccurrences(of: "http://127.0.0.1:9000", with: "http://host/path"), 400, "`endpoint` must be"),
        ("/v1/storage/a", settings.replacingOccurrences(of: "http://127.0.0.1:9000", with: "http://u:p@host"), 400, "`endpoint` must be"),
        ("/v1/storage/a", settings.replacingOccurrences(of: "media-archive", with: "Media_Archive"), 400, "`bucket` must be"),
        ("/v1/storage/a", settings.replacingOccurrences(of: "eu-west-1", with: "EU West"), 400, "`region` must be"),
        ("/v1/storage/a", settings.replacingOccurrences(of: "AKIAEXAMPLE", with: "has space"), 400, "`accessKeyId` must be"),
        ("/v1/storage/a", #"{"endpoint": "http://127.0.0.1:9000"}"#, 400, "`bucket` is required."),
    ])
    func badSettingsAreRefusedByField(path: String, body: String, status: Int, detail: String) async throws {
        try await TestService.with { api in
            let reply = try await api.send(.PUT, path, json: body)
            #expect(reply.status == status)
            #expect(reply.problem?.detail.hasPrefix(detail) == true, "\(reply.text)")
        }
    }

    /// The destination policy covers the endpoint: the service's own network and the cloud's metadata address are
    /// refused, whatever a tenant names them.
    @Test func anEndpointThePolicyForbidsIsRefused() async throws {
        try await TestService.with(configure: { $0.destinationPolicy = DestinationPolicy() }) { api in
            for endpoint in ["http://169.254.169.254", "http://127.0.0.1:9000", "http://[::1]:9000", "http://localhost:9000"] {
                let reply = try await api.send(
                    .PUT,
                    "/v1/storage/meta",
                    json: Self.settings.replacingOccurrences(of: "http://127.0.0.1:9000", with: endpoint)
                )
                #expect(reply.problem?._type.hasSuffix("destination-not-allowed") == true, "\(endpoint): \(reply.text)")
            }
            #expect(try await api.send(.GET, "/v1/storage").decode(StorageListView.self).storages.isEmpty)
        }
    }

    @Test func anotherTenantSeesNoneOfIt() async throws {
        let (service, t2, _) = try await TwoTenants.start()
        defer { service.stopIfRunning() }
        #expect(try await service.api.send(.PUT, "/v1/storage/archive", json: Self.settings).status == 201)
        #expect(try await t2.send(.GET, "/v1/storage").decode(StorageListView.self).storages.isEmpty)
        #expect(try await t2.send(.GET, "/v1/storage/archive").status == 404)
        #expect(try await t2.send(.DELETE, "/v1/storage/archive").status == 404)
        #expect(try await t2.send(.PUT, "/v1/storage/archive", json: Self.settings).status == 201)
        #expect(try await service.api.send(.GET, "/v1/storage").decode(StorageListView.self).storages.count == 1)
    }
}
