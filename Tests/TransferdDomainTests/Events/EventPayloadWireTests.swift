import Foundation
import Testing
import TransferdDomain
import TransferdJSON

/// Events as data-carrying payloads keep the wire of the flat `EventData` they replaced: the `data` of each event
/// type, recorded from the service before the change, reads back and writes out byte for byte, and the payloads the
/// service builds write the same bytes.
@Suite struct EventPayloadWireTests {
    /// `(type, data)` as the flat `EventData` wrote them (`JSONCoding.encoder`), one or two shapes of every type:
    /// `recorded-events.tsv`, a line each (`webhook.disabled` and `task.source_dropped`, types added since, as the service first wrote them).
    static let recorded: [(type: String, data: String)] = {
        let url = Bundle.module.url(forResource: "recorded-events", withExtension: "tsv")!
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", maxSplits: 1)
            return (String(fields[0]), String(fields[1]))
        }
    }()

    @Test func everyTypeIsRecorded() {
        #expect(Set(Self.recorded.map(\.type)) == Set(EventType.allCases.map(\.rawValue)))
    }

    @Test(arguments: Self.recorded.indices)
    func recordedDataReadsBackAndWritesTheSameBytes(index: Int) throws {
        let (type, data) = Self.recorded[index]
        let eventType = try #require(EventType(rawValue: type))
        let payload = try EventPayload(type: eventType, json: Data(data.utf8), decoder: JSONCoding.decoder)
        #expect(payload.type == eventType)
        #expect(String(decoding: try JSONCoding.encoder.encode(payload), as: UTF8.self) == data)
    }

    @Test func payloadsTheServiceBuildsWriteTheRecordedBytes() throws {
        let samples = Self.samples()
        #expect(samples.map(\.type.rawValue) == Self.recorded.map(\.type))
        for (sample, recorded) in zip(samples, Self.recorded) {
            let data = String(decoding: try JSONCoding.encoder.encode(sample), as: UTF8.self)
            #expect(data == recorded.data, "\(recorded.type)")
        }
    }

    /// The values the recording was made from, built the way the service builds them.
    static func samples() -> [EventPayload] {
        let t0 = Date(timeIntervalSince1970: 1_795_000_000.123)
        let file = StoredFile(size: 300000, sha256: String(repeating: "ab", count: 32), contentType: "application/octet-stream")
        var metrics = TaskMetrics()
        var transaction = TransactionMetrics(attempt: 1, url: "http://127.0.0.1:8080/file", method: "GET", fetchStartDate: t0)
        transaction.statusCode = 200
        transaction.responseEndDate = t0.addingTimeInterval(0.5)
        transaction.countOfResponseBodyBytesReceived = 300000
        (transaction.remoteAddress, transaction.remotePort) = ("127.0.0.1", 8080)
        (transaction.networkProtocolName, transaction.isReusedConnection) = ("http/1.1", false)
        metrics.transactionMetrics = [transaction]
        metrics.complete(startedAt: t0, completedAt: t0.addingTimeInterval(0.6))
        let space = ProtectionSpace(authenticationMethod: "Basic", realm: "files", host: "127.0.0.1", port: 8080, isProxy: false)
        let expiresAt = t0.addingTimeInterval(300)
        let challenge = AuthenticationChallenge(protectionSpace: space, previousFailureCount: 1, issuedAt: t0, expiresAt: expiresAt)
        let background = BackgroundTask(publicID: "bt_1", sessionID: 1, name: "sync", duration: 30, cap: 600, expirationWarning: 5, now: t0)
        let version = FetchVersion(
            taskIdentifier: 2,
            sha256: String(repeating: "ab", count: 32),
            size: 10,
            etag: "\"v2\"",
            lastModified: "Wed, 15 Nov 2023 01:00:00 GMT",
            fetchedAt: t0
        )
        var cancelled = TransferError(code: .cancelled, message: "cancelled")
        cancelled.resumeData = "token"
        return [
            .taskCreated(StateChange(.suspended)),
            .taskResumed(StateChange(.running)),
            .taskSuspended(StateChange(.suspended)),
            .taskWaitingForConnectivity,
            .taskResumedAtOffset(ResumedAtOffset(totalBytesExpectedToWrite: 300000, fileOffset: 4096, restartReason: nil)),
            .taskResumedAtOffset(ResumedAtOffset(totalBytesExpectedToWrite: -1, fileOffset: 0, restartReason: .validatorChanged)),
            .taskRedirected(Redirection(statusCode: 302, from: "http://u:p@127.0.0.1:1/a", to: "http://127.0.0.1:2/b", followed: true)),
            .taskAuthenticationChallenge(ChallengeIssued(challenge)),
            .taskProgress(DownloadProgress(bytesWritten: 1000, totalBytesWritten: 5000, totalBytesExpectedToWrite: -1)),
            .taskUploadProgress(UploadProgress(bytesSent: 100, totalBytesSent: 200, totalBytesExpectedToSend: 300)),
            .taskContentExpired(ContentExpired(file: file)),
            .taskContentExpired(ContentExpired(file: nil)),
            .taskFinishedDownloading(FinishedDownloading(file: file, taskIdentifier: 1)),
            .taskCompleted(Completion(error: nil, metrics: metrics)),
            .taskCompleted(Completion(error: cancelled, metrics: nil)),
            .sessionEventsFinished,
            .sessionInvalidated,
            .backgroundTaskExpiring(BackgroundTaskTime(background, at: t0.addingTimeInterval(25))),
            .backgroundTaskExpired(BackgroundTaskTime(background, at: t0.addingTimeInterval(40))),
            .backgroundTaskCompleted(BackgroundTaskTime(background, at: t0.addingTimeInterval(10))),
            .webhookTest,
            .webhookDisabled(WebhookDisabled(reason: "The subscriber answered 410 Gone.")),
            .fetchPerformed(FetchPerformed(fetchId: "fetch_1", result: .noData, taskIdentifier: 3, latest: version)),
            .fetchPerformed(FetchPerformed(fetchId: "fetch_1", result: .failed, taskIdentifier: nil, latest: nil)),
            .taskSourceDropped(SourceDropped(url: "http://u:p@127.0.0.1:3/m", reason: .checksumMismatch, message: "Its bytes differed.")),
        ]
    }
}
