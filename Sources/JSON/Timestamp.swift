#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// RFC 3339 UTC timestamps with milliseconds, written without a formatter object
/// (Foundation's formatters are slow and not free to share across threads).
public enum Timestamp {
    public static func string(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
            + ".\(pad(milliseconds - milliseconds.floorDivided(by: 1000) * 1000, 3))Z"
    }

    /// The instant `string` names, when it is RFC 3339 UTC as `string(_:)` writes it (the
    /// fraction may have 0 to 9 digits) and its date is one the calendar has; nil for anything else.
    /// A leap second (`23:59:60`) is refused: `string(_:)` never writes one (a `Date` has none),
    /// and `timegm` read it as the next minute's 0, which an export then named instead.
    public static func date(_ string: String) -> Date? {
        let bytes = Array(string.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...daysIn(month, of: year)).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            let digits = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), (1...9).contains(digits), let value = number(20..<(20 + digits)) else {
                return nil
            }
            fraction = Double(value) / pow(10, Double(digits))
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Date(timeIntervalSince1970: Double(timegm(&parts)) + fraction)
    }

    /// The days of `month` (1-12) in `year`, February's 29 in a Gregorian leap year: a 31 April
    /// or a 29 February 2026 names no day, and `timegm` would move it into the next month.
    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
