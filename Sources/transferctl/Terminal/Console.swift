import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and error as the commands use them: whether output goes to a terminal, how wide it is, and
/// one-line messages on standard error.
enum Console {
    /// Whether standard output is a terminal (people), rather than a pipe or a file (scripts).
    static let isTerminal = isatty(STDOUT_FILENO) == 1

    /// The terminal's width in columns; nil when output is not a terminal (lines are then not cut).
    static var width: Int? {
        guard isTerminal else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
    }

    /// The terminal's height in lines; nil when output is not a terminal.
    static var terminalHeight: Int? {
        guard isTerminal else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 { return Int(size.ws_row) }
        return ProcessInfo.processInfo.environment["LINES"].flatMap(Int.init)
    }

    /// Writes `text` to standard output at once.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `line` and a newline to standard output.
    static func line(_ line: String = "") {
        write(line + "\n")
    }

    /// `text` from someone else (a subscriber's reply) made safe to print on one line: every control character,
    /// escape sequences' ESC included, shows as `�`, so that it can neither move the cursor nor restyle the terminal.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 }))
    }

    /// Writes `message` to standard error as `transferctl: message`.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("transferctl: \(message)\n".utf8))
    }
}
