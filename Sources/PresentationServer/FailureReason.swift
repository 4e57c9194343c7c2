import Presentation

/// What a failure of storage is, as a log line's `reason` tells it to an operator: the
/// storage's own message ("database is locked"), not the Swift value that carries it
/// (`storageFailed("database is locked")`).
func failureReason(_ error: any Error) -> String {
    switch error {
    case PresentationError.storageFailed(let reason): reason
    case PresentationError.storageFull: "the disk is full"
    default: "\(error)"
    }
}
