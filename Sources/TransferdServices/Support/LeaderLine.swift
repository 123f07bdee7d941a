/// Callers in line behind one that leads: a caller that comes while none leads leads at once, and the others wait,
/// in order, for the turn a leader hands on (``GroupCommit``, ``Gathering``).
struct LeaderLine<Waiting>: ~Copyable {
    /// Whether a caller leads now.
    var isLed = false
    var waiting: [Waiting] = []

    /// Puts `waiting` in line, or, when no caller leads, has it lead at once: true.
    mutating func enter(_ waiting: @autoclosure () -> Waiting) -> Bool {
        guard isLed else {
            isLed = true
            return true
        }
        self.waiting.append(waiting())
        return false
    }
}
