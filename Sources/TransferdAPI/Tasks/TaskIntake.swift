import Foundation
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage

/// How new tasks get in, from the API or from the dashboard's form: each one checked, the free-space floor
/// respected, every URL vetted against the destination policy, then all created in one transaction.
struct TaskIntake: Sendable {
    let tasks: TaskService
    let destinations: DestinationGuard
    let disk: DiskSpace
    let storages: ObjectStorageService

    /// Creates the tasks `items` describe in `session`; a refusal of a batch's item (in the body's `field`) names it.
    func create(_ items: [CreateTaskRequest], itemsIn field: String?, session: Session) async throws -> [TransferTask] {
        var newTasks: [NewTask] = []
        for (index, item) in items.enumerated() {
            newTasks.append(try await named(index, in: field) { try validate(item) })
        }
        try disk.admit(0)
        // The policy judges a host's addresses: each host of the batch is vetted once.
        var vetted = Set<String>()
        for (index, newTask) in newTasks.enumerated() where vetted.insert(newTask.origin).inserted {
            try await named(index, in: field) { try await destinations.vet(newTask.request.url, field: "url") }
        }
        var named = Set<String>()
        for (index, newTask) in newTasks.enumerated() {
            guard let storage = newTask.transfer.download?.destination.object?.storage, named.insert(storage).inserted else { continue }
            try await self.named(index, in: field) { try await find(storage: storage, session: session) }
        }
        return try await tasks.create(newTasks, in: session, itemsIn: field)
    }

    /// Vets what each run of a fetch schedule will download, as a new download task's URL and destination are.
    func vet(url: String, destination: DownloadDestination, session: Session) async throws {
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

    /// The task a request body describes, checked.
    private func validate(_ body: CreateTaskRequest) throws -> NewTask {
        let resumeData = try body.resumeData.map { token throws(DomainError) in try tasks.resumeDataSigner.decode(token) }
        return try body.validate(resumeData: resumeData)
    }

    /// Runs `check` for item `index` of the batch in `field`; its refusal names the item. Without a batch, as is.
    private func named<T>(_ index: Int, in field: String?, _ check: () async throws -> T) async throws -> T {
        do {
            return try await check()
        } catch let refusal as DomainError where field != nil {
            throw refusal.item(index, of: field ?? "")
        }
    }
}
