public import Foundation

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
