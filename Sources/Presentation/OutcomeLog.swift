/// The outcomes of a session's closed presentations, oldest forgotten first.
struct OutcomeLog: Hashable, Sendable {
    /// An outcome and what its result weighs (`JSONValue.heldBytes`), taken once when it is
    /// recorded: the log is trimmed by bytes as well as by count, and weighing every kept
    /// result again at each dismissal cost as much as they have values.
    private struct Kept: Hashable, Sendable {
        let outcome: PresentationOutcome
        let resultBytes: Int

        init(_ outcome: PresentationOutcome) {
            self.outcome = outcome
            self.resultBytes = outcome.result?.heldBytes ?? 0
        }
    }

    /// Oldest first; a few hundred at most, so a linear search is cheaper than keeping an index in step.
    private var kept: [Kept] = []

    init() {}

    /// A log read back from a snapshot, oldest first, trimmed as `record` trims.
    init(restoring outcomes: [PresentationOutcome], keeping limit: Int, bytes byteLimit: Int) {
        self.kept = outcomes.suffix(max(limit, 0)).map(Kept.init)
        trim(keeping: limit, bytes: byteLimit)
    }

    /// Every kept outcome, oldest first.
    var all: [PresentationOutcome] { kept.map(\.outcome) }

    var count: Int { kept.count }

    /// Calls `body` with each kept outcome, oldest first, without an array of them: what every
    /// durable write of a session does. (A lazy map returned as `some Collection` cost each
    /// write a lookup of its generic metadata by mangled name: 2,800 instructions a durable
    /// push/pop, docs/performance.md.)
    func forEach(_ body: (PresentationOutcome) throws -> Void) rethrows {
        for entry in kept { try body(entry.outcome) }
    }

    /// Adds `outcome`, then forgets the oldest past `limit` outcomes or past `byteLimit` bytes
    /// of results; the newest is kept whatever its result weighs.
    mutating func record(_ outcome: PresentationOutcome, keeping limit: Int, bytes byteLimit: Int = .max) {
        kept.append(Kept(outcome))
        trim(keeping: limit, bytes: byteLimit)
    }

    private mutating func trim(keeping limit: Int, bytes byteLimit: Int) {
        var forgotten = max(kept.count - max(limit, 0), 0)
        if byteLimit < .max {
            var bytes = kept[forgotten...].reduce(0) { $0 + $1.resultBytes }
            while bytes > byteLimit && forgotten < kept.count - 1 {
                bytes -= kept[forgotten].resultBytes
                forgotten += 1
            }
        }
        if forgotten > 0 { kept.removeFirst(forgotten) }
    }

    func outcome(of id: PresentationID) -> PresentationOutcome? {
        kept.last { $0.outcome.id == id }?.outcome
    }
}
