import Testing
import TransferdDomain

/// Signals travel between instances as words of a notification's text: each reads back as itself, and a word this
/// version does not know is ignored rather than misread.
@Suite struct SignalWordTests {
    @Test(arguments: [
        Signal.work, .capacity, .outbox, .deadlines, .fetches, .notices, .history, .events(sessionID: 12), .task(id: 34),
        .keyRevoked(id: "key_1"),
    ])
    func aSignalReadsBackFromItsWord(_ signal: Signal) {
        #expect(Signal(word: Substring(signal.word)) == signal)
    }

    @Test(arguments: ["", "x", "w1", "c2", "f3", "h4", "e", "tx", "k"])
    func anUnknownWordIsNoSignal(_ word: String) {
        #expect(Signal(word: Substring(word)) == nil)
    }
}
