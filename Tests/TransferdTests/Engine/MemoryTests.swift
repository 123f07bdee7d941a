import Foundation
import Testing
import TransferdTestOrigins

/// A download streams through a bounded buffer: its size does not show in the service's memory.
@Suite struct MemoryTests {
    static let size = 64 << 20

    @Test func a64MiBDownloadDoesNotRaiseTheServicesMemoryByItsSize() async throws {
        try await OriginServer.with { origin in
            let service = try await ServiceProcess.start(dataDirectory: DataDirectories.temporary())
            defer { service.stopIfRunning() }
            let api = service.api
            try await api.createSession("memory")
            // warm up: pools, caches and the first connection exist before the baseline is taken
            _ = try await api.createTask("memory", url: origin.url("/files/1048576"))
            try await api.waitForCompletion("memory", 1)
            let baseline = service.residentBytes

            _ = try await api.createTask("memory", url: origin.url("/files/\(Self.size)"))
            var peak = baseline
            try await waitUntil(timeout: .seconds(120)) {
                peak = max(peak, service.residentBytes)
                return try await api.task("memory", 2).state == "completed"
            }
            let task = try await api.task("memory", 2)
            try await service.terminate()

            #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
            let growth = peak - baseline
            print("64 MiB download: resident memory \(baseline >> 10) KiB before, peak \(peak >> 10) KiB, growth \(growth >> 10) KiB")
            #expect(growth < 16 << 20, "resident memory grew by \(growth >> 10) KiB")
        }
    }
}
