import Foundation
import Testing
import TransferdDomain
import TransferdTestOrigins

@testable import transferd

/// `mirrors`: one download fetched from several sources at once, the faster ones taking more; a source that fails or
/// serves other content is dropped (`task.source_dropped`) and the others fetch what it left, to the right bytes.
@Suite struct MirrorTests {
    static let size = 4_000_000

    /// Three names of the origin stand for three mirrors of one file: the same bytes and the same ETag.
    static func sources(_ origin: OriginServer, _ names: [String], _ query: String = "") -> [String] {
        names.map { origin.url("/files/\(size)?name=\($0)&faults=0&bytesPerSecond=1500000\(query)") }
    }

    /// The `task.source_dropped` events of `session`, in order.
    static func dropped(_ api: APIClient, _ session: String) async throws -> [EventDataView] {
        try await api.allEvents(session).filter { $0.type == "task.source_dropped" }.map(\.data)
    }

    static func mirrors(_ urls: [String]) -> String {
        #", "mirrors": [\#(urls.map { "\"\($0)\"" }.joined(separator: ", "))]"#
    }

    @Test func aDownloadIsSpreadAcrossItsSources() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("spread")
                let urls = Self.sources(origin, ["a", "b", "c"])
                _ = try await api.createTask("spread", url: urls[0], extra: Self.mirrors(Array(urls.dropFirst())))
                let task = try await api.waitForCompletion("spread", 1)

                #expect(task.error == nil)
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                #expect(task.mirrors == Array(urls.dropFirst()))
                #expect(origin.ranges("a").first == "bytes=0-", "the first source's 206 proves ranges before splitting")
                for name in ["b", "c"] {
                    #expect(!origin.ranges(name).isEmpty, "source \(name) fetched segments")
                    #expect(origin.ranges(name).allSatisfy { $0?.hasPrefix("bytes=") == true })
                }
                let fetchedFrom = Set(
                    (task.metrics?.transactionMetrics ?? []).compactMap { URLComponents(string: $0.url)?.queryItems?.first?.value }
                )
                #expect(fetchedFrom == ["a", "b", "c"], "transactionMetrics has each source's requests")
                #expect(try await api.allEvents("spread").allSatisfy { $0.type != "task.source_dropped" })
            }
        }
    }

    @Test func aSourceThatResetsHalfwayIsDroppedAndTheOthersFinish() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("reset")
                let good = Self.sources(origin, ["good"])[0]
                let breaking = origin.url("/files/\(Self.size)?name=breaking&faults=1000&dropAfter=500000&bytesPerSecond=1500000")
                _ = try await api.createTask("reset", url: good, extra: Self.mirrors([breaking]))
                let task = try await api.waitForCompletion("reset", 1)

                #expect(task.error == nil)
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                #expect(task.attempts.map(\.outcome) == ["succeeded"], "one attempt: the good source fetched what the other left")
                let dropped = try await Self.dropped(api, "reset")
                #expect(dropped.map(\.url) == [breaking])
                #expect(dropped.map(\.reason) == ["failed"])
                #expect(!origin.ranges("breaking").isEmpty)
            }
        }
    }

    /// A source that stops sending keeps its piece until it is judged over 10 one-second samples: the others fetch
    /// the rest, split what it holds, and then take what it left.
    @Test func aSourceThatStallsIsDroppedAsTooSlow() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("stalled")
                let good = Self.sources(origin, ["steady"])[0]
                let stalling = origin.url("/files/\(Self.size)?name=stalling&faults=1000&stallAfter=100000")
                _ = try await api.createTask("stalled", url: good, extra: Self.mirrors([stalling]))
                let task = try await api.waitForCompletion("stalled", 1)

                #expect(task.error == nil)
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                #expect(task.attempts.map(\.outcome) == ["succeeded"])
                let dropped = try await Self.dropped(api, "stalled")
                #expect(dropped.map(\.url) == [stalling])
                #expect(dropped.map(\.reason) == ["tooSlow"])
            }
        }
    }

    @Test func aSourceServingOtherBytesIsRefusedByTheChecksum() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("tampered")
                let good = Self.sources(origin, ["honest"])[0]
                // The same size and ETag, every byte flipped: only the checksum tells.
                let tampered = Self.sources(origin, ["liar"], "&tamper=1")[0]
                let checksum = #", "checksum": {"algorithm": "sha256", "value": "\#(OriginContent.sha256(size: Self.size))"}"#
                _ = try await api.createTask("tampered", url: good, extra: Self.mirrors([tampered]) + checksum)
                let task = try await api.waitForCompletion("tampered", 1)

                #expect(task.error == nil, "\(task.error?.message ?? "")")
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                let dropped = try await Self.dropped(api, "tampered")
                #expect(dropped.map(\.url) == [tampered])
                #expect(dropped.map(\.reason) == ["checksumMismatch"])
            }
        }
    }

    @Test func withoutAChecksumASourceOfAnotherVersionIsDropped() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("versions")
                origin.change("newer")
                let urls = Self.sources(origin, ["older", "newer"])
                _ = try await api.createTask("versions", url: urls[0], extra: Self.mirrors([urls[1]]))
                let task = try await api.waitForCompletion("versions", 1)

                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                let dropped = try await Self.dropped(api, "versions")
                #expect(dropped.map(\.reason) == ["differentContent"])
                #expect(dropped.first?.message?.contains("HTTP 200") == true, "If-Range with the first source's ETag got the whole")
            }
        }
    }

    @Test func aSourceOfAnotherSizeIsDroppedEvenWithAChecksum() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("sizes")
                let good = Self.sources(origin, ["right"])[0]
                let other = origin.url("/files/\(Self.size + 1)?name=bigger&faults=0&bytesPerSecond=1500000")
                let checksum = #", "checksum": {"algorithm": "sha256", "value": "\#(OriginContent.sha256(size: Self.size))"}"#
                _ = try await api.createTask("sizes", url: good, extra: Self.mirrors([other]) + checksum)
                let task = try await api.waitForCompletion("sizes", 1)

                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                let dropped = try await Self.dropped(api, "sizes")
                #expect(dropped.map(\.reason) == ["differentContent"])
                #expect(dropped.first?.message == "It serves \(Self.size + 1) bytes, not \(Self.size).")
            }
        }
    }

    @Test func whenTheFirstSourceFailsTheNextOpensTheAttempt() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("failover")
                let down = origin.url("/status/503")
                let urls = Self.sources(origin, ["up1", "up2"])
                _ = try await api.createTask("failover", url: down, extra: Self.mirrors(urls))
                let task = try await api.waitForCompletion("failover", 1)

                #expect(task.error == nil)
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                let dropped = try await Self.dropped(api, "failover")
                #expect(dropped.map(\.url) == [down])
                #expect(dropped.first?.message == "It answered HTTP 503.")
            }
        }
    }

    /// `kill -9` while three sources fill the file out of order: the next start keeps every range the checkpoint
    /// made durable, asks no source for a byte of them again, and ends with the right bytes.
    @Test func aKilledDownloadResumesAcrossItsSources() async throws {
        let size = 9_000_000
        try await OriginServer.with { origin in
            let dataDirectory = DataDirectories.temporary()
            let first = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { first.stopIfRunning() }
            try await first.api.createSession("killed")
            let urls = ["k1", "k2", "k3"].map { origin.url("/files/\(size)?name=\($0)&faults=0&bytesPerSecond=600000") }
            _ = try await first.api.createTask("killed", url: urls[0], extra: Self.mirrors(Array(urls.dropFirst())))
            let database = TestDatabase(dataDirectory: dataDirectory)
            try await waitUntil(timeout: .seconds(60)) {
                try await !database.texts("SELECT kept_ranges FROM tasks WHERE kept_ranges IS NOT NULL").isEmpty
            }

            try await first.kill()
            let kept = try JSONDecoder().decode([[Int]].self, from: Data(try await database.texts("SELECT kept_ranges FROM tasks")[0].utf8))
            let prefix = try await database.rows("SELECT partial_bytes FROM tasks")[0][0]
            let asked = ["k1", "k2", "k3"].map { origin.ranges($0).count }
            let second = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { second.stopIfRunning() }
            let task = try await second.api.waitForCompletion("killed", 1, timeout: .seconds(120))

            #expect(task.error == nil)
            #expect(task.file?.sha256 == OriginContent.sha256(size: size))
            #expect(try await second.api.resumedAtOffset("killed", 1).fileOffset == Int(prefix))
            #expect(
                try await database.texts("SELECT kept_ranges FROM tasks WHERE kept_ranges IS NOT NULL").isEmpty,
                "forgotten once finished"
            )
            let askedAgain = zip(["k1", "k2", "k3"], asked).flatMap { origin.ranges($0.0).dropFirst($0.1) }
            #expect(!askedAgain.isEmpty)
            for range in askedAgain {
                let start = Int(range?.dropFirst(6).prefix { $0 != "-" } ?? "") ?? -1
                #expect(!kept.contains { ($0[0]..<$0[1]).contains(start) }, "\(range ?? "") asks again for kept bytes \(kept)")
            }
            try await second.terminate()
        }
    }

    @Test(arguments: [
        (#""mirrors": []"#, "`mirrors` must list from 1 to 15 URLs"),
        (#""mirrors": ["ftp://127.0.0.1/f"]"#, "`mirrors[0]` must use the http or https scheme, not `ftp`"),
        (#""mirrors": ["http://127.0.0.1:1/f", "http://127.0.0.1:1/f"]"#, "`mirrors[1]` must differ from `url` and the other mirrors"),
        (#""mirrors": ["http://127.0.0.1:1/f"], "connections": 9"#, "`connections` must be at most 8 with 1 mirrors"),
        (
            #""mirrors": ["http://127.0.0.1:1/f"], "destination": {"storage": "s", "key": "k"}"#,
            "`mirrors` applies to downloads into the data directory only"
        ),
    ])
    func badMirrorsAreRefusedByName(fields: String, detail: String) async throws {
        try await TestService.with { api in
            try await api.createSession("refused")
            let reply = try await api.send(
                .POST,
                "/v1/sessions/refused/tasks",
                json: #"{"kind": "download", "url": "http://127.0.0.1:1/main", \#(fields)}"#
            )
            #expect(reply.status == 400)
            #expect(reply.problem?.detail.hasPrefix(detail) == true, "\(reply.problem?.detail ?? "")")
        }
    }

    @Test func aMirrorIsVettedByTheDestinationPolicy() async throws {
        try await TestService.with(configure: { $0.destinationPolicy = DestinationPolicy() }) { api in
            try await api.createSession("policy")
            let reply = try await api.send(
                .POST,
                "/v1/sessions/policy/tasks",
                json: #"{"kind": "download", "url": "http://93.184.215.14/f", "mirrors": ["http://169.254.169.254/latest/meta-data/"]}"#
            )
            #expect(reply.status == 422)
            #expect(reply.problem?.type == "urn:transferd:problem:destination-not-allowed")
            #expect(reply.problem?.detail.hasPrefix("`mirrors[0]`: ") == true, "\(reply.problem?.detail ?? "")")
        }
    }
}
