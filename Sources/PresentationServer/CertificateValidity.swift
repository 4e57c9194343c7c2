#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When the server's certificate is usable: the `notBefore` and `notAfter` of the first
/// certificate in a PEM file (a chain lists the server's own first), read from its DER.
///
/// libmicrohttpd and GnuTLS take a certificate past its `notAfter` without a word: the server
/// logged `listening` with `"scheme": "https"`, and every client that checks certificates then
/// failed its handshake, with nothing in the server's log to say why. Read here, the date goes
/// into the `listening` line, and an expired certificate gets a warning at start. Not a
/// refusal: the server would serve the same certificate once it expired while running (it
/// reads its files once), clients that do not check keep working, and a server that will not
/// start is a harder outage than one whose handshakes some clients refuse. Only what is needed
/// is read; a file this cannot read is left to GnuTLS to judge, as before.
///
/// A certificate not valid yet (issued on a machine whose clock runs ahead, or with a start
/// date set for a rollover) is refused by the same clients in the same silence until its
/// `notBefore`: it gets a warning of its own, for the same reasons.
struct CertificateValidity {
    /// Seconds since the Unix epoch.
    let notBefore: Int
    let notAfter: Int
    /// In ISO 8601 (`2026-11-26T21:33:06Z`), for the log.
    let notBeforeText: String
    let notAfterText: String

    /// Nil when the file holds no certificate this can read.
    init?(pem: String) {
        guard let der = Self.firstCertificate(in: pem), let (from, until) = Self.validity(in: der) else { return nil }
        (notBefore, notBeforeText) = from
        (notAfter, notAfterText) = until
    }

    /// Whether the certificate has expired at `now` (seconds since the epoch).
    func hasExpired(at now: Int) -> Bool { now > notAfter }

    /// Whether the certificate's validity has not begun at `now` (seconds since the epoch).
    func isNotYetValid(at now: Int) -> Bool { now < notBefore }

    // MARK: PEM and DER

    private static let begin = Array("-----BEGIN CERTIFICATE-----".utf8)
    private static let end = Array("-----END CERTIFICATE-----".utf8)

    private static func firstCertificate(in pem: String) -> [UInt8]? {
        let text = Array(pem.utf8)
        guard let start = offset(of: begin, in: text, from: 0).map({ $0 + begin.count }),
            let stop = offset(of: end, in: text, from: start)
        else { return nil }
        return Data(base64Encoded: Data(text[start..<stop].filter { $0 > 0x20 })).map { [UInt8]($0) }
    }

    private static func offset(of marker: [UInt8], in text: [UInt8], from start: Int) -> Int? {
        guard text.count - marker.count >= start else { return nil }
        return (start...(text.count - marker.count)).first { text[$0..<$0 + marker.count].elementsEqual(marker) }
    }

    /// Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serial
    /// INTEGER, signature SEQUENCE, issuer SEQUENCE, validity SEQUENCE { notBefore, notAfter }, … } … }
    private static func validity(in der: [UInt8]) -> (from: (Int, String), until: (Int, String))? {
        var certificate = DERReader(der, der.indices)
        guard let outer = certificate.next(tag: 0x30) else { return nil }
        var fields = DERReader(der, outer)
        guard let tbs = fields.next(tag: 0x30) else { return nil }
        var tbsFields = DERReader(der, tbs)
        guard var serial = tbsFields.next() else { return nil }
        if serial.tag == 0xA0 {
            guard let next = tbsFields.next() else { return nil }
            serial = next
        }
        guard serial.tag == 0x02, tbsFields.next(tag: 0x30) != nil, tbsFields.next(tag: 0x30) != nil,
            let validity = tbsFields.next(tag: 0x30)
        else { return nil }
        var times = DERReader(der, validity)
        guard let from = times.next().flatMap({ time($0, in: der) }), let until = times.next().flatMap({ time($0, in: der) })
        else { return nil }
        return (from, until)
    }

    /// A UTCTime (`YYMMDDHHMMSSZ`, years 1950 to 2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`),
    /// the two forms RFC 5280 4.1.2.5 allows: seconds since the epoch and ISO 8601.
    private static func time(_ element: (tag: UInt8, contents: Range<Int>), in der: [UInt8]) -> (Int, String)? {
        let text = der[element.contents]
        let yearDigits: Int
        switch (element.tag, text.count) {
        case (0x17, 13): yearDigits = 2
        case (0x18, 15): yearDigits = 4
        default: return nil
        }
        guard text.last == UInt8(ascii: "Z"), text.dropLast().allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let digits = text.dropLast().map { Int($0 - 0x30) }
        func number(_ at: Int, _ count: Int) -> Int { digits[at..<at + count].reduce(0) { $0 * 10 + $1 } }
        var year = number(0, yearDigits)
        if yearDigits == 2 { year += year >= 50 ? 1900 : 2000 }
        let (month, day, hour, minute, second) = (
            number(yearDigits, 2), number(yearDigits + 2, 2), number(yearDigits + 4, 2), number(yearDigits + 6, 2),
            number(yearDigits + 8, 2)
        )
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return (seconds, "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z")
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`): no calendar of Foundation's is needed for it.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// DER elements one after another within a range: tag, length, contents.
private struct DERReader {
    let bytes: [UInt8]
    var at: Int
    let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        at = range.lowerBound
        end = range.upperBound
    }

    /// The next element, nil when none is left or it runs past the range.
    mutating func next() -> (tag: UInt8, contents: Range<Int>)? {
        guard end - at >= 2 else { return nil }
        let tag = bytes[at]
        var length = Int(bytes[at + 1])
        var start = at + 2
        if length >= 0x80 {
            let count = length & 0x7F
            guard (1...4).contains(count), end - start >= count else { return nil }
            length = bytes[start..<start + count].reduce(0) { $0 << 8 | Int($1) }
            start += count
        }
        guard length <= end - start else { return nil }
        at = start + length
        return (tag, start..<start + length)
    }

    /// The next element's contents when it has `tag`.
    mutating func next(tag: UInt8) -> Range<Int>? {
        guard let element = next(), element.tag == tag else { return nil }
        return element.contents
    }
}
