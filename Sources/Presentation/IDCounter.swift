/// A session's one counter for screen, stack and presentation ids, so no id is ever issued twice in a session.
struct IDCounter: Hashable, Sendable {
    private var last = 0

    mutating func screenID() -> ScreenID { ScreenID(number: next()) }
    mutating func stackID() -> StackID { StackID(number: next()) }
    mutating func presentationID() -> PresentationID { PresentationID(number: next()) }

    private mutating func next() -> Int {
        last += 1
        return last
    }
}
