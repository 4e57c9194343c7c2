#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Something that happened to a session's tree; one change's events share its revision and time.
public struct Event: Hashable, Sendable {
    public var revision: Int
    public var time: Date
    public var kind: EventKind

    public init(revision: Int, time: Date, kind: EventKind) {
        self.revision = revision
        self.time = time
        self.kind = kind
    }
}
