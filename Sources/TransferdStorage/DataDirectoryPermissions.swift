import Foundation

/// The data directory holds sealed credentials, the database and every transferred byte: only the service's user
/// may read it. The process's umask makes what it creates private (files 0600, directories 0700), and a directory
/// made by an earlier version is closed at start: the directory itself, and what lies at its top (the database and
/// its journal files, the credentials key, the task and file folders).
package enum DataDirectoryPermissions {
    /// Sets the umask to 077, creates `path` if missing, and closes it and its top entries to everyone but the owner.
    package static func restrict(_ path: String) throws {
        umask(0o077)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard chmod(path, 0o700) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM) }
        for entry in try FileManager.default.contentsOfDirectory(atPath: path) {
            let full = path + "/" + entry
            var status = stat()
            guard lstat(full, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: _ = chmod(full, 0o700)
            case S_IFREG: _ = chmod(full, 0o600)
            default: break  // a symbolic link or socket is left as it is
            }
        }
    }
}
