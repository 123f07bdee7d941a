import Foundation

/// The real binary serving two tenants: the default one through `service.api` (an admin key) and `t2` through a key
/// of its own, issued as `transferd keys create` would.
enum TwoTenants {
    /// Starts the service on a new data directory with `arguments` and `environment` (on a file system of its own of
    /// `filesystemMiB`, see `ServiceProcess`); `prepare` runs on its database first (issuing keys, setting quotas), with t2's key
    /// issued already.
    static func start(
        _ arguments: [String] = [],
        filesystemMiB: Int? = nil,
        environment: [String: String] = [:],
        prepare: (_ dataDirectory: String) async throws -> Void = { _ in }
    ) async throws -> (service: ServiceProcess, t2: APIClient, dataDirectory: String) {
        let dataDirectory = DataDirectories.temporary()
        let key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "t2", tenant: "t2", admin: false)
        try await prepare(dataDirectory)
        let service = try await ServiceProcess.start(
            dataDirectory: dataDirectory,
            filesystemMiB: filesystemMiB,
            arguments: arguments,
            environment: environment
        )
        var t2 = service.api
        t2.key = key
        return (service, t2, dataDirectory)
    }
}
