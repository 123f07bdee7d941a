import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// A tenant sees only its own sessions, tasks, files, events and deliveries: another tenant's answer 404, exactly
/// as if they did not exist.
@Suite struct TenancyTests {
    /// A second tenant's client on the same service.
    private func otherTenant(_ api: APIClient, dataDirectory: String, admin: Bool = false) async throws -> APIClient {
        var client = api
        client.key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "other", tenant: "other", admin: admin)
        return client
    }

    @Test func twoTenantsMayUseTheSameSessionIdentifier() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            let other = try await otherTenant(api, dataDirectory: dataDirectory)
            let mine = try await api.send(.PUT, "/v1/sessions/com.example.bg", json: "{}")
            let theirs = try await other.send(.PUT, "/v1/sessions/com.example.bg", json: "{}")
            #expect(mine.status == 201)
            #expect(theirs.status == 201, "a different tenant's session, not a reconnect")
            #expect(try await other.send(.GET, "/v1/sessions").decode(SessionPage.self).items.count == 1)
        }
    }

    @Test func everyRouteAnswers404ForAnotherTenantsResources() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await TestService.with(dataDirectory: dataDirectory) { api in
                try await api.createSession("private", configuration: #"{"webhook": {"url": "http://127.0.0.1:9/hook"}}"#)
                _ = try await api.createTask("private", url: origin.url("/files/100"))
                try await api.waitForCompletion("private", 1)
                try await api.stageFile("private-file", size: 10)
                let storage = #"{"endpoint": "http://127.0.0.1:9", "bucket": "private", "accessKeyId": "k", "secretAccessKey": "s"}"#
                #expect(try await api.send(.PUT, "/v1/storage/private", json: storage).status == 201)
                let other = try await otherTenant(api, dataDirectory: dataDirectory)

                // Routes that create (or list, describe the protocol, or show or act on the key's own tenant) do not name
                // another tenant's resource; the tenant's recover leaves another's deliveries (DeliveryRecoveryTests).
                let creating: Set<String> = [
                    "PUT /v1/sessions/{identifier}", "GET /v1/sessions", "POST /v1/files", "PUT /v1/files/{fileID}", "OPTIONS /v1/files",
                    "GET /v1/files",
                    "GET /v1/events", "GET /v1/tenant", "POST /v1/deliveries/recover", "GET /v1/storage", "PUT /v1/storage/{name}",
                ]
                let open: Set<String> = ["GET /healthz", "GET /readyz"]
                // Admin keys only, tenant or not (MetricsTests).
                let service: Set<String> = ["GET /metrics"]
                // The dashboard's pages show the signed-in key's own tenant (DashboardSecurityTests).
                let dashboard = try await RoutedOperations.all().filter { $0.contains(" /ui") }
                for operation in try await RoutedOperations.all().subtracting(creating).subtracting(open).subtracting(service)
                    .subtracting(dashboard).sorted()
                {
                    let parts = operation.split(separator: " ")
                    let path = parts[1]
                        .replacingOccurrences(of: "{identifier}", with: "private")
                        .replacingOccurrences(of: "{taskIdentifier}", with: "1")
                        .replacingOccurrences(of: "{fileID}", with: "private-file")
                        .replacingOccurrences(of: "{deliveryID}", with: "1")
                        .replacingOccurrences(of: "{name}", with: "private")
                    let reply = try await other.send(
                        .init(rawValue: String(parts[0])),
                        path,
                        json: parts[0] == "GET" || parts[0] == "HEAD" ? nil : "{}"
                    )
                    #expect(reply.status == 404, "\(operation) answered \(reply.status) to another tenant")
                }
                #expect(try await api.send(.GET, "/v1/sessions/private").status == 200, "the owner still sees it")
                let theirFiles = try await other.send(.GET, "/v1/files").decode(StagedFilePage.self)
                #expect(theirFiles.items.isEmpty, "another tenant's file list does not hold it")
            }
        }
    }

    @Test func onlyAdminKeysListAcrossTenants() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            let other = try await otherTenant(api, dataDirectory: dataDirectory)
            try await api.createSession("admins")
            _ = try await other.send(.PUT, "/v1/sessions/theirs", json: "{}")

            let all = try await api.send(.GET, "/v1/sessions?allTenants=true").decode(SessionPage.self).items
            #expect(Set(all.map { "\($0.tenant)/\($0.identifier)" }) == ["default/admins", "other/theirs"])
            let refused = try await other.send(.GET, "/v1/sessions?allTenants=true")
            #expect(refused.status == 403)
        }
    }
}
