import TransferdDomain

extension TransferJob {
    /// How an attempt that threw `error` ended. Stopped (its task cancelled), stopped inside (a part of it cancelled,
    /// whoever cancelled it), or unable to report to the store, it is interrupted: its task continues from its
    /// checkpoint, never failed for it. A proxy's 407 is a challenge; anything else fails the attempt.
    package func outcome(ofThrown error: any Error) -> TaskStateMachine.TransferOutcome {
        if Task.isCancelled || error is CancellationError || error is UnrecordedReport { return .interrupted }
        if let challenge = proxyChallenge(for: error) { return challenge }
        return .failed(TransferError(transportError: error))
    }
}
