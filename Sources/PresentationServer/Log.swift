#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import JSON
import MicroHTTP
import PresentationAPI

/// Structured log lines, one JSON object per line on stdout, for a log collector.
///
/// Lines go out through one `LineOutput`, so lines from different threads never interleave
/// and keep their order. Request lines, and libmicrohttpd's lines for the requests it refused
/// itself, may wait there a moment to go out in a batch (`--access-log-flush-ms`); every other
/// line goes out at once, with those waiting before it.
enum Log {
    static let output = LineOutput(descriptor: STDOUT_FILENO)

    static func request(_ record: HTTPAccessRecord) {
        // On the stack, as every request writes one (a line longer than this spills to the heap):
        // a writer of its own cost a line an allocation and its free, about 300 instructions.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { scratch in
            var writer = JSONWriter(scratch: scratch)
            begin(&writer, level: "info", event: "request")
            writer.key("method")
            writeBounded(&writer, record.method.rawValue, limit: maxMethodBytes)
            writer.key("path")
            writeBounded(&writer, record.path, limit: maxPathBytes)
            writer.key("status")
            writer.writeInt(record.status.rawValue)
            writer.key("duration_ms")
            // `components` once: each read is a call of about 190 instructions.
            let (seconds, attoseconds) = record.duration.components
            // Digits written into the line: `String(format:)` was most of a line's cost.
            writer.writeDecimal(Int(seconds * 1_000_000 + attoseconds / 1_000_000_000_000), fractionDigits: 3)
            if let client = record.clientAddress {
                writer.key("client")
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ClientAddress.textCapacity) { text in
                    writer.writeString(utf8: UnsafeBufferPointer(rebasing: text[..<client.writeText(into: text)]))
                }
            }
            emit(&writer, now: false)
        }
    }

    /// The longest method and path a request line carries, in UTF-8 bytes; longer ones are cut
    /// and end in `…`. A client chooses both, up to the connection's memory (16 KiB, at most
    /// 1 MiB), and escaping can make a byte six (`\u0001`): uncut, one request made a line
    /// past 16 KiB, which Docker's log drivers split into pieces that are not JSON. Cut, a
    /// line stays under 7 KiB.
    static let maxMethodBytes = 64
    static let maxPathBytes = 1024

    private static func writeBounded(_ writer: inout JSONWriter, _ text: String, limit: Int) {
        // A native string keeps its UTF-8 count: an ordinary value costs one comparison.
        guard text.utf8.count > limit else { return writer.writeString(text) }
        var text = text
        text.withUTF8 { utf8 in
            // Not inside a character: back to the first byte of the one the limit falls in.
            var end = limit
            while end > 0, utf8[end] & 0xC0 == 0x80 { end -= 1 }
            let cut = Array(utf8[..<end]) + Array("…".utf8)
            cut.withUnsafeBufferPointer { writer.writeString(utf8: $0) }
        }
    }

    /// A line for the person at the terminal, not the log collector: why the server could not start.
    ///
    /// Its control characters come escaped, whatever the line carries: a path from the
    /// settings (`DATA_DIR=/data\r`, from an env file saved with CRLF line ends) was written
    /// raw in a storage failure's line, and its carriage return sent the rest of the line back
    /// over its start. A refused setting's escapes (`OptionsError`) pass as they are.
    static func standardError(_ line: String) {
        var shown = line.escapingControls() + "\n"
        shown.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// A message from libmicrohttpd itself (a refused TLS handshake, a socket error), with the
    /// status it answered when it refused a request on its own: a request that never reached
    /// the server, so it has no `request` line. Such a line stands for a request, as a request
    /// line does, and waits in the batch as those do: a client sending malformed requests
    /// would otherwise cost the server a write of its own for each.
    static func library(_ message: LibraryMessage) {
        var fields: [(String, JSONValueLike)] = [("message", .string(message.text))]
        if let status = message.refusal { fields.append(("status", .int(status.rawValue))) }
        Log.message(level: "warning", "libmicrohttpd", fields, now: message.refusal == nil)
    }

    static func info(_ event: String, _ fields: [(String, JSONValueLike)] = []) {
        message(level: "info", event, fields)
    }

    static func warning(_ event: String, _ fields: [(String, JSONValueLike)] = []) {
        message(level: "warning", event, fields)
    }

    static func error(_ event: String, _ fields: [(String, JSONValueLike)] = []) {
        message(level: "error", event, fields)
    }

    private static func message(level: String, _ event: String, _ fields: [(String, JSONValueLike)], now: Bool = true) {
        var writer = JSONWriter(capacity: 192)
        begin(&writer, level: level, event: event)
        for (name, value) in fields {
            writer.key(escaping: name)
            switch value {
            case .string(let string): writer.writeString(string)
            case .int(let int): writer.writeInt(int)
            }
        }
        emit(&writer, now: now)
    }

    /// A line's first members: when, how grave, what.
    private static func begin(_ writer: inout JSONWriter, level: String, event: String) {
        writer.beginObject()
        writer.key("time")
        writer.writeTimestamp(Date())
        writer.key("level")
        writer.writeString(level)
        writer.key("event")
        writer.writeString(event)
    }

    private static func emit(_ writer: inout JSONWriter, now: Bool) {
        writer.endObject()
        withUnsafeBytes(of: UInt8(ascii: "\n")) { writer.appendVerbatim($0.assumingMemoryBound(to: UInt8.self)) }
        writer.withWrittenBytes { now ? output.writeNow($0) : output.write($0) }
    }
}

/// The value of a log field.
enum JSONValueLike {
    case string(String)
    case int(Int)
}
