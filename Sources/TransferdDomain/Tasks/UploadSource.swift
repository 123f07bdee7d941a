/// What an upload task sends: a staged file (`{"file": "<id>"}`), the content of a finished download of the same
/// session (`{"task": <taskIdentifier>}`), which then never passes through the client, or an object of one of the
/// tenant's stores (`{"storage": "name", "key": "path/in/bucket"}`), streamed from the bucket.
package enum UploadSource: Codable, Sendable, Equatable {
    case file(String)
    case task(Int64)
    case object(ObjectLocation)

    private enum CodingKeys: String, CodingKey {
        case file, task, storage, key
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let file = try container.decodeIfPresent(String.self, forKey: .file) {
            self = .file(file)
        } else if let storage = try container.decodeIfPresent(String.self, forKey: .storage) {
            self = .object(ObjectLocation(storage: storage, key: try container.decode(ObjectKey.self, forKey: .key)))
        } else {
            self = .task(try container.decode(Int64.self, forKey: .task))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .file(let file): try container.encode(file, forKey: .file)
        case .task(let task): try container.encode(task, forKey: .task)
        case .object(let location):
            try container.encode(location.storage, forKey: .storage)
            try container.encode(location.key, forKey: .key)
        }
    }
}
