
extension Session {
    /// A session rebuilt from a snapshot (read back from disk, or imported), checked against every
    /// invariant the operations keep and against `limits`; `.invalidSnapshot` says what is wrong,
    /// `.stackTooLong` and `.presentationsTooDeep` which limit the tree is past.
    ///
    /// History, outcomes and replies longer than `limits` keeps are trimmed from the oldest, as the
    /// operations would have; everything else beyond a limit is refused.
    public init(
        id: SessionID,
        tokenDigest: SessionTokenDigest,
        restoring snapshot: Snapshot,
        limits: Limits
    ) throws(PresentationError) {
        guard snapshot.revision >= 1 else { throw .invalidSnapshot("the revision must be 1 or more") }
        // Each change adds one to the revision and ids come from a counter: a snapshot that starts
        // them next to Int.max would overflow (a trap, the whole server down) at its next change.
        guard snapshot.revision <= Self.maxRestoredCounter else {
            throw .invalidSnapshot("the revision must be at most \(Self.maxRestoredCounter)")
        }
        guard snapshot.lastIssuedID <= Self.maxRestoredCounter else {
            throw .invalidSnapshot("lastIssuedID must be at most \(Self.maxRestoredCounter)")
        }
        guard snapshot.createdAt <= snapshot.updatedAt else {
            throw .invalidSnapshot("updatedAt is earlier than createdAt")
        }
        var numbers = IssuedNumbers(last: snapshot.lastIssuedID)
        let chain = try Self.chain(from: snapshot.root, revision: snapshot.revision, limits: limits, numbers: &numbers)
        try Self.checkEvents(snapshot.events, droppedThrough: snapshot.eventsDroppedThrough, revision: snapshot.revision)
        var history = EventHistory(restoring: snapshot.events, droppedThrough: snapshot.eventsDroppedThrough)
        history.append([], keeping: limits.eventsKept, bytes: limits.maxSessionBytes)
        for outcome in snapshot.outcomes {
            try Self.check(outcome, openIn: chain)
            // A closed presentation's id came from the same counter as the tree's: issued, and
            // once. One past the counter would be issued again to the next presentation, open
            // and closed at once, which no export of it nor restart could read back.
            try numbers.claim(outcome.id.rawValue, prefix: "p")
        }
        var replies = ReplyLog()
        for (key, reply) in snapshot.replies.recorded {
            replies.record(reply, for: key, keeping: limits.repliesKept, bytes: limits.replyBytesKept)
        }
        self.init(
            id: id, tokenDigest: tokenDigest, revision: snapshot.revision, createdAt: snapshot.createdAt,
            updatedAt: snapshot.updatedAt, replies: replies, chain: chain,
            ids: IDCounter(lastIssued: snapshot.lastIssuedID), history: history,
            outcomes: OutcomeLog(restoring: snapshot.outcomes, keeping: limits.outcomesKept, bytes: limits.maxSessionBytes))
    }

    /// The same session under another id and token: what an import is once a store named it.
    func identified(as id: SessionID, tokenDigest: SessionTokenDigest) -> Session {
        Session(
            id: id, tokenDigest: tokenDigest, revision: revision, createdAt: createdAt, updatedAt: updatedAt,
            replies: replies, chain: chain, ids: ids, history: history, outcomes: outcomes)
    }

    /// The largest revision and id counter a restored session may have: 2^59, far enough below
    /// Int.max that no number of changes can overflow either, within the 18 digits an id's
    /// number is read with, and far above what an import may start at
    /// (`ImportedSession.maxCounter`) plus any number of changes: a session this server
    /// wrote always reads back.
    public static let maxRestoredCounter = 1 << 59

    /// Takes the nested tree apart into a chain, checking each stack and presentation on the way up.
    private static func chain(
        from root: Stack, revision: Int, limits: Limits, numbers: inout IssuedNumbers
    ) throws(PresentationError) -> Chain {
        var stacks: [Stack] = []
        var links: [Chain.Link] = []
        var next: Stack? = root
        while let stack = next {
            next = nil
            try numbers.claim(stack.id.rawValue, prefix: "k")
            // Refused as the push that made it would be, naming the limit: an importer learns
            // which option the document is past, as it does for `session_too_large`. (A store
            // reading back its own rows lifts these limits, so this is an import's refusal alone.)
            guard stack.path.count <= limits.maxStackLength else { throw .stackTooLong(limit: limits.maxStackLength) }
            for screen in stack.path {
                try numbers.claim(screen.id.rawValue, prefix: "s")
                if let result = screen.result, !(1...revision).contains(result.revision) {
                    throw .invalidSnapshot("the result of screen \(screen.id) names revision \(result.revision)")
                }
            }
            var bare = stack
            bare.presentation = nil
            stacks.append(bare)
            guard let presentation = stack.presentation else { break }
            try numbers.claim(presentation.id.rawValue, prefix: "p")
            guard presentation.presentedBy == stack.top.id else {
                throw .invalidSnapshot("presentation \(presentation.id) must be presented by \(stack.top.id), the top of its stack")
            }
            guard links.count < limits.maxPresentationDepth else {
                throw .presentationsTooDeep(limit: limits.maxPresentationDepth)
            }
            switch presentation.content {
            case .alert(let alert):
                guard presentation.style == .alert else {
                    throw .invalidSnapshot("presentation \(presentation.id) holds an alert but has style \(presentation.style.rawValue)")
                }
                links.append(Chain.Link(id: presentation.id, style: .alert, presentedBy: presentation.presentedBy, body: .alert(alert)))
            case .stack(let inner, let navigation):
                guard presentation.style != .alert else {
                    throw .invalidSnapshot("alert \(presentation.id) holds a stack")
                }
                guard navigation || inner.path.count == 1 else {
                    throw .invalidSnapshot("stack \(inner.id) was presented without navigation but holds several screens")
                }
                links.append(
                    Chain.Link(
                        id: presentation.id, style: presentation.style, presentedBy: presentation.presentedBy,
                        body: .stack(navigation: navigation)))
                next = inner
            }
        }
        var chain = Chain(root: stacks[0])
        for (index, link) in links.enumerated() {
            chain.present(link, holding: index + 1 < stacks.count ? stacks[index + 1] : nil)
        }
        return chain
    }

    /// Events in revision order, every kept revision present, none after the current one.
    private static func checkEvents(_ events: [Event], droppedThrough: Int, revision: Int) throws(PresentationError) {
        // A revision with more events than are kept is dropped whole, so the current one may be too.
        guard (0...revision).contains(droppedThrough) else {
            throw .invalidSnapshot("eventsDroppedThrough must be from 0 to \(revision)")
        }
        var expected = droppedThrough + 1
        for event in events {
            if event.revision == expected {
                expected += 1
            } else if event.revision != expected - 1 || expected == droppedThrough + 1 {
                throw .invalidSnapshot("events must cover revisions \(droppedThrough + 1) to \(revision) in order, each at least once")
            }
        }
        guard expected == revision + 1 else {
            throw .invalidSnapshot("events must cover revisions \(droppedThrough + 1) to \(revision) in order, each at least once")
        }
    }

    /// A closed presentation's outcome: not one still open, and a result only when dismissed.
    private static func check(_ outcome: PresentationOutcome, openIn chain: Chain) throws(PresentationError) {
        guard outcome.status != .presented else {
            throw .invalidSnapshot("outcome \(outcome.id) is not closed; open presentations are in the tree")
        }
        guard !chain.links.contains(where: { $0.id == outcome.id }) else {
            throw .invalidSnapshot("presentation \(outcome.id) is open and closed at once")
        }
        guard (outcome.status == .dismissed) == (outcome.result != nil) else {
            throw .invalidSnapshot("outcome \(outcome.id): only a dismissed presentation has a result")
        }
    }
}

/// The id numbers a restored tree uses: each once, none beyond what the counter issued, so new ids never collide.
struct IssuedNumbers {
    let last: Int
    /// The numbers claimed, searched end to end while there are few, as in most sessions (a
    /// `Set` from the first, grown and hashed id by id, was a tenth of a start-up's
    /// instructions: docs/performance.md, item 100); past `fewLimit` they go to `many` as well.
    private var few: [Int] = []
    private var many: Set<Int> = []
    private static let fewLimit = 32

    init(last: Int) {
        self.last = last
    }

    /// Checks that `id` is `prefix` and a number the counter issued, not used before in the tree.
    mutating func claim(_ id: String, prefix: Unicode.Scalar) throws(PresentationError) {
        guard let number = Self.number(of: id, prefix: UInt8(ascii: prefix)) else {
            throw .invalidSnapshot("\(id) is not an id this server issues (\(prefix) and a number)")
        }
        guard number <= last else { throw .invalidSnapshot("\(id) is beyond lastIssuedID \(last)") }
        guard firstClaim(of: number) else { throw .invalidSnapshot("the id number of \(id) is used twice") }
    }

    /// Checks that `id` is `prefix` and a number the counter issued, without claiming it: an id
    /// the tree refers to (a result's source) rather than one it holds.
    func checkIssued(_ id: String, prefix: Unicode.Scalar) throws(PresentationError) {
        guard let number = Self.number(of: id, prefix: UInt8(ascii: prefix)) else {
            throw .invalidSnapshot("\(id) is not an id this server issues (\(prefix) and a number)")
        }
        guard number <= last else { throw .invalidSnapshot("\(id) is beyond lastIssuedID \(last)") }
    }

    /// Notes `number` claimed; false when it was already.
    private mutating func firstClaim(of number: Int) -> Bool {
        guard few.count == Self.fewLimit else {
            if few.contains(number) { return false }
            if few.isEmpty { few.reserveCapacity(16) }
            few.append(number)
            return true
        }
        if many.isEmpty { many = Set(few) }
        return many.insert(number).inserted
    }

    /// The number of `prefix` and a number as the counter spells it (no sign, no leading zero,
    /// at least 1), read from the UTF-8 bytes: a restart claims every id of every session, and
    /// `Int(id.dropFirst())` with a `String` round trip to check the spelling was an eighth of it.
    private static func number(of id: String, prefix: UInt8) -> Int? {
        var bytes = id.utf8.makeIterator()
        guard bytes.next() == prefix, let first = bytes.next(), first > UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            return nil
        }
        var number = Int(first - UInt8(ascii: "0"))
        var digits = 1
        while let byte = bytes.next() {
            // 18 digits cannot overflow an Int; the counter never comes near.
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 18 else { return nil }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
        }
        return number
    }
}
