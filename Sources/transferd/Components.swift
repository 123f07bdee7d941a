import AsyncHTTPClient
import Foundation
import Logging
import TransferdAPI
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage

/// The parts of a running transferd, wired once from a `Configuration`: the one place that picks the store and
/// hands every layer what it needs.
struct Components: Sendable {
    let store: OpenedStore
    let httpClient: HTTPClientService
    let scheduler: Scheduler
    let leaseKeeper: LeaseKeeper
    let backgroundTaskClock: BackgroundTaskClock
    let fetchClock: FetchClock
    let bandwidthClock: BandwidthClock
    let dispatcher: Dispatcher
    let notices: EndpointNotices
    let sweeper: RetentionSweeper
    let historyPruner: HistoryPruner
    let uploadAborter: UploadAborter
    let storageRecovery: StorageRecovery
    let apiKeys: APIKeyService
    let api: APIDependencies

    init(configuration: Configuration, logger: Logger) async throws {
        let clock = configuration.clock
        var instance = configuration.instance
        instance.sharesDatabase = configuration.databaseURL != nil
        let signals = SignalBus()
        try DataDirectoryPermissions.restrict(configuration.dataDirectory)
        let credentialsKey = try CredentialsKey.key(dataDirectory: configuration.dataDirectory, configured: configuration.credentialsKey)
        let vault = CredentialVault(key: credentialsKey)
        let opened = try await OpenedStore.waitingForDatabase(
            dataDirectory: configuration.dataDirectory,
            databaseURL: configuration.databaseURL,
            vault: vault,
            connections: configuration.databaseConnections,
            signals: signals,
            logger: logger
        )
        self.store = opened
        let store = opened.store
        let files = try FileStore(dataDirectory: configuration.dataDirectory, contentStore: configuration.contentStore)
        let contentLinks = ContentLinks(credentialsKey: credentialsKey)
        let disk = DiskSpace(directory: configuration.dataDirectory, minimumFreeBytes: configuration.limits.minimumFreeDiskBytes)
        httpClient = HTTPClientService(
            connectTimeout: configuration.connectTimeout,
            policy: configuration.destinationPolicy,
            trustedCertificates: configuration.trustedCertificates,
            logger: logger
        )
        let metrics = ServiceMetrics()
        let loop = { WakeUpLoop(doorbell: Doorbell(), clock: clock, logger: logger, passed: metrics.loopPassed) }
        let (schedulerLoop, dispatcherLoop, deadlineLoop, noticesLoop, fetchLoop) = (loop(), loop(), loop(), loop(), loop())
        let historyLoop = loop()

        let quotas = TenantQuotas(defaults: configuration.limits.defaultQuota)
        let discretionaryHours = DiscretionaryHours(window: configuration.discretionaryWindow, schedule: configuration.bandwidthSchedule)
        let bandwidth = BandwidthLimits(
            maxBytesPerSecond: configuration.maxBytesPerSecond,
            schedule: configuration.bandwidthSchedule,
            clock: clock
        )
        let tenants = TenantService(store: store, defaults: quotas.defaults)
        let eventLog = EventLog(
            store: store,
            signal: EventSignal(),
            clock: clock,
            metrics: metrics,
            sharedDatabase: instance.sharesDatabase
        )
        let transfers = ActiveTransfers()
        let started = StartedTasks(
            transfers: transfers,
            concurrency: configuration.workerConcurrency,
            perTenant: configuration.maximumTransfersPerTenant,
            doorbell: schedulerLoop.doorbell
        )
        let transitions = TaskTransitions(
            eventLog: eventLog,
            files: files,
            transfers: transfers,
            resumeDataSigner: ResumeData.Signer(key: try await Self.resumeDataKey(store)),
            clock: clock,
            leaseClock: instance.clock
        )
        let backgroundTasks = BackgroundTaskService(
            store: store,
            transitions: transitions,
            maximumDuration: configuration.maximumBackgroundTaskDuration
        )
        let objects = ObjectStores(store: store, destinations: httpClient.destinations, clock: clock, content: configuration.contentStore)
        let tasks = TaskService(
            store: store,
            instance: instance,
            transitions: transitions,
            backgroundTasks: backgroundTasks,
            files: files,
            objects: objects,
            transfers: transfers,
            started: started,
            retryPolicy: configuration.retryPolicy,
            limits: configuration.limits,
            quotas: quotas,
            discretionaryHours: discretionaryHours,
            vault: vault,
            resumeDataSigner: transitions.resumeDataSigner,
            clock: clock,
            metrics: metrics,
            logger: logger
        )
        let webhooks = WebhookService(
            store: store,
            eventLog: eventLog,
            policy: configuration.deliveryPolicy,
            clock: clock
        )
        let environment = TransferEnvironment(
            destinations: httpClient.destinations,
            files: files,
            reporter: tasks,
            progressInterval: configuration.progressInterval,
            clock: clock,
            bandwidth: bandwidth,
            vault: vault,
            objects: objects
        )
        scheduler = Scheduler(
            store: store,
            instance: instance,
            reporter: tasks,
            downloader: DownloadRunner(environment: environment, disk: disk),
            uploader: UploadRunner(environment: environment, replyLimit: configuration.replyBodyLimit),
            transfers: transfers,
            started: started,
            loop: schedulerLoop,
            concurrency: configuration.workerConcurrency,
            perTenant: configuration.maximumTransfersPerTenant,
            quotas: quotas,
            bounds: TransferBounds(
                maximumDownloadBytes: configuration.limits.maximumDownloadBytes,
                maximumRequestTimeout: configuration.maximumRequestTimeout,
                minimumRate: configuration.minimumTransferRate
            ),
            discretionaryHours: discretionaryHours,
            logger: logger
        )
        let sending = SendingSessions()
        leaseKeeper = LeaseKeeper(
            store: store,
            instance: instance,
            transfers: transfers,
            sending: sending,
            loop: WakeUpLoop(doorbell: Doorbell(), clock: instance.clock, logger: logger, passed: metrics.loopPassed)
        )
        backgroundTaskClock = BackgroundTaskClock(backgroundTasks: backgroundTasks, loop: deadlineLoop)
        let fetches = FetchService(
            store: store,
            tasks: tasks,
            clock: clock,
            maximumPerSession: configuration.limits.maximumFetchesPerSession
        )
        fetchClock = FetchClock(fetches: fetches, loop: fetchLoop)
        bandwidthClock = BandwidthClock(
            limits: bandwidth,
            store: store,
            loop: WakeUpLoop(doorbell: bandwidth.scheduleAdded, clock: clock, logger: logger, passed: metrics.loopPassed)
        )
        dispatcher = Dispatcher(
            store: store,
            instance: instance,
            sending: sending,
            destinations: httpClient.destinations,
            policy: configuration.deliveryPolicy,
            loop: dispatcherLoop,
            concurrency: configuration.webhookConcurrency,
            metrics: metrics,
            challenges: tasks
        )
        notices = EndpointNotices(
            store: store,
            eventLog: eventLog,
            ops: configuration.opsWebhook,
            destinations: httpClient.destinations,
            policy: configuration.deliveryPolicy,
            loop: noticesLoop
        )
        sweeper = RetentionSweeper(
            store: store,
            eventLog: eventLog,
            files: files,
            objects: environment.objects,
            interval: configuration.sweepInterval,
            loop: loop(),
            logger: logger
        )
        historyPruner = HistoryPruner(
            store: store,
            files: files,
            objects: environment.objects,
            retention: configuration.historyRetention,
            pace: configuration.historyRemovalPace,
            interval: configuration.sweepInterval,
            loop: historyLoop,
            metrics: metrics
        )
        uploadAborter = UploadAborter(
            store: store,
            objects: environment.objects,
            interval: configuration.sweepInterval,
            loop: loop(),
            metrics: metrics
        )
        storageRecovery = StorageRecovery(store: store, disk: disk, loop: loop())
        apiKeys = APIKeyService(store: store, clock: clock)
        let (scheduler, apiKeys) = (scheduler, apiKeys)
        signals.subscribe { signal in
            switch signal {
            case .work:
                scheduler.cues.workAnnounced()
                schedulerLoop.doorbell.ring()
            case .capacity: schedulerLoop.doorbell.ring()
            case .outbox: dispatcherLoop.doorbell.ring()
            case .deadlines: deadlineLoop.doorbell.ring()
            case .fetches: fetchLoop.doorbell.ring()
            case .notices: noticesLoop.doorbell.ring()
            case .history: historyLoop.doorbell.ring()
            case .events(let sessionID): eventLog.signal.notify(sessionID: sessionID)
            case .task(let id): if transfers[id] != nil { Task { await scheduler.reconsider(taskID: id) } }
            case .keyRevoked(let id): apiKeys.cache.forget(id: id)
            }
        }
        let dashboard = DashboardSessionService(store: store, clock: clock, keys: apiKeys)
        let destinations = DestinationVetting(httpClient.destinations)
        let storages = ObjectStorageService(store: store, clock: clock)
        var api = APIDependencies(
            readiness: Readiness(store: store),
            sessions: SessionService(
                store: store,
                webhooks: webhooks,
                transitions: transitions,
                quotas: quotas,
                clock: clock
            ),
            tasks: tasks,
            admission: TaskAdmission(tasks: tasks, destinations: destinations, disk: disk, storages: storages),
            content: TaskContent(files: files, objects: environment.objects),
            backgroundTasks: backgroundTasks,
            fetches: fetches,
            webhooks: webhooks,
            stagedFiles: StagedFileService(
                store: store,
                files: files,
                objects: objects,
                limits: configuration.stagedFileLimits,
                quotas: quotas,
                disk: disk,
                metrics: metrics,
                clock: clock,
                logger: logger
            ),
            storages: storages,
            tenants: tenants,
            idempotency: IdempotencyService(store: store, clock: clock),
            eventLog: eventLog,
            authentication: AuthenticationMiddleware(
                keys: apiKeys,
                dashboard: dashboard,
                disabled: configuration.authenticationDisabled,
                limiter: RequestRateLimiter(rate: configuration.requestsPerSecond, burst: configuration.requestBurst, clock: clock),
                contentLinks: contentLinks,
                clock: clock
            ),
            dashboard: dashboard,
            contentLinks: contentLinks,
            destinations: destinations,
            clock: clock,
            streams: EventStreams(heartbeat: configuration.streamHeartbeat, maximumPerKey: configuration.maximumStreamsPerKey),
            metrics: metrics,
            sampler: MetricsSampler(store: store, transfers: transfers, tenants: tenants, disk: disk, metrics: metrics, clock: clock)
        )
        api.tracesRequests = configuration.traceExport != nil
        self.api = api
    }

    /// The key that signs resume data, generated by the migration that created it.
    private static func resumeDataKey(_ store: any Store) async throws -> Data {
        let bytes = try await store.read { try await $0.serviceKeys.key(named: "resume_data") }
        guard let bytes, bytes.count == 32 else { throw ValidationFailure("the resume data key is missing from the database") }
        return bytes
    }
}
