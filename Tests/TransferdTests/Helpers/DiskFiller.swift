import Foundation

/// A file that takes a file system's space from behind the service's back, as another program on the same disk would;
/// removed to give the space back.
struct DiskFiller {
    let path: String

    /// Bytes free on the file system that holds `path`.
    static func freeBytes(at directory: String) -> Int64 {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Grows the file until `free` bytes are left (0: until the file system is full).
    func leave(_ free: Int64) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        let block = Data(count: 1 << 20)
        while Self.freeBytes(at: directory) > free {
            let chunk = block.prefix(Int(min(Int64(block.count), max(4096, Self.freeBytes(at: directory) - free))))
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                return  // the file system is full
            }
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
