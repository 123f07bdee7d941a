import Foundation
import Testing
import TransferdDomain
import TransferdTestOrigins

@testable import transferd

/// Whoever reads the database (a copied file, a backup, a replica) finds no credential a tenant gave: request
/// headers, URL and proxy passwords, webhook URLs and secrets, and the service's own keys are sealed under the
/// credentials key, and a database of an earlier version is sealed when it is opened.
@Suite struct SecretsAtRestTests {
    @Test func whatMayBeACredentialIsSealedInTheDatabase() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                let dataDirectory = DataDirectories.temporary()
                try await TestService.with(dataDirectory: dataDirectory) { api in
                    // act: every place a tenant may put a credential
                    try await api.createSession(
                        "sealed",
                        configuration: #"{"httpAdditionalHeaders": {"X-Session-Token": "session-secret-1"}}"#
                    )
                    try await api.createSession("proxied", configuration: #"{"proxy": "http://proxy-user:proxy-secret-2@127.0.0.1:9"}"#)
                    let hook = Self.withPassword(receiver.url, "hook-secret-3")
                    let webhook = try await api.send(.PUT, "/v1/sessions/sealed/webhook", json: #"{"url": "\#(hook)"}"#)
                    let secret = try #require(try webhook.decode(WebhookView.self).secret)
                    let url = Self.withPassword(origin.url("/files/1000"), "url-secret-4")
                    _ = try await api.createTask("sealed", url: url, extra: #", "headers": {"X-Api-Key": "task-secret-5"}"#)
                    try await api.waitForCompletion("sealed", 1)
                    try await api.waitUntilAllAcknowledged("sealed")

                    // verify: the transfer and the deliveries used them, opened
                    try Self.expectUsed(origin, receiver, ["session-secret-1", "task-secret-5", "url-secret-4", secret])

                    // verify: the database holds none of them
                    let stored = try await TestDatabase(dataDirectory: dataDirectory).storedBytes()
                    for text in ["session-secret-1", "proxy-secret-2", "hook-secret-3", "url-secret-4", "task-secret-5", secret] {
                        #expect(stored.range(of: Data(text.utf8)) == nil, "\(text) is stored in plain text")
                    }
                }
            }
        }
    }

    @Test func aDatabaseOfAnEarlierVersionIsSealedWhenItOpens() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                // setup: a session, webhook and task, rewritten as a version before sealing kept them
                let dataDirectory = DataDirectories.temporary()
                try await TestService.with(dataDirectory: dataDirectory) { api in
                    try await api.createSession("legacy")
                    _ = try await api.send(.PUT, "/v1/sessions/legacy/webhook", json: #"{"url": "\#(receiver.url)"}"#)
                    _ = try await api.createTask("legacy", url: origin.url("/files/10"), extra: #", "start": false"#)
                }
                let url = Self.withPassword(origin.url("/files/1000"), "legacy-secret-1")
                let secret = WebhookSecret.generate().value
                try await Self.rewriteAsBeforeSealing(
                    TestDatabase(dataDirectory: dataDirectory),
                    configuration: #"{"httpAdditionalHeaders": {"X-Session-Token": "legacy-secret-2"}, "retentionPeriod": 60}"#,
                    request: #"{"url": "\#(url)", "method": "GET", "headers": {"X-Api-Key": "legacy-secret-3"}}"#,
                    webhook: Self.withPassword(receiver.url, "legacy-secret-4"),
                    secret: secret
                )
                let before = try await TestDatabase(dataDirectory: dataDirectory).storedBytes()
                #expect(before.range(of: Data("legacy-secret-3".utf8)) != nil, "the search finds what is stored in plain text")

                // act
                try await TestService.with(dataDirectory: dataDirectory) { api in
                    _ = try await api.send(.POST, "/v1/sessions/legacy/tasks/1/resume")
                    try await api.waitForCompletion("legacy", 1)
                    try await api.waitUntilAllAcknowledged("legacy")

                    // verify: what it held is read as it was, and used
                    try Self.expectUsed(origin, receiver, ["legacy-secret-2", "legacy-secret-3", "legacy-secret-1", secret])
                    let database = TestDatabase(dataDirectory: dataDirectory)
                    #expect(try await database.rows("SELECT CAST(retention_period AS BIGINT) FROM sessions") == [[60]])

                    // verify: sealed in place, with no copy left in the file
                    let stored = try await database.storedBytes()
                    let resumeKey = Self.oldResumeDataKey
                    let hexKey = "\\x" + resumeKey.map { String(format: "%02x", $0) }.joined()
                    for text in ["legacy-secret-1", "legacy-secret-2", "legacy-secret-3", "legacy-secret-4", secret, hexKey] {
                        #expect(stored.range(of: Data(text.utf8)) == nil, "\(text) is stored in plain text")
                    }
                    #expect(stored.range(of: resumeKey) == nil, "the resume data key is sealed")
                }
            }
        }
    }

    @Test func anInstanceWithAnotherCredentialsKeyIsRefused() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in _ = try await api.createSession("first") }
        let other = Data(repeating: 9, count: 32).base64EncodedString()

        await #expect {
            try await TestService.with(dataDirectory: dataDirectory, configure: { $0.credentialsKey = other }) { _ in () }
        } throws: { error in
            "\(error)".contains("TRANSFERD_CREDENTIALS_KEY")
        }
    }

    /// The origin's last request carried the session's header, the task's header and the URL's password, and the
    /// last delivery was signed with the webhook secret, `secrets` in that order: each was opened to be used.
    private static func expectUsed(_ origin: OriginServer, _ receiver: WebhookReceiver, _ secrets: [String]) throws {
        let (session, task, password, secret) = (secrets[0], secrets[1], secrets[2], secrets[3])
        #expect(origin.lastHeaders["x-session-token"] == session)
        #expect(origin.lastHeaders["x-api-key"] == task)
        #expect(origin.lastHeaders["authorization"] == "Basic " + Data("reader:\(password)".utf8).base64EncodedString())
        let delivered = try #require(receiver.acknowledged.last)
        let signature = WebhookSigner.signature(
            messageID: delivered.messageID,
            timestamp: Int(delivered.timestamp) ?? 0,
            body: delivered.body,
            secrets: [try #require(WebhookSecret(secret))]
        )
        #expect(delivered.signature == signature)
    }

    private static let oldResumeDataKey = Data("resume-data-key-of-an-old-versio".utf8)

    /// `url` with the user `reader` and `password` in it.
    private static func withPassword(_ url: String, _ password: String) -> String {
        url.replacingOccurrences(of: "http://", with: "http://reader:\(password)@")
    }

    /// Puts the database back as the version before `sealed_secrets` left it, its rows holding `configuration`,
    /// `request`, `webhook` and `secret` in plain text.
    private static func rewriteAsBeforeSealing(
        _ database: TestDatabase,
        configuration: String,
        request: String,
        webhook: String,
        secret: String
    ) async throws {
        let onPostgres = SuiteDatabase.url(forDataDirectory: database.dataDirectory) != nil
        let hex = oldResumeDataKey.map { String(format: "%02x", $0) }.joined()
        let statements = [
            onPostgres
                ? "DELETE FROM schema_migrations WHERE name LIKE '%_sealed_secrets'"
                : "DELETE FROM grdb_migrations WHERE identifier LIKE '%_sealed_secrets'",
            "ALTER TABLE sessions DROP COLUMN retention_period",
            "DELETE FROM service_keys WHERE name = 'credentials_check'",
            "UPDATE service_keys SET value = \(onPostgres ? "decode('\(hex)', 'hex')" : "X'\(hex)'") WHERE name = 'resume_data'",
            "UPDATE sessions SET configuration = '\(configuration)'",
            "UPDATE tasks SET original_request = '\(request)'",
            "UPDATE webhooks SET url = '\(webhook)', secret = '\(secret)', previous_secret = NULL",
        ]
        for statement in statements { try await database.execute(statement) }
    }
}
