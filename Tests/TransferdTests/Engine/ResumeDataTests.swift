import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// Resume data: a token from a cancelled or failed task that a new task continues from.
@Suite struct ResumeDataTests {
    static let size = 2_000_000

    /// Starts a throttled download in `session`, cancels it with `produceResumeData` once bytes are on disk, and
    /// returns the cancelled task.
    private func cancelWithResumeData(_ api: APIClient, _ origin: OriginServer, session: String) async throws -> TaskView {
        try await api.startThrottledDownload(session, size: Self.size, origin: origin)
        let reply = try await api.send(.POST, "/v1/sessions/\(session)/tasks/1/cancel", json: #"{"produceResumeData": true}"#)
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode()
    }

    @Test func cancellingWithResumeDataLetsANewTaskContinue() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                let cancelled = try await cancelWithResumeData(api, origin, session: "rd")
                #expect(cancelled.state == "completed")
                #expect(cancelled.error?.code == "cancelled")
                let token = try #require(cancelled.error?.resumeData)

                let reply = try await api.send(.POST, "/v1/sessions/rd/tasks", json: #"{"kind": "download", "resumeData": "\#(token)"}"#)
                #expect(reply.status == 201, "\(reply.text)")
                let created = try reply.decode(TaskView.self)
                #expect(created.originalRequest.url == cancelled.originalRequest.url)
                #expect(created.countOfBytesReceived > 0)
                let task = try await api.waitForCompletion("rd", created.taskIdentifier)

                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                try await api.expectContinued("rd", 2, origin: origin, name: "rd")

                let again = try await api.send(.POST, "/v1/sessions/rd/tasks", json: #"{"kind": "download", "resumeData": "\#(token)"}"#)
                #expect(again.status == 409, "the partial file was handed over once")
            }
        }
    }

    /// Resume data is readable by whoever holds it: it never carries the URL's password, which a new task is given
    /// again with the URL.
    @Test func resumeDataCarriesNoPassword() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                // setup: a download from a URL with a password, held by the origin after 300 kB (so that it is still
                // running when the cancel comes, however loaded the machine), cancelled with resume data
                try await api.createSession("secret")
                let url =
                    "http://u:p4ssw0rd@" + origin.url("/files/\(Self.size)?name=secret&stallAfter=300000").dropFirst("http://".count)
                _ = try await api.createTask("secret", url: url)
                _ = try await api.waitForEvent("secret") { $0.type == "task.progress" && ($0.data.totalBytesWritten ?? 0) > 100_000 }
                let cancelled = try await api.send(.POST, "/v1/sessions/secret/tasks/1/cancel", json: #"{"produceResumeData": true}"#)
                let token = try #require(try cancelled.decode(TaskView.self).error?.resumeData, "\(cancelled.text)")

                // act: read the token as anyone holding it could, and resume with the URL given again
                let payload = try #require(token.split(separator: ".").dropFirst().first.flatMap { Data(base64Encoded: String($0)) })
                let resumed = try await api.send(
                    .POST,
                    "/v1/sessions/secret/tasks",
                    json: #"{"kind": "download", "resumeData": "\#(token)", "url": "\#(url)"}"#
                )

                // verify
                #expect(!String(decoding: payload, as: UTF8.self).contains("p4ssw0rd"))
                #expect(String(decoding: payload, as: UTF8.self).contains("u@127.0.0.1"))
                #expect(resumed.status == 201, "\(resumed.text)")
                let task = try await api.waitForCompletion("secret", 2)
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                #expect(origin.lastHeaders["authorization"] == "Basic \(Data("u:p4ssw0rd".utf8).base64EncodedString())")
                // Every byte that arrived before the cancel is kept, though the stalled body left them unwritten
                // until the cancel (a stopped attempt's last writes and checkpoint run apart from it).
                #expect(try await api.resumedAtOffset("secret", 2).fileOffset ?? 0 >= 300_000)
            }
        }
    }

    @Test func resumeDataIsCheckedBeforeItIsUsed() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                let cancelled = try await cancelWithResumeData(api, origin, session: "checked")
                let token = try #require(cancelled.error?.resumeData)
                try await api.createSession("elsewhere")

                let cases: [(session: String, token: String, detail: String)] = [
                    ("checked", "garbage", "`resumeData` is not resume data of a version this service understands."),
                    ("checked", "v1.!!.??", "`resumeData` is malformed."),
                    ("checked", String(token.dropLast(4)) + "AAA=", "`resumeData` was not issued by this service or has been altered."),
                    ("elsewhere", token, "`resumeData` belongs to another session."),
                ]
                for (session, token, detail) in cases {
                    let reply = try await api.send(
                        .POST,
                        "/v1/sessions/\(session)/tasks",
                        json: #"{"kind": "download", "resumeData": "\#(token)"}"#
                    )
                    #expect(reply.status == 400)
                    #expect(reply.problem?.detail == detail)
                }
                let otherURL = try await api.send(
                    .POST,
                    "/v1/sessions/checked/tasks",
                    json: #"{"kind": "download", "url": "http://example.com/", "resumeData": "\#(token)"}"#
                )
                #expect(otherURL.status == 400)
                #expect(otherURL.problem?.detail.hasPrefix("`url` must be the resume data's URL") == true)
            }
        }
    }

    @Test func aTaskThatFailsTransientlyCarriesResumeData() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                try await api.createSession("failed", configuration: #"{"maximumRetries": 0}"#)
                let url = origin.url("/files/\(Self.size)?name=failed&dropAfter=700000")
                _ = try await api.createTask("failed", url: url)
                let failed = try await api.waitForCompletion("failed", 1)
                #expect(failed.error?.code == "networkConnectionLost")
                let token = try #require(failed.error?.resumeData)

                _ = try await api.createTask("failed", url: url, extra: #", "resumeData": "\#(token)""#)
                let task = try await api.waitForCompletion("failed", 2)
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                try await api.expectContinued("failed", 2, origin: origin, name: "failed")
            }
        }
    }

    @Test func invalidatingTheSessionRemovesThePartialFilesOfItsResumeData() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await TestService.with(dataDirectory: dataDirectory, progressInterval: .milliseconds(50)) { api in
                let cancelled = try await cancelWithResumeData(api, origin, session: "gone")
                #expect(cancelled.error?.resumeData != nil)
                #expect(FileManager.default.fileExists(atPath: dataDirectory + "/tasks/1.part"))

                _ = try await api.send(.POST, "/v1/sessions/gone/invalidate")
                try await api.waitForEvent("gone") { $0.type == "session.invalidated" }
                #expect(!FileManager.default.fileExists(atPath: dataDirectory + "/tasks/1.part"))
            }
        }
    }

    @Test func aCancelWithoutBytesToKeepHasNoResumeData() async throws {
        try await TestService.with { api in
            try await api.createSession("nothing")
            _ = try await api.createTask("nothing", url: "http://127.0.0.1:9/file", extra: #", "start": false"#)
            let reply = try await api.send(.POST, "/v1/sessions/nothing/tasks/1/cancel", json: #"{"produceResumeData": true}"#)
            let task = try reply.decode(TaskView.self)
            #expect(task.error?.code == "cancelled")
            #expect(task.error?.resumeData == nil)
            #expect(task.notResumableReason == "noResponseYet")
        }
    }
}
