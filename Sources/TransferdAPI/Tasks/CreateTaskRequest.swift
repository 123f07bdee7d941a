import Foundation
import TransferdDomain

/// The body of `POST …/tasks`; every field is checked by hand so that each problem names its field.
struct CreateTaskRequest: Decodable {
    /// `checksum` as given.
    struct ChecksumRequest: Decodable {
        var algorithm: String?
        var value: String?

        func validate() throws(DomainError) -> Checksum {
            let algorithms = Checksum.Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
            guard let name = algorithm, let algorithm = Checksum.Algorithm(rawValue: name) else {
                throw .invalidField("checksum.algorithm", requirement: "must be one of \(algorithms)")
            }
            let hex = value?.lowercased() ?? ""
            guard hex.count == algorithm.hexLength, hex.allSatisfy(\.isHexDigit) else {
                throw .invalidField(
                    "checksum.value",
                    requirement: "must be \(algorithm.hexLength) hexadecimal digits for \(algorithm.rawValue)"
                )
            }
            return Checksum(algorithm: algorithm, value: hex)
        }
    }

    /// An upload's `from`: exactly one of `file` and `task`.
    struct FromRequest: Decodable {
        var file: String?
        var task: Int64?
        var storage: String?
        var key: String?

        func validate() throws(DomainError) -> UploadSource {
            switch (file, task, storage) {
            case (.some(let file), nil, nil):
                return .file(try ClientIdentifier.validate(file, field: "from.file"))
            case (nil, .some(let task), nil) where task > 0:
                return .task(task)
            case (nil, .some, nil):
                throw .invalidField("from.task", requirement: "must be a positive task identifier")
            case (nil, nil, .some(let storage)):
                try ObjectStorage.validateName(storage, field: "from.storage")
                guard let key else { throw .badRequest("`from.key` is required with `from.storage`.") }
                return .object(ObjectLocation(storage: storage, key: try ObjectKey(key, field: "from.key")))
            default:
                throw .invalidField("from", requirement: "must have exactly one of `file`, `task` and `storage` (with `key`)")
            }
        }
    }

    /// A download's `destination`: an object of one of the tenant's stores.
    struct DestinationRequest: Decodable {
        var storage: String?
        var key: String?

        func validate() throws(DomainError) -> ObjectLocation {
            guard let storage else { throw .badRequest("`destination.storage` is required.") }
            try ObjectStorage.validateName(storage, field: "destination.storage")
            guard let key else { throw .badRequest("`destination.key` is required.") }
            return ObjectLocation(storage: storage, key: try ObjectKey(key, field: "destination.key"))
        }
    }

    /// An upload's `multipart`, as given.
    struct MultipartRequest: Decodable {
        var field: String?
        var filename: String?
        var fields: [String: String]?

        func validate() throws(DomainError) -> MultipartForm {
            try MultipartForm(validating: field, filename: filename, fields: fields)
        }
    }

    static let uploadMethods: Set<String> = ["PUT", "POST", "PATCH"]
    /// The most sources a download may name: its URL and 15 mirrors.
    static let maximumSources = 16

    var kind: String?
    var url: String?
    var method: String?
    var headers: [String: String]?
    var taskDescription: String?
    var priority: Double?
    var start: Bool?
    var checksum: ChecksumRequest?
    var earliestBeginDate: Date?
    var connections: Int?
    var mirrors: [String]?
    var maxBytesPerSecond: Int64?
    var maxBytes: Int64?
    var redirectPolicy: RedirectPolicy?
    var resumeData: String?
    var from: FromRequest?
    var multipart: MultipartRequest?
    var backgroundTask: String?
    var destination: DestinationRequest?

    /// The task to create; with `resumeData` the URL comes from the token (a `url` given must match).
    func validate(resumeData: ResumeData? = nil) throws(DomainError) -> NewTask {
        guard let kindText = kind else { throw .badRequest("`kind` is required.") }
        guard let kind = TransferTask.Kind(rawValue: kindText) else {
            throw .invalidField(
                "kind",
                requirement: "must be one of \(TransferTask.Kind.allCases.map(\.rawValue).joined(separator: ", ")), not `\(kindText)`"
            )
        }
        // Resume data carries no password: a URL given with one (to resume with it) is the same URL.
        if let resumeData, let url, Redaction.withoutPassword(url) != resumeData.url {
            throw .invalidField("url", requirement: "must be the resume data's URL (\(resumeData.url)) or be left out")
        }
        guard let url = url ?? resumeData?.url else { throw .badRequest("`url` is required.") }
        let destination = try Self.destination(url)
        let priority = priority ?? 0.5
        try TaskFieldValidation.validatePriority(priority)
        if let taskDescription { try TaskFieldValidation.validateDescription(taskDescription) }
        guard (1...16).contains(connections ?? 1) else {
            throw .invalidField("connections", requirement: "must be an integer from 1 to 16")
        }
        if let maxBytesPerSecond { try TaskFieldValidation.validateMaxBytesPerSecond(maxBytesPerSecond) }
        if let maxBytes, maxBytes < 1 { throw .invalidField("maxBytes", requirement: "must be a positive number of bytes") }
        let headers = headers ?? [:]
        try HeaderValidation.validate(headers, field: "headers")
        let (method, transfer) = try transfer(of: kind)
        let mirrors = try validateMirrors(url: url)
        return NewTask(
            transfer: transfer,
            request: TransferRequest(url: url, method: method, headers: headers, mirrors: mirrors),
            origin: TransferTask.origin(of: destination),
            taskDescription: taskDescription,
            priority: priority,
            earliestBeginDate: earliestBeginDate,
            maxBytesPerSecond: maxBytesPerSecond,
            resumeData: resumeData,
            backgroundTask: try backgroundTask.map { id throws(DomainError) in try ClientIdentifier.validate(id, field: "backgroundTask") },
            start: start ?? true
        )
    }

    /// A download's `mirrors`: other http or https URLs of the same content, each named once and apart from `url`, at
    /// most 15, on downloads into the data directory without resume data; nil when none are given.
    private func validateMirrors(url: String) throws(DomainError) -> [String]? {
        guard let mirrors else { return nil }
        if kind != TransferTask.Kind.download.rawValue { throw .invalidField("mirrors", requirement: "applies to downloads only") }
        guard (1..<Self.maximumSources).contains(mirrors.count) else {
            throw .invalidField("mirrors", requirement: "must list from 1 to \(Self.maximumSources - 1) URLs")
        }
        if destination != nil { throw .invalidField("mirrors", requirement: "applies to downloads into the data directory only") }
        if resumeData != nil { throw .invalidField("mirrors", requirement: "cannot be given with `resumeData`") }
        guard (connections ?? 1) * (mirrors.count + 1) <= Self.maximumSources else {
            throw .invalidField(
                "connections",
                requirement:
                    "must be at most \(Self.maximumSources / (mirrors.count + 1)) with \(mirrors.count) mirrors (each source gets `connections`, at most \(Self.maximumSources) in all)"
            )
        }
        var seen: Set<String> = [url]
        for (index, mirror) in mirrors.enumerated() {
            _ = try Self.destination(mirror, field: "mirrors[\(index)]")
            guard seen.insert(mirror).inserted else {
                throw .invalidField("mirrors[\(index)]", requirement: "must differ from `url` and the other mirrors")
            }
        }
        return mirrors
    }

    /// `url` (the request's `field`) parsed as transferd connects to it; a refusal says what is wrong with it.
    private static func destination(_ url: String, field: String = "url") throws(DomainError) -> Destination {
        guard url.utf8.count <= 8192 else { throw .invalidField(field, requirement: "must be at most 8192 bytes") }
        do {
            return try Destination(url)
        } catch {
            guard let components = URLComponents(string: url), components.host?.isEmpty == false else {
                throw .invalidField(field, requirement: "must be an absolute http or https URL with a host")
            }
            guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw .invalidField(field, requirement: "must use the http or https scheme, not `\(components.scheme ?? "")`")
            }
            throw .invalidField(field, requirement: "must name a valid host (\(error.message))")
        }
    }

    /// The method and the kind's own data; fields of the other kind are refused by name.
    private func transfer(of kind: TransferTask.Kind) throws(DomainError) -> (String, Transfer) {
        switch kind {
        case .download:
            for (field, given) in [("method", method != nil), ("from", from != nil), ("multipart", multipart != nil)] where given {
                throw .invalidField(field, requirement: "applies to uploads only")
            }
            let object = try destination?.validate()
            if object != nil, (connections ?? 1) != 1 {
                throw .invalidField("connections", requirement: "must be 1 for a download into a bucket (its parts are uploaded in order)")
            }
            if object != nil, resumeData != nil {
                throw .invalidField("resumeData", requirement: "applies to downloads into the data directory only")
            }
            let download = DownloadTransfer(
                checksum: try checksum?.validate(),
                connections: connections ?? 1,
                maxBytes: maxBytes,
                redirectPolicy: redirectPolicy,
                destination: object.map { .object($0) } ?? .dataDirectory
            )
            return ("GET", .download(download))
        case .upload:
            let downloadFields = [
                ("checksum", checksum != nil), ("connections", connections != nil), ("resumeData", resumeData != nil),
                ("maxBytes", maxBytes != nil), ("redirectPolicy", redirectPolicy != nil), ("destination", destination != nil),
            ]
            for (field, given) in downloadFields where given {
                throw .invalidField(field, requirement: "applies to downloads only")
            }
            let method = method?.uppercased() ?? "PUT"
            guard Self.uploadMethods.contains(method) else {
                throw .invalidField("method", requirement: "must be PUT, POST or PATCH for an upload")
            }
            guard let from else { throw .badRequest("`from` is required for an upload: `{\"file\": id}` or `{\"task\": n}`.") }
            return (method, .upload(UploadTransfer(from: try from.validate(), multipart: try multipart?.validate())))
        }
    }
}
