/// An operation, and optionally the top screen it was meant for (the client's `from`).
public struct Step: Hashable, Sendable {
    public var operation: Operation
    /// When set, the step applies only while this screen is the top: a double tap on back pops once.
    public var expectedTop: ScreenID?

    public init(operation: Operation, expectedTop: ScreenID? = nil) {
        self.operation = operation
        self.expectedTop = expectedTop
    }
}
