import Foundation

/// What a ``YearOfHistoryTests`` run keeps in its directory, so that a later run goes on from the last day it
/// reached (a year takes hours): the service's data directory, what the setup chose (when the first day began, the
/// origin's and the receiver's ports, which the sessions name), and the curve so far (`curve.tsv`, a line a day). A
/// file named `stop` there stops a run after its day; a run stopped otherwise leaves a day begun, whose copies the next
/// run discards.
struct YearOfHistorySimulation {
    struct Saved: Codable {
        var start: Date
        var originPort: Int
        var receiverPort: Int
    }

    let directory: String
    /// What the setup chose; nil before the setup.
    let saved: Saved?
    /// The days simulated so far.
    let daysDone: Int

    var dataDirectory: String { directory + "/data" }
    private var state: String { directory + "/simulation.json" }
    private var curve: String { directory + "/curve.tsv" }

    /// The clock's time to go on from: the end of the last day simulated, or 2026-01-01T00:00:00Z before the setup.
    var now: Date {
        saved.map { $0.start.addingTimeInterval(Double(daysDone) * 86_400) } ?? Date(timeIntervalSince1970: 1_767_225_600)
    }

    init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        let saved = try FileManager.default.contents(atPath: directory + "/simulation.json").map {
            try JSONDecoder().decode(Saved.self, from: $0)
        }
        // A run that stopped in its setup left a data directory and nothing to go on from.
        if saved == nil, FileManager.default.fileExists(atPath: directory + "/data") {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: directory + "/data"])
        }
        self.saved = saved
        daysDone = saved == nil ? 0 : try Self.lines(of: directory + "/curve.tsv").count
    }

    /// Whether a file named `stop` in the directory asks the run to stop after the day it is simulating.
    var isAskedToStop: Bool { FileManager.default.fileExists(atPath: directory + "/stop") }

    /// Keeps what the setup chose, and begins the curve.
    func save(_ saved: Saved) throws {
        try JSONEncoder().encode(saved).write(to: URL(fileURLWithPath: state))
        try Data("day\tbytes\ttasks\tevents\tdeliveries\tcopying s\tday's passes s\n".utf8).write(to: URL(fileURLWithPath: curve))
    }

    /// Adds a day's line to the curve, and prints it.
    func record(day: Int, _ line: String) throws {
        print("\(day)\t\(line)")
        guard let handle = FileHandle(forWritingAtPath: curve) else { throw CocoaError(.fileNoSuchFile) }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\(day)\t\(line)\n".utf8))
    }

    /// The database's size at the end of each day so far, from the first.
    func sizes() throws -> [Int64] {
        try Self.lines(of: curve).map { Int64($0.split(separator: "\t")[1]) ?? 0 }
    }

    /// The curve's lines after its header.
    private static func lines(of curve: String) throws -> [Substring] {
        let text = String(decoding: FileManager.default.contents(atPath: curve) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").dropFirst().map { $0 }
    }
}
