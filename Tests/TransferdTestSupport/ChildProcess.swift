import Foundation
import Synchronization
import Testing

/// A child process started with `posix_spawn`: stdin from /dev/null, stdout and stderr into one pipe (or stderr
/// into a second one, `errors`, when asked), an empty
/// signal mask (the test process blocks SIGTERM; its children must not), and no other descriptor of the test
/// process (its sockets are not close-on-exec, and a child holding a test's listening socket would keep the port).
///
/// Its output is read by polling the pipe (``gather(into:)``, ``readAvailable(_:)``), never by a readability handler:
/// that is a dispatch source, which a cancel stops later while the handle closes its descriptor at once, and
/// dispatch's event loop crashed polling the closed (or reused) descriptor (SIGSEGV in `_dispatch_event_loop_drain`).
///
/// Foundation's `Process.run()` crashed in the parallel test run: on Linux it adds a close action for every
/// descriptor number up to the highest one open, and the test process has thousands of sockets. glibc's
/// `posix_spawn_file_actions_addclosefrom_np` does the same in one action.
package final class ChildProcess: Sendable {
    /// Spawns run one at a time, so that no child inherits another's pipe before it is marked close-on-exec.
    private static let spawning = Mutex(())

    package let pid: pid_t
    /// The read end of the child's stdout, and of its stderr unless `errors` has it.
    package let output: FileHandle
    /// The read end of the child's stderr, when it was asked to be kept apart.
    package let errors: FileHandle?
    private let exitStatus = Mutex<Int32?>(nil)

    package init(
        executable: String,
        arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        separateErrors: Bool = false
    ) throws {
        (pid, output, errors) = try Self.spawning.withLock { _ in try Self.spawn(executable, arguments, environment, separateErrors) }
    }

    private static func spawn(
        _ executable: String,
        _ arguments: [String],
        _ environment: [String: String],
        _ separateErrors: Bool
    ) throws -> (pid_t, FileHandle, FileHandle?) {
        var pipeEnds: [Int32] = [0, 0]
        var errorEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0, !separateErrors || pipe(&errorEnds) == 0 else { throw POSIXError(.EMFILE) }
        for end in pipeEnds + errorEnds where end >= 0 { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, separateErrors ? errorEnds[1] : pipeEnds[1], 2)
        guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else { throw POSIXError(.ENOSYS) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(pipeEnds[1])
        if separateErrors { close(errorEnds[1]) }
        guard result == 0 else {
            close(pipeEnds[0])
            if separateErrors { close(errorEnds[0]) }
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .ENOENT)
        }
        let errors = separateErrors ? FileHandle(fileDescriptor: errorEnds[0], closeOnDealloc: true) : nil
        return (pid, FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true), errors)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module does not import.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Reads what `pipe` holds now without waiting (its descriptor is made non-blocking), for a caller that polls:
    /// no dispatch source is registered, so none can outlive the descriptor.
    package static func readAvailable(_ pipe: FileHandle) -> Data {
        let descriptor = pipe.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Appends what the child writes (to stdout and stderr, or stdout alone when `errors` is kept apart) to `output`
    /// as it comes, until the child has exited and the pipe is read to its end; the task returned ends then. It holds
    /// the child, so the pipe stays open while it reads.
    @discardableResult
    package func gather(into output: ProcessOutput) -> Task<Void, Never> {
        Task { [self] in
            while true {
                let running = isRunning
                output.append(Self.readAvailable(self.output))
                guard running else { return }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Runs `executable` to its end (at most `timeout`), reading its output meanwhile so that a full pipe never
    /// stops it; returns its exit status (nil if it still ran) and its output.
    package static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32?, output: String) {
        let process = try ChildProcess(executable: executable, arguments: arguments, environment: environment)
        var output = Data()
        try await waitUntil(timeout: timeout) {
            output.append(readAvailable(process.output))
            return !process.isRunning
        }
        output.append(readAvailable(process.output))
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Whether the child still runs; reaps it once it has exited.
    package var isRunning: Bool {
        exitStatus.withLock { exitStatus in
            guard exitStatus == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { exitStatus = status }
            return result == 0
        }
    }

    /// The exit code, or the signal that ended it; nil while it runs.
    package var terminationStatus: Int32? {
        guard !isRunning, let status = exitStatus.withLock({ $0 }) else { return nil }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Sends `signal` while the child runs.
    package func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }
}
