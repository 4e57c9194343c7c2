/// The outcomes of a session's closed presentations, oldest forgotten first.
struct OutcomeLog: Hashable, Sendable {
    /// Oldest first; a few hundred at most, so a linear search is cheaper than keeping an index in step.
    private var outcomes: [PresentationOutcome] = []

    init() {}

    /// A log read back from a snapshot, oldest first, keeping the newest `limit`.
    init(restoring outcomes: [PresentationOutcome], keeping limit: Int) {
        self.outcomes = Array(outcomes.suffix(max(limit, 0)))
    }

    /// Every kept outcome, oldest first.
    var all: [PresentationOutcome] { outcomes }

    mutating func record(_ outcome: PresentationOutcome, keeping limit: Int) {
        outcomes.append(outcome)
        if outcomes.count > max(limit, 0) {
            outcomes.removeFirst(outcomes.count - max(limit, 0))
        }
    }

    func outcome(of id: PresentationID) -> PresentationOutcome? {
        outcomes.last { $0.id == id }
    }
}
