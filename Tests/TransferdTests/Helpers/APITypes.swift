import TransferdClient

// What tests read back from the API, as TransferdClient's types, generated from openapi.yaml: decoding an answer
// into them checks it against the spec's shapes, as any client generated from the spec would read it.

typealias ProblemView = Components.Schemas.Problem
typealias TenantView = Components.Schemas.Tenant
typealias WebhookView = Components.Schemas.Webhook
typealias SessionView = Components.Schemas.Session
typealias DeliveryView = Components.Schemas.Delivery
typealias DeliveryPage = Components.Schemas.DeliveryPage
typealias ErrorView = Components.Schemas.TransferError
typealias FileView = Components.Schemas.StoredFile
typealias TaskView = Components.Schemas.Task
typealias TaskPage = Components.Schemas.TaskPage
typealias TaskBatchView = Components.Schemas.TaskBatch
typealias StagedFileView = Components.Schemas.StagedFile
typealias StagedFilePage = Components.Schemas.StagedFilePage
typealias SessionPage = Components.Schemas.SessionPage
typealias BackgroundTaskView = Components.Schemas.BackgroundTask
typealias EventView = Components.Schemas.Event
typealias EventBatchView = Components.Schemas.EventBatch
typealias StorageView = Components.Schemas.Storage
typealias StorageListView = Components.Schemas.StorageList

typealias EventDataView = Components.Schemas.EventData
typealias ProtectionSpaceView = Components.Schemas.ProtectionSpace

extension EventView {
    /// The event's type as the API spells it (`task.completed`).
    var type: String { _type.rawValue }
}

extension ProblemView {
    /// The problem's type URI.
    var type: String { _type }
}

/// A string enum of the spec, written in tests as the API spells its values (`task.state == "completed"`). A
/// spelling that is none of its values stops the run: it is a mistake in the test.
protocol SpelledAsTheAPI: RawRepresentable, ExpressibleByStringLiteral where RawValue == String {}

extension SpelledAsTheAPI {
    public init(stringLiteral value: String) {
        guard let known = Self(rawValue: value) else { preconditionFailure("\(value) is not a value of \(Self.self)") }
        self = known
    }
}

extension Components.Schemas.TaskState: SpelledAsTheAPI {}
extension Components.Schemas.Task.KindPayload: SpelledAsTheAPI {}
extension Components.Schemas.Task.WaitingReasonPayload: SpelledAsTheAPI {}
extension Components.Schemas.Task.NotResumableReasonPayload: SpelledAsTheAPI {}
extension Components.Schemas.Task.RedirectPolicyPayload: SpelledAsTheAPI {}
extension Components.Schemas.TransferError.CodePayload: SpelledAsTheAPI {}
extension Components.Schemas.DeliveryStatus: SpelledAsTheAPI {}
extension Components.Schemas.EventType: SpelledAsTheAPI {}
extension Components.Schemas.WebhookState: SpelledAsTheAPI {}
extension Components.Schemas.Session.StatePayload: SpelledAsTheAPI {}
extension Components.Schemas.StagedFile.StatePayload: SpelledAsTheAPI {}
extension Components.Schemas.Problem.QuotaPayload: SpelledAsTheAPI {}
extension Components.Schemas.EventData.RestartReasonPayload: SpelledAsTheAPI {}
extension Components.Schemas.BackgroundTask.StatePayload: SpelledAsTheAPI {}
extension Components.Schemas.Fetch.StatePayload: SpelledAsTheAPI {}
extension Components.Schemas.FetchResult: SpelledAsTheAPI {}

typealias FetchView = Components.Schemas.Fetch
typealias FetchListView = Operations.ListFetches.Output.Ok.Body.JsonPayload
