import Foundation
import Logging
import Synchronization
import TransferdDomain
import TransferdJSON

/// `--log-format json`: one JSON object a line on standard error, for log collectors: `time`, `level`, `label`,
/// `message`, and the metadata (the request, tenant, session and task ids where they apply) as members of their
/// own. Metadata that is not a string is written as its description.
package struct JSONLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private static let output = Mutex(FileHandle.standardError)

    package init(label: String, metadataProvider: Logger.MetadataProvider?) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// One line as a log collector reads it.
    struct Line: Encodable {
        var time: Date
        var level: String
        var label: String
        var message: String
        var metadata: [String: String]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: MemberKey.self)
            try container.encode(time, forKey: MemberKey(stringValue: "time"))
            try container.encode(level, forKey: MemberKey(stringValue: "level"))
            try container.encode(label, forKey: MemberKey(stringValue: "label"))
            try container.encode(message, forKey: MemberKey(stringValue: "message"))
            for (name, value) in metadata.sorted(by: { $0.key < $1.key }) where !["time", "level", "label", "message"].contains(name) {
                try container.encode(value, forKey: MemberKey(stringValue: name))
            }
        }
    }

    package func log(event: LogEvent) {
        let provided = metadataProvider?.get() ?? [:]
        let merged = metadata.merging(provided) { $1 }.merging(event.metadata ?? [:]) { $1 }
        let line = Line(
            time: Date(),
            level: event.level.rawValue,
            label: label,
            message: event.message.description,
            metadata: merged.mapValues(Self.text)
        )
        guard var bytes = try? JSONCoding.encoder.encode(line) else { return }
        bytes.append(UInt8(ascii: "\n"))
        Self.output.withLock { $0.write(Data(bytes)) }
    }

    private static func text(_ value: Logger.Metadata.Value) -> String {
        if case .string(let text) = value { return text }
        return value.description
    }
}
