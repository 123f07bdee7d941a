import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage

@testable import TransferdAPI
@testable import transferd

/// Every route but the health checks needs a live API key; each key has a rate limit.
@Suite struct AuthenticationTests {
    @Test func requestsWithoutAValidKeyGet401WithAChallenge() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            let revoked = try await KeyManagement.create(dataDirectory: dataDirectory, name: "old", tenant: "default", admin: false)
            let id = String(revoked.split(separator: "_")[1])
            #expect(try await KeyManagement.revoke(dataDirectory: dataDirectory, id: id))

            let cases: [(String?, String)] = [
                (nil, "This route needs `Authorization: Bearer <API key>`."),
                ("trd_0000000000000000_" + String(repeating: "0", count: 64), "The API key is not valid."),
                ("short", "The API key is not valid."),
                (revoked, "The API key has been revoked."),
            ]
            for (key, detail) in cases {
                var client = api
                client.key = key
                let reply = try await client.send(.GET, "/v1/sessions")
                #expect(reply.status == 401)
                #expect(reply.problem?.detail == detail)
                #expect(reply.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer realm=\"transferd\"") == true)
            }
            var anonymous = api
            anonymous.key = nil
            #expect(try await anonymous.send(.GET, "/healthz").status == 200)
            #expect(try await anonymous.send(.GET, "/readyz").status == 200)
            #expect(try await anonymous.send(.OPTIONS, "/v1/files").status == 401)
        }
    }

    @Test func aKeyFromTheCommandLineWorksUntilItIsRevoked() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            var client = api
            client.key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "ci", tenant: "builds", admin: false)
            #expect(try await client.send(.GET, "/v1/sessions").status == 200)
            let listed = try await KeyManagement.list(dataDirectory: dataDirectory).first { $0.name == "ci" }
            #expect(listed?.tenant == "builds")
            #expect(try await KeyManagement.revoke(dataDirectory: dataDirectory, id: try #require(listed?.id)))
            try await waitUntil(timeout: .seconds(10)) { try await client.send(.GET, "/v1/sessions").status == 401 }
        }
    }

    /// A busy client's key is read from the database at most once per `APIKeyCache.lifetime`; a key revoked by another
    /// process (the command line, another instance) stops working when its entry ages out, one revoked here at once.
    @Test func aRevokedKeyStopsWorkingWithinTheCachesLifetime() async throws {
        let dataDirectory = DataDirectories.temporary()
        let clock = ManualClock()
        let store = try await SQLiteStore(dataDirectory: dataDirectory, vault: .forTests)
        let service = APIKeyService(store: store, clock: clock)
        let elsewhere = await APIKeyService(store: try SQLiteStore(dataDirectory: dataDirectory, vault: .forTests), clock: clock)
        let token = try await service.create(name: "busy", tenant: "default", admin: false)
        let id = try #require(APIKey.Token(token)).id
        let isLive = { try await service.authenticate(token).get().keyID == id }

        #expect(try await isLive())
        #expect(try await elsewhere.revoke(id: id))
        clock.advance(by: APIKeyCache.lifetime / 2)
        #expect(try await isLive(), "still the key read half a lifetime ago")
        clock.advance(by: APIKeyCache.lifetime / 2)
        await #expect(throws: APIKeyService.AuthenticationFailure.revoked) { try await isLive() }

        let other = try await service.create(name: "other", tenant: "default", admin: false)
        #expect(try await service.authenticate(other).get().admin == false)
        #expect(try await service.revoke(id: try #require(APIKey.Token(other)).id))
        await #expect(throws: APIKeyService.AuthenticationFailure.revoked) { try await service.authenticate(other).get() }
    }

    @Test func eachKeyIsHeldToItsRate() async throws {
        try await TestService.with(configure: {
            $0.requestsPerSecond = 0.001
            $0.requestBurst = 3
        }) { api in
            for _ in 0..<3 { #expect(try await api.send(.GET, "/v1/sessions").status == 200) }
            let refused = try await api.send(.GET, "/v1/sessions")
            #expect(refused.status == 429)
            #expect(Int(refused.headers.first(name: "Retry-After") ?? "") ?? 0 >= 1)
            #expect(try await api.send(.GET, "/healthz").status == 200, "health checks are not rate limited")
        }
    }

    @Test func theDefaultRateLimitLetsABusyClientPollItsTasks() async throws {
        let defaults = Configuration()
        try await TestService.with(configure: {
            $0.requestsPerSecond = defaults.requestsPerSecond
            $0.requestBurst = defaults.requestBurst
        }) { api in
            try await api.createSession("poller")
            for _ in 0..<20 { _ = try await api.createTask("poller", url: "http://127.0.0.1:9/", extra: #", "start": false"#) }
            // 20 tasks polled five times a second for two seconds, sent as fast as they go.
            var statuses: [Int] = []
            for _ in 0..<10 {
                for task in 1...20 { statuses.append(try await api.send(.GET, "/v1/sessions/poller/tasks/\(task)").status) }
            }
            #expect(statuses.allSatisfy { $0 == 200 })
        }
    }

    @Test func aFreshInstallationGetsOneAdminKeyShownOnce() async throws {
        try await KeyManagement.withKeys(DataDirectories.temporary()) { keys in
            let first = try #require(try await keys.ensureInitialKey(configured: nil))
            #expect(first.hasPrefix("trd_"))
            #expect(try await keys.ensureInitialKey(configured: nil) == nil, "only when there is no key at all")
            #expect(try await keys.list().map(\.admin) == [true])

            let configured = String(repeating: "k", count: 40)
            #expect(try await keys.ensureInitialKey(configured: configured) == nil)
            #expect(try await keys.list().count == 2)
            await #expect(throws: ValidationFailure.self) { try await keys.ensureInitialKey(configured: "too short") }
        }
    }

    @Test func noAuthIsRefusedOnANonLoopbackAddress() async throws {
        let configuration = Configuration(
            host: "0.0.0.0",
            port: 0,
            dataDirectory: DataDirectories.temporary(),
            authenticationDisabled: true
        )
        await #expect(throws: ValidationFailure.self) { _ = try await buildApplication(configuration: configuration) }
    }
}
