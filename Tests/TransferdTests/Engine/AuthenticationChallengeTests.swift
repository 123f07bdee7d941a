import Foundation
import Testing
import TransferdTestOrigins

@testable import transferd

/// didReceiveChallenge: an origin's 401 makes the task wait with `waitingReason: authenticationChallenge` and writes
/// `task.authentication_challenge`; the answer comes through the API or in the webhook subscriber's reply; a
/// credential can be kept for the session's protection space, sealed at rest; no answer in time fails the task.
@Suite struct AuthenticationChallengeTests {
    private func answer(_ api: APIClient, _ session: String, _ task: Int, _ json: String) async throws -> APIClient.Reply {
        try await api.send(.POST, "/v1/sessions/\(session)/tasks/\(task)/challenge", json: json)
    }

    /// Every file under `directory`, read whole.
    private func storedBytes(under directory: String) -> [Data] {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.compactMap { FileManager.default.contents(atPath: directory + "/" + $0) }
    }

    @Test func anAnswerThroughTheAPIRunsTheTaskAndIsKeptSealedForTheSession() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await TestService.with(dataDirectory: dataDirectory) { api in
                try await api.createSession("vault")
                let url = origin.url("/basic/alice/2000")
                _ = try await api.createTask("vault", url: url)

                // verify: the challenge, with its protection space, and the task waiting for it
                let event = try await api.waitForEvent("vault") { $0.type == "task.authentication_challenge" }
                let port = try #require(URLComponents(string: url)?.port)
                #expect(
                    event.data.protectionSpace
                        == .init(authenticationMethod: "basic", realm: "files", host: "127.0.0.1", port: port, isProxy: false)
                )
                #expect(event.data.previousFailureCount == 0)
                let waiting = try await api.task("vault", 1)
                #expect(waiting.state == "running" && waiting.waitingReason == "authenticationChallenge")

                // act: answer with a credential kept for the session
                let answered = try await answer(
                    api,
                    "vault",
                    1,
                    #"{"disposition": "useCredential", "credential": {"user": "alice", "password": "ecila-Pa55"}, "persistence": "forSession"}"#
                )
                let first = try await api.waitForCompletion("vault", 1)
                _ = try await api.createTask("vault", url: url)
                let second = try await api.waitForCompletion("vault", 2)

                // verify: both downloaded; the second used the kept credential without asking; the password is
                // nowhere in the answers, and not in the data directory (sealed)
                #expect(answered.status == 200 && !answered.text.contains("ecila"))
                #expect(first.error == nil && first.countOfBytesReceived == 2000)
                #expect(second.error == nil && second.countOfBytesReceived == 2000)
                let events = try await api.allEvents("vault")
                #expect(events.filter { $0.type == "task.authentication_challenge" }.map(\.taskIdentifier) == [1])
                #expect(!(try await api.send(.GET, "/v1/sessions/vault").text.contains("ecila")))
                #expect(!storedBytes(under: dataDirectory).contains { $0.range(of: Data("ecila-Pa55".utf8)) != nil })
                #expect(FileManager.default.fileExists(atPath: dataDirectory + "/credentials.key"))
            }
        }
    }

    @Test func theSubscribersReplyToTheEventAnswersIt() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with { api in
                    receiver.reply(
                        to: "task.authentication_challenge",
                        with: #"{"disposition": "useCredential", "credential": {"user": "bob", "password": "bob-Pa55"}}"#
                    )
                    try await api.createSession("hooked", configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
                    _ = try await api.createTask("hooked", url: origin.url("/basic/bob/1500"))

                    // act
                    let task = try await api.waitForCompletion("hooked", 1)

                    // verify: the completion handler, answered in the delivery's round trip
                    #expect(task.error == nil && task.countOfBytesReceived == 1500)
                    #expect(receiver.acknowledged.contains { $0.type == "task.authentication_challenge" })
                }
            }
        }
    }

    @Test func aWrongCredentialIsChallengedAgainAndOtherDispositionsComplete() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("tries")
                for _ in 1...2 { _ = try await api.createTask("tries", url: origin.url("/basic/carol/1000")) }
                for task in [1, 2] {
                    _ = try await api.waitForEvent("tries") { $0.type == "task.authentication_challenge" && $0.taskIdentifier == task }
                }

                // act: a wrong password for task 1, then cancel; default handling for task 2
                _ = try await answer(
                    api,
                    "tries",
                    1,
                    #"{"disposition": "useCredential", "credential": {"user": "carol", "password": "wrong"}}"#
                )
                let again = try await api.waitForEvent("tries") {
                    $0.type == "task.authentication_challenge" && $0.data.previousFailureCount == 1
                }
                _ = try await answer(api, "tries", 1, #"{"disposition": "cancelAuthenticationChallenge"}"#)
                _ = try await answer(api, "tries", 2, #"{"disposition": "performDefaultHandling"}"#)

                // verify
                #expect(again.taskIdentifier == 1)
                #expect(try await api.waitForCompletion("tries", 1).error?.code == "cancelled")
                let defaulted = try await api.waitForCompletion("tries", 2)
                #expect(defaulted.error?.code == "badServerResponse" && defaulted.error?.statusCode == 401)
                let late = try await answer(api, "tries", 2, #"{"disposition": "performDefaultHandling"}"#)
                #expect(late.status == 409 && late.problem?.detail == "Task 2 has no authentication challenge waiting for an answer.")
            }
        }
    }

    @Test func noAnswerWithinTheChallengeTimeoutFailsTheTask() async throws {
        let clock = ManualClock()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                try await api.createSession("silent", configuration: #"{"challengeTimeout": 60}"#)
                _ = try await api.createTask("silent", url: origin.url("/basic/dave/1000"))
                _ = try await api.waitForEvent("silent") { $0.type == "task.authentication_challenge" }

                // act
                clock.advance(by: 61)
                let task = try await api.waitForCompletion("silent", 1)

                // verify: failed, and no challenge shown any more
                #expect(task.error?.code == "userAuthenticationRequired")
                #expect(try await api.send(.GET, "/v1/sessions/silent/tasks/1").text.contains(#""challenge":null"#))
            }
        }
    }

    /// A token kept for the session outlives a restart (the credentials key stays in the data directory, readable
    /// by the service's user alone), and it reaches no log, not even at debug level.
    @Test func aKeptTokenOutlivesARestartAndIsNeverLogged() async throws {
        let dataDirectory = DataDirectories.temporary()
        let token = OriginServer.password(of: "erin")
        try await OriginServer.with { origin in
            let url = origin.url("/bearer/erin/1200")

            // setup: a Bearer challenge answered with a token kept for the session
            let first = try await ServiceProcess.start(dataDirectory: dataDirectory, log: ("text", "debug"))
            defer { first.stopIfRunning() }
            try await first.api.createSession("restart")
            _ = try await first.api.createTask("restart", url: url)
            let challenge = try await first.api.waitForEvent("restart") { $0.type == "task.authentication_challenge" }
            let answer = #"{"disposition": "useCredential", "credential": {"token": "\#(token)"}, "persistence": "forSession"}"#
            _ = try await self.answer(first.api, "restart", 1, answer)
            let answered = try await first.api.waitForCompletion("restart", 1)
            try await first.terminate()

            // act: the next start on the same data directory
            let second = try await ServiceProcess.start(dataDirectory: dataDirectory, log: ("text", "debug"))
            defer { second.stopIfRunning() }
            _ = try await second.api.createTask("restart", url: url)
            let kept = try await second.api.waitForCompletion("restart", 2)
            let challenges = try await second.api.allEvents("restart").filter { $0.type == "task.authentication_challenge" }
            try await second.terminate()

            // verify
            #expect(challenge.data.protectionSpace?.authenticationMethod == "bearer" && challenge.data.protectionSpace?.realm == "api")
            #expect(answered.error == nil && kept.error == nil && kept.countOfBytesReceived == 1200)
            #expect(challenges.map(\.taskIdentifier) == [1], "the kept token answered task 2 without asking")
            #expect(first.log.contains("debug") && second.log.contains("debug"))
            #expect(!first.log.contains(token) && !second.log.contains(token))
            let key = try FileManager.default.attributesOfItem(atPath: dataDirectory + "/credentials.key")
            #expect((key[.posixPermissions] as? Int) == 0o600)
        }
    }

    @Test(arguments: [
        (
            #"{"disposition": "maybe"}"#,
            "`disposition` must be one of useCredential, performDefaultHandling, cancelAuthenticationChallenge, rejectProtectionSpace, not `maybe`."
        ),
        (
            #"{"disposition": "useCredential"}"#,
            "`credential` must hold either `user` (without a colon) and `password`, or a `token`, for useCredential."
        ),
        (
            #"{"disposition": "useCredential", "credential": {"token": "t"}, "persistence": "forever"}"#,
            "`persistence` must be none or forSession."
        ),
        ("{}", "`disposition` is required."),
    ])
    func aBadAnswerIsRefusedByName(body: String, detail: String) async throws {
        try await TestService.with { api in
            try await api.createSession("bad")
            _ = try await api.createTask("bad", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
            let reply = try await answer(api, "bad", 1, body)
            #expect(reply.status == 400)
            #expect(reply.problem?.detail == detail)
        }
    }
}
