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
/// and keep their order. Request lines may wait there a moment to go out in a batch
/// (`--access-log-flush-ms`); every other line goes out at once, with those waiting before it.
enum Log {
    static let output = LineOutput(descriptor: STDOUT_FILENO)

    static func request(_ record: HTTPAccessRecord) {
        // On the stack, as every request writes one (a line longer than this spills to the heap):
        // a writer of its own cost a line an allocation and its free, about 300 instructions.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { scratch in
            var writer = JSONWriter(scratch: scratch)
            begin(&writer, level: "info", event: "request")
            writer.key("method")
            writer.writeString(record.method.rawValue)
            writer.key("path")
            writer.writeString(record.path)
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

    /// A line for the person at the terminal, not the log collector: why the server could not start.
    static func standardError(_ line: String) {
        var line = line + "\n"
        line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// A message from libmicrohttpd itself (a refused TLS handshake, a socket error).
    static func library(_ message: String) {
        Log.message(level: "warning", "libmicrohttpd", [("message", .string(message))])
    }

    static func info(_ event: String, _ fields: [(String, JSONValueLike)] = []) {
        message(level: "info", event, fields)
    }

    static func error(_ event: String, _ fields: [(String, JSONValueLike)] = []) {
        message(level: "error", event, fields)
    }

    private static func message(level: String, _ event: String, _ fields: [(String, JSONValueLike)]) {
        var writer = JSONWriter(capacity: 192)
        begin(&writer, level: level, event: event)
        for (name, value) in fields {
            writer.key(escaping: name)
            switch value {
            case .string(let string): writer.writeString(string)
            case .int(let int): writer.writeInt(int)
            }
        }
        emit(&writer, now: true)
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
