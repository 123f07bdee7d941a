/// What an upload task sends: a staged file (`{"file": "<id>"}`), or the content of a finished download of the
/// same session (`{"task": <taskIdentifier>}`), which then never passes through the client.
package enum UploadSource: Codable, Sendable, Equatable {
    case file(String)
    case task(Int64)

    private enum CodingKeys: String, CodingKey {
        case file, task
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let file = try container.decodeIfPresent(String.self, forKey: .file) {
            self = .file(file)
        } else {
            self = .task(try container.decode(Int64.self, forKey: .task))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .file(let file): try container.encode(file, forKey: .file)
        case .task(let task): try container.encode(task, forKey: .task)
        }
    }
}
