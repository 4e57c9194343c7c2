import Foundation
import Presentation
import Testing

/// A `presented` event's binary form names the presented stack's screen; the form recorded
/// before it did (tag 3, kept on disk and in exports) still reads, without that screen.
@Suite("Presented events as stored")
struct PresentedEventBytesTests {
    static let time = Date(timeIntervalSinceReferenceDate: 1_000)

    @Test("A presented event comes back with its stack and screen, an alert's with neither")
    func roundTrip() throws {
        for kind in [
            EventKind.presented(
                presentationID("p3"), style: .sheet, by: screenID("s2"), stack: stackID("k4"), screen: screenID("s5")),
            .presented(presentationID("p3"), style: .alert, by: screenID("s2"), stack: nil, screen: nil),
        ] {
            var writer = ByteWriter()
            writer.write(Event(revision: 2, time: Self.time, kind: kind))
            var reader = ByteReader(writer.bytes)
            #expect(try reader.event() == Event(revision: 2, time: Self.time, kind: kind))
            #expect(reader.isAtEnd)
        }
    }

    @Test("A presented event stored before events named the screen reads without it")
    func olderForm() throws {
        var writer = ByteWriter()
        writer.integer(2)
        writer.double(Self.time.timeIntervalSinceReferenceDate)
        writer.byte(3)
        writer.string("p3")
        writer.string("sheet")
        writer.string("s2")
        writer.optional("k4")
        var reader = ByteReader(writer.bytes)
        let event = try reader.event()
        #expect(reader.isAtEnd)
        #expect(
            event.kind == .presented(presentationID("p3"), style: .sheet, by: screenID("s2"), stack: stackID("k4"), screen: nil))
    }
}
