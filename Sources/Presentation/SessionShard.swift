import Synchronization

/// One of the store's 64 maps from id to entry; a class only because an array cannot hold a `Mutex` directly.
final class SessionShard: Sendable {
    let entries = Mutex<[SessionID: SessionEntry]>([:])
}
