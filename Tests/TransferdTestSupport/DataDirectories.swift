import Foundation

/// Data directories for tests: each test's own, under one directory per test run.
package enum DataDirectories {
    /// A fresh, empty data directory, in this run's directory.
    package static func temporary() -> String {
        let path = (runDirectory as NSString).appendingPathComponent("transferd-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The directory of this test run's data directories, named by its process. As it is first used, the directories
    /// of runs whose process has exited go: a run leaves its own to the processes it started, which may still write,
    /// and runs had left tens of gigabytes behind.
    package static let runDirectory: String = {
        let runs = FileManager.default.temporaryDirectory.appendingPathComponent("transferd-tests")
        let own = ProcessInfo.processInfo.processIdentifier
        for name in (try? FileManager.default.contentsOfDirectory(atPath: runs.path)) ?? [] {
            guard let process = Int32(name), process != own, kill(process, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: runs.appendingPathComponent(name))
        }
        let path = runs.appendingPathComponent(String(own)).path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
}
