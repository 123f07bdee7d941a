import TransferdDomain
import TransferdServices

/// How new tasks get in, from the API or from the dashboard's form: each request body checked, then all admitted
/// and created together (``TaskAdmission``).
struct TaskIntake: Sendable {
    let tasks: TaskService
    let admission: TaskAdmission

    /// Creates the tasks `items` describe in `session`; a refusal of a batch's item (in the body's `field`) names it.
    func create(_ items: [CreateTaskRequest], itemsIn field: String?, session: Session) async throws -> [TransferTask] {
        var newTasks: [NewTask] = []
        for (index, item) in items.enumerated() {
            newTasks.append(try await DomainError.naming(item: index, of: field) { try validate(item) })
        }
        return try await admission.create(newTasks, itemsIn: field, session: session)
    }

    /// The task a request body describes, checked.
    private func validate(_ body: CreateTaskRequest) throws -> NewTask {
        let resumeData = try body.resumeData.map { token throws(DomainError) in try tasks.resumeDataSigner.decode(token) }
        return try body.validate(resumeData: resumeData)
    }
}
