import Foundation
import Testing
import TransferdTestSupport
import Yams

/// The configuration reference (`docs/configuration.md`) and the real `transferd`'s `--help` agree both ways: each
/// command with options has a section headed `` `transferd …` ``, every option and argument its `--help` lists has a
/// row there, every row names one it has, and every environment variable its help names is in its section.
@Suite struct ConfigurationReferenceTests {
    /// `transferd`, built beside the tests.
    static let transferd = URL(fileURLWithPath: TransferctlProcess.path).deletingLastPathComponent().appendingPathComponent("transferd")
        .path

    @Test func everyOptionOfEveryCommandHasARowAndEveryRowAnOption() async throws {
        let reference = try MarkdownDocument.named("docs/configuration.md")
        let commands = try await Self.commands(["transferd"])
        var checked = 0
        for (command, help) in commands {
            let heading = "`\(command.joined(separator: " "))`"
            let listed = help.options.union(help.arguments)
            guard !listed.isEmpty else { continue }
            let documented = Self.documented(under: heading, in: reference)
            #expect(!documented.isEmpty, "docs/configuration.md has no section \(heading) with a table of its options")
            #expect(
                listed.subtracting(documented).isEmpty,
                "\(heading): in --help but without a row: \(listed.subtracting(documented).sorted())"
            )
            #expect(
                documented.subtracting(listed).isEmpty,
                "\(heading): a row but not in --help: \(documented.subtracting(listed).sorted())"
            )
            let section = reference.section(heading).joined(separator: "\n")
            let inherited = Self.inheritedSection(of: section, in: reference)
            for variable in help.environment where !section.contains(variable) && !inherited.contains(variable) {
                Issue.record("\(heading): --help names \(variable), which its section does not")
            }
            checked += listed.count
        }
        #expect(checked > 60, "only \(checked) options were compared")
    }

    /// The deployment examples (the Dockerfile, `compose.yaml`, the Kubernetes manifests) set only variables that
    /// transferd reads: a misspelt one would be ignored without a word.
    @Test func theDeploymentExamplesSetOnlyDocumentedVariables() throws {
        let reference = try String(contentsOf: MarkdownDocument.repository.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let manifests = try FileManager.default.subpathsOfDirectory(
            atPath: MarkdownDocument.repository.appendingPathComponent("deploy/kubernetes").path
        )
        .filter { $0.hasSuffix(".yaml") }.map { "deploy/kubernetes/\($0)" }
        var named = 0
        for path in ["Dockerfile", "compose.yaml"] + manifests {
            let text = try String(contentsOf: MarkdownDocument.repository.appendingPathComponent(path), encoding: .utf8)
            for variable in Set(text.matches(of: /(TRANSFERD|OTEL)_[A-Z_]+/).map { String($0.output.0) }) {
                named += 1
                #expect(reference.contains(variable), "\(path) sets \(variable), which docs/configuration.md does not name")
            }
        }
        #expect(named > 15, "only \(named) variables were found")
    }

    @Test func theSessionConfigurationTableHasEveryFieldOfTheSpecAndNoOther() throws {
        let reference = try MarkdownDocument.named("docs/configuration.md")
        let documented = Set(
            reference.tableRows(under: "A session's configuration").compactMap(\.first).flatMap { cell in
                cell.matches(of: /`([a-zA-Z]+)`/).map { String($0.output.1) }
            }
        )
        let spec = try #require(try Yams.load(yaml: String(contentsOf: OpenAPIContractTests.specURL, encoding: .utf8)) as? [String: Any])
        let schemas = try #require((spec["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let configuration = try #require((schemas["SessionConfiguration"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(
            Set(configuration.keys) == documented,
            "spec only: \(Set(configuration.keys).subtracting(documented)), page only: \(documented.subtracting(configuration.keys))"
        )
    }

    /// What one command's `--help` lists.
    struct Help {
        var options: Set<String> = []
        var arguments: Set<String> = []
        var subcommands: [String] = []
        var environment: Set<String> = []
    }

    /// Reads `--help` of `command` and of each of its subcommands, depth first.
    static func commands(_ command: [String]) async throws -> [(command: [String], help: Help)] {
        let (status, output) = try await ChildProcess.run(transferd, Array(command.dropFirst()) + ["--help"])
        #expect(status == 0, "\(command.joined(separator: " ")) --help exited with \(String(describing: status))")
        let help = parse(output)
        var result = [(command, help)]
        for subcommand in help.subcommands {
            result += try await commands(command + [subcommand])
        }
        return result
    }

    /// Reads swift-argument-parser's help: the `OPTIONS:`, `ARGUMENTS:` and `SUBCOMMANDS:` sections' entries (each
    /// on a line indented by two spaces; descriptions continue further in), and the `TRANSFERD_*` variables named.
    static func parse(_ output: String) -> Help {
        var help = Help()
        var section = ""
        for line in output.components(separatedBy: "\n") {
            if let title = line.wholeMatch(of: /([A-Z]+):.*/)?.output.1 {
                section = String(title)
                continue
            }
            switch section {
            case "OPTIONS":
                for option in line.matches(of: /^  (?:-[a-zA-Z], )?(--[a-z0-9-]+)/) where option.output.1 != "--help" {
                    help.options.insert(String(option.output.1))
                }
            case "ARGUMENTS":
                if let argument = line.firstMatch(of: /^  (<[a-z-]+>)/) { help.arguments.insert(String(argument.output.1)) }
            case "SUBCOMMANDS":
                if let subcommand = line.firstMatch(of: /^  ([a-z][a-z-]*)/) { help.subcommands.append(String(subcommand.output.1)) }
            default:
                break
            }
        }
        help.environment = Set(output.matches(of: /TRANSFERD_[A-Z_]+/).map { String($0.output) })
        return help
    }

    /// The options and arguments in the first column of the tables under `heading`, with those of a command whose
    /// options the section says it takes ("every option of `transferd serve`").
    static func documented(under heading: String, in reference: MarkdownDocument) -> Set<String> {
        var documented: Set<String> = []
        for row in reference.tableRows(under: heading) {
            guard let first = row.first else { continue }
            for name in first.matches(of: /`(--[a-z0-9-]+|<[a-z-]+>)`/) { documented.insert(String(name.output.1)) }
        }
        let section = reference.section(heading).joined(separator: "\n")
        if let inherited = section.firstMatch(of: /every option of\s+\[?(`transferd [a-z -]+`)/)?.output.1 {
            documented.formUnion(Self.documented(under: String(inherited), in: reference))
        }
        return documented
    }

    /// The text of the section whose options `section` says it takes, or nothing.
    static func inheritedSection(of section: String, in reference: MarkdownDocument) -> String {
        guard let inherited = section.firstMatch(of: /every option of\s+\[?(`transferd [a-z -]+`)/)?.output.1 else { return "" }
        return reference.section(String(inherited)).joined(separator: "\n")
    }

    @Test func helpIsReadAsSwiftArgumentParserWritesIt() {
        let help = Self.parse(
            """
            OVERVIEW: Manage API keys.

            USAGE: transferd keys revoke [--data-dir <data-dir>] <id>

            ARGUMENTS:
              <id>                    The key's id (the part after trd_).

            OPTIONS:
              --data-dir <data-dir>   Directory of the database (env TRANSFERD_DATA_DIR).
                                      --not-an-option continues the text.
              -h, --help              Show help information.

            SUBCOMMANDS:
              create                  Create a key.

              See 'transferd help keys <subcommand>' for detailed help.
            """
        )
        #expect(help.options == ["--data-dir"])
        #expect(help.arguments == ["<id>"])
        #expect(help.subcommands == ["create"])
        #expect(help.environment == ["TRANSFERD_DATA_DIR"])
    }
}
