import TransferdDomain

/// The lifecycle of a download's multipart upload into a bucket, across the task's attempts: none yet; being created
/// (its id recorded on the task before any part goes, so that whatever happens to this attempt the next one continues
/// it); begun, with the parts sent and the prefix the store acknowledged; ended with the body, its completion under
/// way (the upload stays the task's until the object is made: a completion that fails is continued by the next
/// attempt). It decides; the `ObjectWriter` carries out its steps.
///
/// - An attempt that must start the object over (the origin could not continue it) aborts an upload that holds parts;
///   one begun without a part yet is continued.
/// - A creation the task does not record (it no longer wants the transfer, or the write failed) is aborted.
/// - A body that never fills a part is written with one request, and no upload is begun.
/// - The body's last part goes with the completion, never among those in flight, so that the acknowledged prefix never
///   covers the whole object and a later attempt has bytes left to ask the origin for.
package struct ObjectUploadStateMachine: Sendable, Equatable {
    private enum State: Equatable {
        case none
        case creating
        case begun(AcknowledgedParts, partsSent: Int)
        /// The body ended: the object is being made, from the upload when one was begun.
        case ended(AcknowledgedParts?)
    }

    /// What the writer does next.
    package enum Step: Sendable, Equatable {
        /// Creates a multipart upload, records it on the task, then tells `created`.
        case create
        /// Uploads the part gathered as part `number` of `upload`.
        case send(number: Int, of: ObjectUploadProgress)
        /// Aborts an upload the task will not continue.
        case abort(ObjectUploadProgress)
        /// Writes the whole body with one request.
        case put
        /// Uploads what is left as part `lastPart` (nil: nothing is left, the parts hold it all), then completes
        /// `upload` with its acknowledged parts and that one.
        case complete(lastPart: Int?, of: ObjectUploadProgress)
        /// Nothing to do.
        case none
    }

    private var state: State

    /// The machine of an attempt that continues the body at `offset` with the upload the task kept, and the step it
    /// takes first: aborting that upload when the attempt starts over and it holds parts.
    package static func starting(kept: ObjectUploadProgress?, at offset: Int64) -> (machine: Self, first: Step) {
        guard let kept else { return (Self(state: .none), .none) }
        if offset == 0, !kept.parts.isEmpty { return (Self(state: .none), .abort(kept)) }
        return (Self(state: .begun(AcknowledgedParts(kept), partsSent: kept.parts.count)), .none)
    }

    private init(state: State) {
        self.state = state
    }

    /// The upload with its acknowledged prefix, once one is begun.
    package var upload: ObjectUploadProgress? {
        switch state {
        case .begun(let parts, _), .ended(let parts?): parts.upload
        case .none, .creating, .ended(nil): nil
        }
    }

    /// A part's worth of the body has gathered (and more came after it).
    package mutating func partFilled() -> Step {
        switch state {
        case .none:
            state = .creating
            return .create
        case .begun(let parts, let sent):
            state = .begun(parts, partsSent: sent + 1)
            return .send(number: sent + 1, of: parts.upload)
        case .creating, .ended:
            return .none
        }
    }

    /// The upload asked for was created as `upload`, and the task recorded it (`recorded`) or did not.
    package mutating func created(_ upload: ObjectUploadProgress, recorded: Bool) -> Step {
        guard case .creating = state else { return .none }
        guard recorded else {
            state = .none
            return .abort(upload)
        }
        state = .begun(AcknowledgedParts(upload), partsSent: 1)
        return .send(number: 1, of: upload)
    }

    /// The store acknowledged `part`.
    package mutating func acknowledged(_ part: ObjectUploadProgress.Part) {
        guard case .begun(var parts, let sent) = state else { return }
        parts.acknowledge(part)
        state = .begun(parts, partsSent: sent)
    }

    /// The body ended, every part sent acknowledged, with `restBytes` gathered after them.
    package mutating func bodyEnded(restBytes: Int) -> Step {
        switch state {
        case .none:
            state = .ended(nil)
            return .put
        case .begun(let parts, let sent):
            state = .ended(parts)
            return .complete(lastPart: restBytes > 0 || sent == 0 ? sent + 1 : nil, of: parts.upload)
        case .creating, .ended:
            return .none
        }
    }
}
