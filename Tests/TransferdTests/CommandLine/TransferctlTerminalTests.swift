import Foundation
import Testing
import TransferdDomain
import TransferdTestOrigins

/// `transferctl` as a person sees it: in a pseudo-terminal (tmux), where progress bars redraw in place, colors
/// follow `NO_COLOR`, tables fit the terminal's width, and `watch` keeps a live table until Ctrl-C.
@Suite struct TransferctlTerminalTests {
    /// A shell command line that runs transferctl against `api` with `arguments`, and `variables` set.
    static func command(_ api: APIClient, _ arguments: String, variables: String = "") -> String {
        "env TRANSFERD_URL=\(api.baseURL) TRANSFERD_API_KEY=\(api.key ?? "") \(variables) \(TransferctlProcess.path) \(arguments)"
    }

    @Test func aProgressBarMovesAndEndsAt100Percent() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                let size = 4_000_000
                let directory = try TransferctlTests.outputDirectory()
                let url = origin.url("/files/\(size)?name=bar&bytesPerSecond=1000000")
                try await TerminalSession.with(Self.command(api, "get '\(url)' -O"), width: 120, directory: directory) { terminal in
                    // verify: a bar part of the way, with its figures, on one line drawn in place
                    let moving = try await terminal.waitForScreen { screen in
                        screen.contains("[==") && screen.contains("ETA") && !screen.contains("100%")
                    }
                    #expect(moving.split(separator: "\n").filter { $0.contains("transferctl/1") }.count == 1, "\(moving)")
                    #expect(moving.contains("iB/s"), "a rate")

                    // verify: at the end, the same line full, at 100 %, and the file saved under the URL's name
                    #expect(try await terminal.exitStatus() == 0)
                    let done = try await terminal.screen()
                    let line = try #require(done.split(separator: "\n").first { $0.contains("transferctl/1") })
                    #expect(line.contains("[====================] 100% 3.8 MiB ✔ completed"), "\(done)")
                    #expect(done.split(separator: "\n").filter { $0.contains("transferctl/1") }.count == 1, "\(done)")
                    let saved = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(size)"))
                    #expect(OriginContent.sha256(of: saved) == OriginContent.sha256(size: size))
                }
            }
        }
    }

    @Test func colorsFollowNoColorAndTablesFitTheWidth() async throws {
        try await TestService.with { api in
            try await api.createSession("wide")
            let long = "http://127.0.0.1:9/" + String(repeating: "a-very-long-path/", count: 10) + "file.bin"
            _ = try await api.createTask("wide", url: long, extra: #", "start": false"#)

            let colored = try await TerminalSession.with(Self.command(api, "ls -s wide"), width: 60) { terminal in
                _ = try await terminal.exitStatus()
                return try await terminal.screen(colors: true)
            }
            let plain = try await TerminalSession.with(Self.command(api, "ls -s wide", variables: "NO_COLOR=1"), width: 60) { terminal in
                _ = try await terminal.exitStatus()
                return try await terminal.screen(colors: true)
            }

            #expect(colored.contains("\u{1B}["), "colors on a terminal")
            #expect(!plain.contains("\u{1B}["), "no colors with NO_COLOR: \(plain)")
            let rows = plain.split(separator: "\n").filter { $0.contains("suspended") }
            #expect(rows.count == 1)
            #expect(rows.allSatisfy { $0.count <= 60 && $0.contains("…") && $0.hasSuffix("file.bin") }, "\(plain)")
        }
    }

    @Test func watchRedrawsALiveTableUntilControlC() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("watched")
                try await TerminalSession.with(Self.command(api, "watch"), width: 140, height: 20) { terminal in
                    try await terminal.waitForScreen { $0.contains("TASK") && $0.contains("STATE") }

                    // act: a download starts, and finishes when the test lets it, while the table is shown (on PostgreSQL
                    // the tenant's events come once older transactions, other tests' too, have ended)
                    _ = try await api.createTask("watched", url: origin.url("/gated/watched/1000000"))
                    let running = try await terminal.waitForScreen { $0.contains("watched/1") && $0.contains("running") }
                    origin.open(gate: "watched")
                    try await terminal.waitForScreen { $0.contains("watched/1") && $0.contains("completed") }
                    try await terminal.send(keys: "C-c")

                    // verify: one row per task (drawn in place, not appended), and a clean exit
                    #expect(running.split(separator: "\n").filter { $0.contains("watched/1") }.count == 1, "\(running)")
                    #expect(try await terminal.exitStatus() == 0)
                    let last = try await terminal.screen()
                    #expect(last.split(separator: "\n").filter { $0.contains("watched/1") }.count == 1, "\(last)")
                    #expect(last.split(separator: "\n").filter { $0.contains("TASK") }.count == 1, "\(last)")
                }
            }
        }
    }

    @Test func eventsFollowPrintsEachNewEventAsJSONUntilInterrupted() async throws {
        try await TestService.with { api in
            try await api.createSession("followed")
            try await TerminalSession.with(Self.command(api, "events -s followed --follow --json"), width: 500) { terminal in
                // act: events written while it follows
                for name in ["a", "b"] {
                    _ = try await api.createTask("followed", url: "http://127.0.0.1:9/\(name)", extra: #", "start": false"#)
                }
                let screen = try await terminal.waitForScreen { $0.components(separatedBy: "task.created").count == 3 }
                try await terminal.send(keys: "C-c")

                // verify: one event's JSON per line, in order
                let lines = screen.split(separator: "\n").filter { $0.hasPrefix("{") }
                let events = try lines.map { try JSONCoding.decoder.decode(EventView.self, from: Data($0.utf8)) }
                #expect(events.map(\.sequence) == [1, 2])
                #expect(events.map(\.taskIdentifier) == [1, 2])
                #expect(try await terminal.exitStatus() == 0, "Ctrl-C stops following")
            }
        }
    }

    /// `sessions rm` asks before it deletes: "n" keeps the session, "y" deletes it; without a terminal to ask on it
    /// refuses unless given `--yes`.
    @Test func removingASessionAsksFirst() async throws {
        try await TestService.with { api in
            for session in ["kept", "gone", "scripted"] { try await api.createSession(session) }
            for (session, answer) in [("kept", "n"), ("gone", "y")] {
                try await TerminalSession.with(Self.command(api, "sessions rm \(session)"), width: 120) { terminal in
                    _ = try await terminal.waitForScreen { $0.contains("[y/N]") }
                    try await terminal.send(keys: answer)
                    try await terminal.send(keys: "Enter")
                    #expect(try await terminal.exitStatus() == 0)
                    #expect(try await terminal.screen().contains(answer == "y" ? "\(session): deleted" : "\(session): kept"))
                }
            }
            #expect(try await api.send(.GET, "/v1/sessions/kept").status == 200)
            #expect(try await api.send(.GET, "/v1/sessions/gone").status == 404)

            let unasked = try await TransferctlProcess.run("sessions", "rm", "scripted", api: api)
            #expect(unasked.status == 64 && unasked.errors.contains("--yes"), "\(unasked.errors)")
            #expect(try await api.send(.GET, "/v1/sessions/scripted").status == 200)
            let confirmed = try await TransferctlProcess.run("sessions", "rm", "scripted", "--yes", api: api)
            #expect(confirmed.status == 0 && confirmed.output == "scripted: deleted\n", "\(confirmed.errors)")
            #expect(try await api.send(.GET, "/v1/sessions/scripted").status == 404)
        }
    }
}
