#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension JSONWriter {
    /// Writes `date` as `Timestamp.string(date)` does (RFC 3339, UTC, milliseconds), digit by
    /// digit into the buffer: a session carries two, and building them as strings showed in
    /// profiles. The calendar date comes from the day number by arithmetic (Howard Hinnant's
    /// `civil_from_days`), not `gmtime_r`, whose time-zone bookkeeping cost more than the rest.
    public mutating func writeTimestamp(_ date: Date) {
        startValue()
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Days since 0000-03-01, in 400-year eras of 146,097 days; March first, so that a leap
        // day ends its year.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (0...9999).contains(year) else {
            return appendSpelledOut(year: year, month: month, day: day, secondOfDay: secondOfDay, fraction: fraction)
        }
        // Every date of these four centuries has the same 26 bytes, quotes included: room is
        // made once and the digits go straight in, two at a time, with no loop to size them.
        if count + 26 > capacity { grow(toHold: count + 26) }
        let out = storage + count
        out[0] = .quote
        Self.put(year / 100, at: out + 1)
        Self.put(year % 100, at: out + 3)
        out[5] = .minus
        Self.put(month, at: out + 6)
        out[8] = .minus
        Self.put(day, at: out + 9)
        out[11] = UInt8(ascii: "T")
        Self.put(secondOfDay / 3600, at: out + 12)
        out[14] = .colon
        Self.put(secondOfDay / 60 % 60, at: out + 15)
        out[17] = .colon
        Self.put(secondOfDay % 60, at: out + 18)
        out[20] = UInt8(ascii: ".")
        out[21] = .digitZero + UInt8(truncatingIfNeeded: fraction / 100)
        Self.put(fraction % 100, at: out + 22)
        out[24] = UInt8(ascii: "Z")
        out[25] = .quote
        count += 26
    }

    /// Two decimal digits of `value` (0 to 99) at `out`.
    @inline(__always)
    private static func put(_ value: Int, at out: UnsafeMutablePointer<UInt8>) {
        out[0] = .digitZero + UInt8(truncatingIfNeeded: value / 10)
        out[1] = .digitZero + UInt8(truncatingIfNeeded: value % 10)
    }

    /// The same for a year outside 0 to 9999, digit by digit (a year past 9999 takes more than four).
    private mutating func appendSpelledOut(year: Int, month: Int, day: Int, secondOfDay: Int, fraction: Int) {
        append(.quote)
        appendDigits(year, width: 4)
        append(.minus)
        appendDigits(month, width: 2)
        append(.minus)
        appendDigits(day, width: 2)
        append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, width: 2)
        append(.colon)
        appendDigits(secondOfDay / 60 % 60, width: 2)
        append(.colon)
        appendDigits(secondOfDay % 60, width: 2)
        append(UInt8(ascii: "."))
        appendDigits(fraction, width: 3)
        append(UInt8(ascii: "Z"))
        append(.quote)
    }

    /// A non-negative number padded with zeros to `width` digits (wider numbers keep every digit).
    private mutating func appendDigits(_ value: Int, width: Int) {
        var divisor = 1
        var digits = 1
        while divisor * 10 <= value {
            divisor *= 10
            digits += 1
        }
        for _ in digits..<max(digits, width) { append(.digitZero) }
        var rest = value
        while divisor > 0 {
            append(.digitZero + UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
