import AsyncHTTPClient
import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdStorage
import TransferdTestOrigins
import TransferdTestSupport

/// One attempt at a time writes a task's partial file. An attempt whose lease ran out may still be running when
/// another instance takes the task over (its fence runs late on a loaded machine); were both to write, the late one
/// would cut the file back under the other's checkpoint, or leave a hole in it. The new attempt waits for the file.
@Suite struct PartialFileLockTests {
    static let size = 600_000

    /// Reports go nowhere: this suite looks at the partial file, not at the store.
    struct AcceptingReporter: TransferReporter {
        func prepareQueue() async throws {}
        func takeBackExpiredLeases(at now: Date) async throws -> Bool { false }
        func redirected(_ transfer: ActiveTransfer, statusCode: Int, from: String, to: String, followed: Bool) async throws {}
        func sourceDropped(_ transfer: ActiveTransfer, _ dropped: SourceDropped) async throws {}
        func responseReceived(_ transfer: ActiveTransfer, url: String, response: TransferResponse, start: AttemptStart?) async throws {}
        func checkpoint(
            _ transfer: ActiveTransfer,
            received: Int64,
            expected: Int64,
            bytesWritten: Int64,
            partialBytes: Int64,
            keptRanges: KeptRanges?,
            objectUpload: ObjectUploadProgress?
        ) async throws
            -> CheckpointVerdict
        { .proceed }
        func reserve(
            _ transfer: ActiveTransfer,
            for path: StoringPath,
            through needed: Int64,
            asFarAs wanted: Int64
        ) async throws -> ReservationVerdict {
            .granted(through: wanted)
        }
        func objectUploadBegun(_ transfer: ActiveTransfer, objectUpload: ObjectUploadProgress) async throws -> Bool { true }
        func uploadProgress(_ transfer: ActiveTransfer, sent: Int64, expected: Int64, bytesSent: Int64) async throws -> Bool { true }
        func replyKept(_ transfer: ActiveTransfer, reply: StoredReply) async throws {}
        func transferEnded(
            _ transfer: ActiveTransfer,
            outcome: TaskStateMachine.TransferOutcome,
            bytes: Int64,
            release: @escaping @Sendable () -> Void
        ) async throws { release() }
    }

    @Test func anAttemptWaitsForTheFileUntilOneWhoseLeaseRanOutHasStopped() async throws {
        let dataDirectory = DataDirectories.temporary()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let files = try FileStore(dataDirectory: dataDirectory)
        let destinations = DestinationGuard(policy: DestinationPolicy(allowPrivate: true), configuration: HTTPClient.Configuration())
        let environment = TransferEnvironment(
            destinations: destinations,
            files: files,
            reporter: AcceptingReporter(),
            progressInterval: .milliseconds(100),
            clock: SystemClock(),
            bandwidth: BandwidthLimits(maxBytesPerSecond: nil, schedule: nil, clock: SystemClock()),
            vault: CredentialVault(key: CredentialVault.generateKey()),
            objects: ObjectStores(destinations: destinations, clock: SystemClock()) { _, _ in nil }
        )
        let runner = DownloadRunner(environment: environment, disk: DiskSpace(directory: dataDirectory, minimumFreeBytes: 0))
        try await OriginServer.with { origin in
            // setup: an attempt whose request waits for an answer while its lease runs out
            let leaseEnds = ContinuousClock.now + .seconds(1)
            let late = EngineFixtures.transfer(heldFor: .seconds(1))
            async let lateOutcome = runner.run(
                EngineFixtures.job(origin.url("/files/\(Self.size)?name=late&hold=late")),
                EngineFixtures.download,
                transfer: late
            )
            try await waitUntil { origin.arrivals("late").count == 1 }

            // act: the attempt of the instance that takes the task over starts at once
            let next = EngineFixtures.transfer(heldFor: .seconds(60))
            let outcome = await runner.run(
                EngineFixtures.job(origin.url("/files/\(Self.size)?name=next")),
                EngineFixtures.download,
                transfer: next
            )
            #expect(await lateOutcome == .interrupted)
            origin.open(gate: "late")

            // verify: it asked for its bytes only after the late attempt had let go of the file, and the file is whole
            #expect(late.interruption == .leaseLost)
            #expect(try #require(origin.arrivals("next").first) >= leaseEnds, "no request before the late attempt stopped")
            #expect(
                outcome
                    == .succeeded(
                        StoredFile(
                            size: Int64(Self.size),
                            sha256: OriginContent.sha256(size: Self.size),
                            contentType: "application/octet-stream"
                        )
                    )
            )
            let written = try Data(contentsOf: URL(fileURLWithPath: files.partialPath(taskID: 1)))
            #expect(OriginContent.sha256(of: written) == OriginContent.sha256(size: Self.size))
        }
        try await destinations.shutdown()
    }
}
