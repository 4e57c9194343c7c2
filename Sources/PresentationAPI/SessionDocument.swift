import JSON
import MicroHTTP
import Presentation

/// One session as a JSON document (docs/api.md, "Export and import"), so that a support tool can
/// copy a user's state elsewhere: `GET …/export` writes it, `POST /v1/sessions/import` reads it.
///
/// It holds what the session shows and remembers (tree, revision, kept events, outcomes, the id
/// counter) and never the token or idempotency replies, which belong to the original session.
enum SessionDocument {
    static let format = "presentation-server/session@1"

    /// The document, in a block of its own that responses can share (`ExportDocuments`).
    static func write(_ session: Session) -> SharedBytes {
        let snapshot = session.snapshot
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.key("format")
        writer.writeString(format)
        writer.key("exportedFrom")
        writer.writeString(session.id.rawValue)
        writer.key("revision")
        writer.writeInt(snapshot.revision)
        // Digit by digit into the buffer, as the session's own JSON writes them:
        // `Timestamp.string` asks `gmtime_r` and interpolates, 6,900 instructions each.
        writer.key("createdAt")
        writer.writeTimestamp(snapshot.createdAt)
        writer.key("updatedAt")
        writer.writeTimestamp(snapshot.updatedAt)
        writer.key("lastIssuedID")
        writer.writeInt(snapshot.lastIssuedID)
        writer.key("root")
        writer.write(stack: snapshot.root)
        writer.key("eventsDroppedThrough")
        writer.writeInt(snapshot.eventsDroppedThrough)
        writer.key("events")
        writer.beginArray()
        for event in snapshot.events { writer.write(event: event) }
        writer.endArray()
        writer.key("outcomes")
        writer.beginArray()
        for outcome in snapshot.outcomes { writer.write(outcome: outcome) }
        writer.endArray()
        writer.endObject()
        return writer.withWrittenBytes { SharedBytes(copying: $0) }
    }
}
