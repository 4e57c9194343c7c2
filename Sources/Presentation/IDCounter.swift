/// A session's one counter for screen, stack and presentation ids, so no id is ever issued twice in a session.
struct IDCounter: Hashable, Sendable {
    private var last = 0

    init() {}

    /// A counter that goes on after `lastIssued`, read back from a snapshot.
    init(lastIssued: Int) {
        last = lastIssued
    }

    /// The last number issued; the next id gets one more.
    var lastIssued: Int { last }

    mutating func screenID() -> ScreenID { ScreenID(number: next()) }
    mutating func stackID() -> StackID { StackID(number: next()) }
    mutating func presentationID() -> PresentationID { PresentationID(number: next()) }

    private mutating func next() -> Int {
        last += 1
        return last
    }
}
