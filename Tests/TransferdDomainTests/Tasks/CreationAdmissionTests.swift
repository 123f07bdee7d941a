import Testing
import TransferdDomain

/// The rule every creation of tasks is held to, as a table: the session's state, its most, then the tenant's quotas
/// (its own figures over the service's), and what a refusal says.
@Suite struct CreationAdmissionTests {
    /// One row: the tasks asked for, the session and tenant as read, and the refusal (nil: admitted).
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var count = 1
        var downloads = true
        var state: Session.State? = .active
        var inSession = 0
        /// The tenant's own quota and usage; nil: the tenant is gone.
        var tenant: (quota: TenantQuota, usage: TenantUsage)? = (TenantQuota(), TenantUsage())
        var refusal: CreationAdmission.Refusal?
        var testDescription: String { name }
    }

    /// The service's defaults in every row: 5 tasks a session, 10 queued tasks and 100 stored bytes a tenant.
    static let defaults = TenantQuota(queuedTasks: 10, storedBytes: 100)
    static let most = 5

    static let rows: [Row] = [
        Row(name: "an active session with room takes them"),
        Row(name: "a gone session refuses", state: nil, refusal: .sessionNotActive(nil)),
        Row(name: "an invalidating session refuses", state: .invalidating, refusal: .sessionNotActive(.invalidating)),
        Row(
            name: "an invalidated session refuses before its limit counts",
            state: .invalidated,
            inSession: 9,
            refusal: .sessionNotActive(.invalidated)
        ),
        Row(name: "up to the session's most", count: 2, inSession: 3),
        Row(name: "one past the session's most", count: 2, inSession: 4, refusal: .sessionFull(tasks: 4)),
        Row(
            name: "the session's most counts before the quotas",
            count: 2,
            inSession: 4,
            tenant: (TenantQuota(), TenantUsage(queuedTasks: 10)),
            refusal: .sessionFull(tasks: 4)
        ),
        Row(name: "queued tasks up to the default quota", count: 3, tenant: (TenantQuota(), TenantUsage(queuedTasks: 7))),
        Row(
            name: "queued tasks past the default quota",
            count: 3,
            tenant: (TenantQuota(), TenantUsage(queuedTasks: 8)),
            refusal: .quota(QuotaBreach(quota: .queuedTasks, limit: 10, used: 8, requested: 3))
        ),
        Row(
            name: "the tenant's own quota of queued tasks overrides the default",
            tenant: (TenantQuota(queuedTasks: 2), TenantUsage(queuedTasks: 2)),
            refusal: .quota(QuotaBreach(quota: .queuedTasks, limit: 2, used: 2, requested: 1))
        ),
        Row(
            name: "a download needs stored bytes left",
            tenant: (TenantQuota(), TenantUsage(storedBytes: 100)),
            refusal: .quota(QuotaBreach(quota: .storedBytes, limit: 100, used: 100, requested: 0))
        ),
        Row(name: "an upload needs none", downloads: false, tenant: (TenantQuota(), TenantUsage(storedBytes: 100))),
        Row(name: "one byte left is room for a download", tenant: (TenantQuota(), TenantUsage(storedBytes: 99))),
        Row(
            name: "queued tasks are named before stored bytes",
            tenant: (TenantQuota(), TenantUsage(queuedTasks: 10, storedBytes: 100)),
            refusal: .quota(QuotaBreach(quota: .queuedTasks, limit: 10, used: 10, requested: 1))
        ),
        Row(name: "a gone tenant holds them to nothing", tenant: nil),
    ]

    @Test(arguments: rows)
    func theSessionAndItsTenantDecide(_ row: Row) {
        let admission = CreationAdmission(
            count: row.count,
            needsStorage: row.downloads,
            maximumTasksPerSession: Self.most,
            defaultQuota: Self.defaults
        )
        let tenant = row.tenant.map { TenantStanding(id: 1, name: "t", quota: $0.quota, usage: $0.usage) }
        #expect(admission.decide(session: row.state, tasksInSession: row.inSession, tenant: tenant) == row.refusal)
    }

    @Test func aRefusalSaysWhy() {
        #expect(
            CreationAdmission.Refusal.sessionNotActive(nil).error(session: "s")
                == .conflict("The session is gone and accepts no new tasks.")
        )
        #expect(
            CreationAdmission.Refusal.sessionFull(tasks: 4).error(session: "s")
                == .limitExceeded("Session `s` has 4 tasks, the most a session may have.")
        )
        let breach = QuotaBreach(quota: .queuedTasks, limit: 2, used: 2, requested: 1)
        #expect(CreationAdmission.Refusal.quota(breach).error(session: "s") == .quotaExceeded(breach))
    }

    @Test func aCreationAsksForQueuedTasksAndForStoredBytesOnlyWithADownload() {
        let both = CreationAdmission(count: 3, needsStorage: true, maximumTasksPerSession: 5, defaultQuota: Self.defaults)
        #expect(both.quotaRequests == [.queuedTasks: 3, .storedBytes: 0])
        let uploads = CreationAdmission(count: 2, needsStorage: false, maximumTasksPerSession: 5, defaultQuota: Self.defaults)
        #expect(uploads.quotaRequests == [.queuedTasks: 2])
    }
}
