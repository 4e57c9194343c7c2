public import Foundation

extension JSONWriter {
    /// Writes `date` as `Timestamp.string(date)` does (RFC 3339, UTC, milliseconds), digit by
    /// digit into the buffer: a session carries two, and building them as strings showed in profiles.
    public mutating func writeTimestamp(_ date: Date) {
        startValue()
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = milliseconds - Int(seconds) * 1000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        append(.quote)
        appendDigits(Int(parts.tm_year) + 1900, width: 4)
        append(.minus)
        appendDigits(Int(parts.tm_mon) + 1, width: 2)
        append(.minus)
        appendDigits(Int(parts.tm_mday), width: 2)
        append(UInt8(ascii: "T"))
        appendDigits(Int(parts.tm_hour), width: 2)
        append(.colon)
        appendDigits(Int(parts.tm_min), width: 2)
        append(.colon)
        appendDigits(Int(parts.tm_sec), width: 2)
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
