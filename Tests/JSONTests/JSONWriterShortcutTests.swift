import Foundation
import JSON
import Testing

/// The writer's fast paths give exactly what the general ones give.
@Suite("JSON writer shortcuts")
struct JSONWriterShortcutTests {
    @Test(
        "A timestamp written into the buffer matches Timestamp.string",
        arguments: [
            0.0, 0.001, 0.999, 1.5, -0.001, -1.0, -86_400.5, 951_782_400.123,  // 2000-02-29
            1_795_532_400.120, 4_102_444_799.999, 253_402_300_799.999,  // 9999-12-31
            253_402_300_800.0,  // 10000-01-01: past the four-digit years written in one go
        ]
    )
    func timestampsMatch(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        var writer = JSONWriter()
        writer.writeTimestamp(date)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(Timestamp.string(date))\"")
    }

    /// The writer computes the calendar date itself; `Timestamp.string` asks `gmtime_r`. Every
    /// day boundary of four centuries (leap days and century years included), and instants
    /// spread over years 1 to 9999 by a fixed sequence.
    @Test("A timestamp's calendar date agrees with gmtime_r's, day after day")
    func calendarAgrees() {
        var mismatches: [Double] = []
        for day in stride(from: -146_097, through: 146_097, by: 1) {
            for seconds in [Double(day) * 86_400, Double(day) * 86_400 + 86_399.999] {
                let date = Date(timeIntervalSince1970: seconds)
                var writer = JSONWriter()
                writer.writeTimestamp(date)
                if String(decoding: writer.bytes, as: UTF8.self) != "\"\(Timestamp.string(date))\"" { mismatches.append(seconds) }
            }
        }
        var random = RandomJSON(seed: 0)
        for _ in 0..<20_000 {
            let state = random.next()
            let seconds = Double(Int(state >> 11) % 315_537_897_600) - 62_135_596_800 + Double(state % 1000) / 1000
            let date = Date(timeIntervalSince1970: seconds)
            var writer = JSONWriter()
            writer.writeTimestamp(date)
            if String(decoding: writer.bytes, as: UTF8.self) != "\"\(Timestamp.string(date))\"" { mismatches.append(seconds) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }

    @Test("Timestamps inside an array are separated like any value")
    func timestampsTakeCommas() {
        var writer = JSONWriter()
        writer.beginArray()
        writer.writeTimestamp(Date(timeIntervalSince1970: 0))
        writer.writeTimestamp(Date(timeIntervalSince1970: 1))
        writer.endArray()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"["1970-01-01T00:00:00.000Z","1970-01-01T00:00:01.000Z"]"#)
    }

    @Test("Continuing an object adds members as if they had been written with it")
    func continuesObjects() {
        var whole = JSONWriter()
        whole.beginObject()
        whole.key("a")
        whole.writeInt(1)
        whole.key("b")
        whole.writeString("x")
        whole.endObject()

        var first = JSONWriter()
        first.beginObject()
        first.key("a")
        first.writeInt(1)
        first.endObject()
        var continued = JSONWriter(continuing: first.bytes)
        continued.key("b")
        continued.writeString("x")
        continued.endObject()
        #expect(continued.bytes == whole.bytes)

        var empty = JSONWriter(continuing: Array("{}".utf8))
        empty.key("b")
        empty.writeString("x")
        empty.endObject()
        #expect(String(decoding: empty.bytes, as: UTF8.self) == #"{"b":"x"}"#)
    }
}
