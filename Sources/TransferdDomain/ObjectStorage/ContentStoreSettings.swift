import Foundation

/// The service's own store, `--content-store s3://bucket/prefix?endpoint=…`: where downloads' content and uploads'
/// replies go instead of the data directory, so that instances over one PostgreSQL database share no disk. Keys are
/// the prefix, then `sessions/<session row>/tasks/<random name>` for a download's content (named as the task is
/// created, before it has an identifier) and `sessions/<session row>/tasks/<task identifier>.reply` for an upload's
/// reply; `files/<file row>/<offset>` for what an append to a staged file brought, and `files/<file row>/whole`
/// for a complete file made of several: never client input.
package struct ContentStoreSettings: Sendable, Equatable {
    package let storage: ObjectStorageSettings
    /// Empty, or ending in `/`.
    package let prefix: String
    /// The store as clients outside reach it (`publicEndpoint`), which presigned URLs (`?redirect=true`) are signed
    /// for; nil when there is none, and content is then never handed over as a URL: `endpoint` is often an address
    /// inside the operator's network, which no client should learn.
    package let publicStorage: ObjectStorageSettings?

    /// Reads `s3://bucket[/prefix]` with the query parameters `endpoint` (default AWS's for the region), `region`
    /// (default `us-east-1`), `pathStyle` (`true` or `false`, default `false`) and `publicEndpoint` (none by default);
    /// the access key comes apart, from the environment, so that it shows in no process list.
    package init(uri: String, accessKeyId: String, secretAccessKey: String) throws {
        guard let components = URLComponents(string: uri), components.scheme == "s3", let bucket = components.host,
            components.user == nil, components.port == nil, components.fragment == nil
        else {
            throw DomainError.invalidField("--content-store", requirement: "must be s3://bucket/prefix?endpoint=https://host:port")
        }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard ["endpoint", "region", "pathStyle", "publicEndpoint"].contains(item.name), let value = item.value,
                parameters[item.name] == nil
            else {
                throw DomainError.invalidField(
                    "--content-store",
                    requirement: "takes the parameters endpoint, region, pathStyle and publicEndpoint, once each"
                )
            }
            parameters[item.name] = value
        }
        let region = parameters["region"] ?? "us-east-1"
        guard [nil, "true", "false"].contains(parameters["pathStyle"]) else {
            throw DomainError.invalidField("--content-store", requirement: "takes pathStyle=true or pathStyle=false")
        }
        // The bucket at an endpoint: the one transferd reaches, or the one clients outside do.
        let at = { (endpoint: String) in
            try ObjectStorageSettings(
                endpoint: endpoint,
                region: region,
                bucket: bucket,
                accessKeyId: accessKeyId,
                secretAccessKey: secretAccessKey,
                pathStyle: parameters["pathStyle"] == "true"
            )
        }
        storage = try at(parameters["endpoint"] ?? "https://s3.\(region).amazonaws.com")
        publicStorage = try parameters["publicEndpoint"].map { endpoint in
            do {
                return try at(endpoint)
            } catch {
                throw DomainError.invalidField("--content-store", requirement: "takes a publicEndpoint of the form http(s)://host[:port]")
            }
        }
        let path = components.path.split(separator: "/").joined(separator: "/")
        prefix = path.isEmpty ? "" : path + "/"
        _ = try ObjectKey(prefix + "sessions/\(Int64.max)/tasks/\(UUID().uuidString).reply", field: "--content-store")
    }

    /// Where the content of a download created now goes: a name of its own.
    package func newContentLocation(sessionID: Int64) -> ObjectLocation {
        location("\(prefix)sessions/\(sessionID)/tasks/\(UUID().uuidString.lowercased())")
    }

    /// Where an upload's reply body goes.
    package func replyLocation(sessionID: Int64, taskIdentifier: Int64) -> ObjectLocation {
        location("\(prefix)sessions/\(sessionID)/tasks/\(taskIdentifier).reply")
    }

    /// Where what one append (`append`, its own id) brings to a staged file, from `offset` on, goes.
    package func appendLocation(fileID: Int64, offset: Int64, append: UUID) -> ObjectLocation {
        location("\(prefix)files/\(fileID)/\(offset)-\(append.uuidString.lowercased())")
    }

    /// Where a complete staged file made of several appends goes.
    package func wholeLocation(fileID: Int64) -> ObjectLocation {
        location("\(prefix)files/\(fileID)/whole")
    }

    private func location(_ key: String) -> ObjectLocation {
        // The prefix was checked with the longest key this makes: every key made here is valid.
        ObjectLocation(storage: ObjectLocation.contentStore, key: ObjectKey(madeFrom: key))
    }
}
