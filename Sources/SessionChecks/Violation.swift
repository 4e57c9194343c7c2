/// A broken promise found by a check: what was expected, in words a failing run can print.
///
/// The fuzz targets trap on it (so libFuzzer keeps the input); the test suites record it as an issue.
public struct Violation: Error, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
