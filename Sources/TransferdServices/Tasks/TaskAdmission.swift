import TransferdDomain
import TransferdStorage

/// What new tasks pass before they are created, from the API, the dashboard's form or a fetch schedule: the
/// free-space floor, every URL vetted against the destination policy, and every bucket they name the tenant's.
package struct TaskAdmission: Sendable {
    let tasks: TaskService
    let destinations: DestinationVetting
    let disk: DiskSpace
    let storages: ObjectStorageService

    package init(tasks: TaskService, destinations: DestinationVetting, disk: DiskSpace, storages: ObjectStorageService) {
        self.tasks = tasks
        self.destinations = destinations
        self.disk = disk
        self.storages = storages
    }

    /// Creates `newTasks` in `session`, all in one transaction, once they pass; a refusal of a batch's item (in the
    /// body's `field`) names it.
    package func create(_ newTasks: [NewTask], itemsIn field: String?, session: Session) async throws -> [TransferTask] {
        try disk.admit(0)
        // The policy judges a host's addresses: each host of the batch is vetted once.
        var vetted = Set<String>()
        for (index, newTask) in newTasks.enumerated() {
            // A mirror is vetted as the URL is: the policy judges every source a download may connect to.
            let mirrors = (newTask.request.mirrors ?? []).enumerated().map { mirror in
                ("mirrors[\(mirror.offset)]", mirror.element, (try? Destination(mirror.element)).map(TransferTask.origin) ?? mirror.element)
            }
            for (name, url, origin) in [("url", newTask.request.url, newTask.origin)] + mirrors {
                guard vetted.insert(origin).inserted else { continue }
                try await DomainError.naming(item: index, of: field) { try await destinations.vet(url, field: name) }
            }
        }
        var named = Set<String>()
        for (index, newTask) in newTasks.enumerated() {
            guard let storage = newTask.transfer.download?.destination.object?.storage, named.insert(storage).inserted else { continue }
            try await DomainError.naming(item: index, of: field) { try await find(storage: storage, session: session) }
        }
        return try await tasks.create(newTasks, in: session, itemsIn: field)
    }

    /// Vets what each run of a fetch schedule will download, as a new download task's URL and destination are.
    package func vet(url: String, destination: DownloadDestination, session: Session) async throws {
        try disk.admit(0)
        try await destinations.vet(url, field: "url")
        if let storage = destination.object?.storage { try await find(storage: storage, session: session) }
    }

    /// Checks that the tenant has the store a destination names.
    private func find(storage: String, session: Session) async throws {
        // A database that cannot answer is the service's failure (503), not the client's.
        do {
            _ = try await storages.find(name: storage, tenantID: session.tenantId)
        } catch DomainError.notFound {
            throw DomainError.invalidField("destination.storage", requirement: "names no storage of the tenant (`\(storage)`)")
        }
    }
}
